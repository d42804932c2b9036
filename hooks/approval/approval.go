// Package approval is tackle's approval policy: a built-in pre_tool_call
// hook that decides, for each tool call, whether it runs (Continue), waits
// for the user (Pause) or is skipped with a reason the model reads (Skip).
//
// # Order of evaluation
//
// For each call, the first of these that applies decides:
//
//  1. a deny rule matches → Skip, in every mode (yolo too), naming the rule;
//  2. plan mode and the tool is not a reader → Skip ("plan mode is read-only"),
//     unless it is a read-only bash program and bash runs in a sandbox
//     (WithSandbox, readonly.go), or a network tool (fetch), which
//     changes nothing in the workspace and asks as in other modes;
//  3. bash deny rules exist and the program cannot be checked against them
//     soundly (it does not parse, builds a command at run time, pipes into
//     sh, …) → Pause;
//  4. the call writes a protected path (protect.go) → Pause, in every mode,
//     unless an allow rule names that exact path or protection is off;
//     then an ask rule (Claude Code's permissions.ask) covers the call,
//     matched as deny rules are → Pause, in every mode (yolo too);
//     then, if an earlier pre_tool_call hook said Ask or Allow for exactly
//     these arguments (hooks.Approval, e.g. a Claude Code hook's
//     permissionDecision, or a process hook's "approve") → Pause or Continue;
//  5. allow rules and session rules ("approve always") together cover the
//     call → Continue; for bash, every simple command must be covered;
//     so do a custom command's allowed-tools while its turn runs
//     (SetTurnRules), which step 4 never counts: they open no protected
//     path and no way out of the sandbox, and fetch's address rules
//     ignore them;
//  6. yolo mode → Continue;
//  7. the tool only reads → Continue (not a remote tool: an MCP server's
//     tool asks unless a rule allows it, whatever it declares);
//  8. bash runs in a sandbox and the program only reads (readonly.go) →
//     Continue;
//  9. accept-edits mode and the tool edits files → Continue;
//  10. otherwise → Pause, with a reason saying what the call wants to do.
//
// What a tool does (reads, edits, anything else) is the kind the tool
// declares (tools.Kind), and how a file tool reaches the paths it names
// (shows what they hold, changes them, lists names) is the access it
// declares (tools.Access), both learnt through an Inspector, never
// guessed from its name; a tool with no kind is guarded like one that
// runs commands, and a tool naming no paths has none to match rules.
//
// Rule syntax and matching are described on Rule. How bash programs are
// read is in shell.go and wrappers.go (what words expand to: expand.go,
// vartable.go; builtins taking variable names: vars.go); in short:
//
//   - The program is parsed with a real shell parser (mvdan.cc/sh, bash
//     dialect), never matched as a string. Each simple command — the parts
//     of ;, &&, ||, |, &, newlines, the bodies of if/while/for/case and of
//     function definitions, and what wrappers run — must be covered by a
//     rule. A program that does not parse is never allowed by a rule.
//   - Never allowed by a pattern rule (so such a program always asks,
//     unless yolo or a bare `bash` rule): command substitutions $(…) and
//     `…`, process substitutions, subshells ( … ), redirects that write a
//     file (anything but /dev/null, /dev/stdout, /dev/stderr and
//     descriptor duplication like 2>&1), a command name known only at run
//     time, a program fed to a shell on stdin or from a here-document,
//     arithmetic on variables, alias/hash/enable, find -delete, a string
//     holding an array-subscript trap ('x[$(cmd)]'), and a wrapper whose
//     command cannot be told.
//   - A word known only at run time ($VAR, "$X", globs, {a,b}, ~) is
//     matched only by a pattern's final `*`, and not even by it when the
//     command reads or writes the files its arguments name (cat $F, but
//     not echo $F) and it may expand to a path outside the workspace:
//     braces, ~, the values the program gives its own variables and
//     for-loop items are expanded as bash would (expand.go), and a glob's
//     matches are looked at (cat *.go and cat src/{a,b}.go are covered;
//     cat {README,~/.ssh/id_rsa}, cat ../* and a glob matching a link out
//     are not). An input redirect is a path too: cat < ../x is covered by
//     no rule.
//   - A name given to a builtin that evaluates or sets it (test -v,
//     printf -v, read, mapfile, declare, export, local, unset, getopts,
//     wait -p; vars.go) is not covered by a final `*` when it has an
//     array subscript (bash evaluates it and runs the $(…) in it), is
//     known only at run time, or, when it is set, is upper case (PATH,
//     IFS, BASH_ENV, GIT_CONFIG_*: a variable that changes how later
//     commands run).
//   - A pattern's final `*` never covers an option or script that writes
//     files, deletes or runs code (sed -i, sed 'w f', awk's system(),
//     git --output, find -exec, curl -o, python -c …; the table is
//     commands.go), nor a word naming a path outside the workspace (an
//     absolute path elsewhere, a .. escape, a symbolic link leading out).
//     A pattern word naming the option literally covers it:
//     `bash(sed -i *)` allows sed -i, `bash(sed *)` does not.
//   - Leading assignments are words of the command: `bash(go test *)`
//     does not allow `GOFLAGS=-x go test`; `bash(GOFLAGS=-x go test *)`
//     does.
//   - A wrapper (env, timeout, nice, nohup, sudo, doas, command, builtin,
//     exec, time, xargs, find -exec, watch, sh/bash -c, eval, trap, …)
//     needs a rule naming it, and what it runs needs its own rule:
//     `bash(timeout *)` plus `bash(go test *)` allow `timeout 5 go test`,
//     neither does alone. A shell running a script file (`bash x.sh`,
//     `source x.sh`) is allowed by a rule naming it; the script is not
//     read.
//   - Deny rules see every command the program may run: inside
//     substitutions, behind wrappers (every suffix of the arguments of a
//     wrapper whose options are not modelled), in sh -c and eval strings,
//     in here-documents fed to a shell, in function bodies. The command
//     name matches by base name (/bin/rm is rm; quoting and backslashes
//     are resolved first: 'rm', \rm, r\m), and options between pattern
//     words are skipped (`bash(git push *)` denies `git -C x push`). Where
//     a deny rule cannot tell (a word known only at run time where the
//     pattern has a literal, a program built at run time, a pipe into sh,
//     a here-string on another descriptor), the call pauses, in yolo too.
//
// Deny rules guard against the commands they name; they are not a sandbox.
// They do not see inside script files (one the model wrote included),
// other interpreters (python -c, awk's system(), make recipes, git
// aliases), remote commands (ssh host rm) or a program copied under
// another name.
//
// # Path rules
//
// A path rule applies to every tool that reaches the path the same way
// (as each tool declares: tools.Access), after symbolic links are
// resolved: read_file and grep read (and edit_file, whose result shows
// the file), write_file and edit_file edit, glob and list_dir list
// names; a rule naming a tool that edits is about editing. So the deny rule read_file(.env)
// also stops grep on .env or on a link to it, and edit_file(.git/**)
// also stops write_file. A deny rule that reads also hides the file from
// a grep of a whole directory (the tools get ReadAllowed as a filter).
// For bash, a deny rule on reading or listing stops any command with a
// word naming the path (cat .env, grep x .env, < .env); a deny rule on
// editing stops a command that writes it (a redirect, cp's destination,
// sed -i …) or names it without being known to only read. bash cannot be
// followed into a directory (grep -r x ., cat *), a path built at run
// time, or a program that opens the file itself.
package approval

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// HookName is the name the policy's hook has in the decision trace.
const HookName = "approval"

// maxQuoted bounds, in bytes, a command or arguments quoted in a reason
// (chat.OneLine): the approval dialog shows them whole.
const maxQuoted = 200

// HookPriority is the priority of the policy's hook: hooks of a lower
// priority run before it, and it judges the calls as they left them.
const HookPriority = 100

// Mode is an approval mode.
type Mode string

// The approval modes.
const (
	Default     Mode = "default"      // reads run; edits and shell ask
	AcceptEdits Mode = "accept-edits" // reads and edits run; shell asks
	Yolo        Mode = "yolo"         // everything runs
	Plan        Mode = "plan"         // read-only: edits and shell are skipped
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Default, AcceptEdits, Yolo, Plan:
		return m, nil
	}
	return "", fmt.Errorf("unknown approval mode %q (want default, accept-edits, yolo or plan)", s)
}

// Inspector tells the policy what a call would do: its tool's kind and
// access, and the paths it names, as sent and with symbolic links
// resolved (Inspect); and what a tool a rule names declares (Lookup).
// *tools.Registry is one.
type Inspector interface {
	Inspect(call chat.ToolCall) (tools.CallInfo, error)
	Lookup(name string) (*tools.Tool, bool)
}

// Option configures a Policy.
type Option func(*Policy)

// WithRules sets the allow and deny rules (see Rules.Parse).
func WithRules(allow, deny []Rule) Option {
	return func(p *Policy) {
		p.allow = slices.Clone(allow)
		p.deny = slices.Clone(deny)
	}
}

// WithWorkspace gives the workspace root, so that an absolute path inside
// it matches path rules like the relative path it is.
func WithWorkspace(root string) Option {
	return func(p *Policy) {
		if root != "" {
			p.root = realPath(filepath.Clean(root))
		}
	}
}

// Policy decides which tool calls run, ask or are skipped. It is safe for
// concurrent use.
type Policy struct {
	inspector Inspector
	root      string
	env       pathEnv

	mu         sync.Mutex
	mode       Mode
	sandboxed  bool // bash commands run in an OS sandbox (readonly.go)
	sandboxNet bool // and reach the network (escape.go)
	allow      []Rule
	deny       []Rule
	ask        []Rule // ask rules (permissions.go): they ask in every mode
	session    []Rule // approve-always rules, in the order they were added
	// turn are the rules of a custom command's allowed-tools while its
	// turn runs, and turnBy the command (SetTurnRules).
	turn   []Rule
	turnBy string

	// perms are the allow and deny rules with their sources, when set by
	// WithPermissions (permissions.go).
	perms []Permission
}

// New returns a policy in mode. It learns what each call does from in
// (tools.Registry.Inspect): the kind its tool declares, and the paths it
// names with symbolic links resolved, which path rules are matched
// against besides the path as sent (a deny rule matches if either does,
// an allow rule only if all do). A tool of KindNetwork, a tool that
// declares no kind and a tool in does not know are treated like KindExec,
// the most guarded kind; so is every tool when in is nil.
func New(mode Mode, in Inspector, opts ...Option) *Policy {
	p := &Policy{mode: mode, inspector: in}
	for _, o := range opts {
		o(p)
	}
	p.env.root = p.root
	if p.env.shared == nil {
		p.env.shared = &protRoots{}
	}
	return p
}

// SetMode changes the mode for the calls that follow.
func (p *Policy) SetMode(m Mode) {
	p.mu.Lock()
	p.mode = m
	p.mu.Unlock()
}

// Mode returns the current mode.
func (p *Policy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Hook returns the policy as a pre_tool_call hook.
func (p *Policy) Hook() hooks.Hook[hooks.PreToolInput, hooks.PreToolResult] {
	return hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
		Name:     HookName,
		Priority: HookPriority,
		Run: func(_ context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
			return p.decide(in.Call, in.Approval), nil
		},
	}
}

// Remember adds session rules for calls like call: the user approved it
// "always". It adds Always(call), and returns the rules it added (none
// already there).
func (p *Policy) Remember(call chat.ToolCall) []Rule {
	return p.AddSessionRules(p.Always(call)...)
}

// AddSessionRules adds rules as session rules (FromSession) and returns
// those it added: a session continued later gets back the rules
// "approve always" gave it. A rule for every bash command (bash,
// bash(*), bash(* …)) is never added: no call's "always" makes one.
func (p *Policy) AddSessionRules(rules ...Rule) []Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	var added []Rule
	for _, r := range rules {
		if r.Tool == ShellTool && (r.Pattern == "" || !ruleWord(strings.Fields(r.Pattern)[0])) {
			continue
		}
		if !slices.Contains(p.session, r) {
			p.session = append(p.session, r)
			added = append(added, r)
		}
	}
	return added
}

// SetSessionRules makes rules the session rules, in place of those there
// were, with the same check as AddSessionRules: a conversation the UI
// starts (/new) or goes on with (/resume) has its own.
func (p *Policy) SetSessionRules(rules ...Rule) {
	p.mu.Lock()
	p.session = nil
	p.mu.Unlock()
	p.AddSessionRules(rules...)
}

// Always returns the session rules approving call "always" adds: the
// rules AlwaysRules makes for it, when together they cover the whole
// call — once they are added, the same call runs without asking (in the
// default mode; whatever the mode, the rules are the same) — and none
// otherwise. So "always" is never a rule for a
// fragment: `rm -rf build && echo removed` gets none (rm gets no rule,
// and bash(echo *) alone would not cover the call), and is approved
// once. A call that asks whatever the rules (a protected path, a way out
// of the sandbox, an ask rule, a program deny rules cannot see through)
// gets none either.
func (p *Policy) Always(call chat.ToolCall) []Rule {
	rules := p.AlwaysRules(call)
	if len(rules) == 0 {
		return nil
	}
	if p.decideWith(call, nil, rules, Default).Action != hooks.ToolContinue {
		return nil
	}
	return rules
}

// SetTurnRules makes rules allow the calls they cover, like allow rules,
// until ClearTurnRules: a custom command's allowed-tools while its turn
// runs; by names the command for the reasons. They never open what step
// 4 guards (a protected path, a way out of the sandbox) and never name a
// host for fetch's address rules (NamesHost); deny rules, ask rules and
// plan mode hold.
func (p *Policy) SetTurnRules(by string, rules []Rule) {
	p.mu.Lock()
	p.turn, p.turnBy = slices.Clone(rules), by
	p.mu.Unlock()
}

// ClearTurnRules ends the rules SetTurnRules set.
func (p *Policy) ClearTurnRules() { p.SetTurnRules("", nil) }

// SessionRules returns the session rules added by Remember, in the order
// they were added, in rule syntax.
func (p *Policy) SessionRules() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.session))
	for i, r := range p.session {
		out[i] = r.String()
	}
	return out
}

// AlwaysRules returns the rules "always" would make for call, one per
// simple command of a bash program that can have one, whether or not they
// cover all of it (Always adds them only when they do). They are never
// wider than the call:
//
//   - bash: one rule per simple command of the program. A command known
//     to only read (commands.go), with none of its risky options and no
//     word naming a path outside the workspace or known only at run time,
//     gets a rule of its name (and subcommand) and a final `*`:
//     `cat main.go` → bash(cat *), `git status -s` → bash(git status *);
//     the final `*` never covers the risky words, so the rule stays
//     read-only. A command not in the table gets a rule of exactly its
//     words: `./x` aside, `mytool build -v` → bash(mytool build -v). A
//     command that writes, deletes, sends files or runs code (rm, cp,
//     sed -i, go test, make, python …), names a path outside the
//     workspace or a protected path, or that no rule could cover (inside
//     a substitution, behind a wrapper, with a write redirect or leading
//     assignments) gets no rule: it is approved once.
//   - a file tool (write_file, edit_file, the readers: a tool declaring
//     how it reaches the paths it names): a rule naming exactly the path
//     (edit_file(main.go)); none for a protected path or a path that is a
//     symbolic link.
//   - a network tool (fetch): a rule naming exactly the URL's host
//     (fetch(domain:go.dev)); it never opens a private address to fetch,
//     which only configured rules do (NamesHost).
//   - any other tool: the tool, when the call has no arguments; else no
//     rule, since tackle cannot scope its arguments.
//
// It never gives bash or bash(*). A program that does not parse gives no
// rule.
func (p *Policy) AlwaysRules(call chat.ToolCall) []Rule {
	s := p.subject(call)
	if call.Name == ShellTool {
		if s.escape() != "" {
			return nil // a way out of the sandbox is approved once (escape.go)
		}
		return s.alwaysShell()
	}
	if s.server == "" && s.access != 0 {
		return p.alwaysPath(s)
	}
	if s.network {
		if s.host == "" {
			return nil
		}
		return []Rule{{Tool: call.Name, Pattern: domainPrefix + s.host}}
	}
	if args := strings.TrimSpace(call.Arguments); args == "" || args == "{}" {
		return []Rule{{Tool: call.Name}}
	}
	return nil
}

func (p *Policy) alwaysPath(s *subject) []Rule {
	if len(s.paths) != 1 {
		return nil // a symbolic link: the rule would have to name both
	}
	rel := s.paths[0]
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil // outside the workspace: the tool refuses it
	}
	if (s.kind == tools.KindEdit || s.access&tools.EditsFiles != 0) && p.env.protected(p.env.absPath(rel)) != "" {
		return nil
	}
	r := Rule{Tool: s.call.Name, Pattern: escapeGlob(rel, "*?[]{}\\")}
	if back, err := ParseRule(r.String()); err != nil || back != r || !matchPath(back.Pattern, rel, false) {
		return nil
	}
	return []Rule{r}
}

func (s *subject) alwaysShell() []Rule {
	if !s.hasCmd {
		return nil
	}
	prog := s.program()
	if prog.err != nil {
		return nil
	}
	if s.movesAway() != "" {
		return nil // its paths cannot be judged
	}
	var out []Rule
	for _, c := range prog.cmds {
		if !c.plain {
			continue
		}
		if r, ok := s.alwaysRule(c); ok && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// alwaysRule returns the "always" rule for one plain simple command.
func (s *subject) alwaysRule(c *command) (Rule, bool) {
	args := c.args()
	if len(args) == 0 || !args[0].static || !ruleWord(args[0].text) {
		return Rule{}, false
	}
	a := s.assessed(c)
	if a.effect > unknownEffect || a.outside != "" || a.dynamic || slices.ContainsFunc(a.guard, func(g string) bool { return g != "" }) {
		return Rule{}, false
	}
	if s.bashEnv().namesProtected(c, a) != "" {
		return Rule{}, false
	}
	var words []string
	if a.effect == readsOnly && a.known && a.prefix > 0 {
		for _, w := range args[:a.prefix] {
			if !w.static || !ruleWord(w.text) {
				return Rule{}, false
			}
			words = append(words, w.text)
		}
		words = append(words, "*")
	} else {
		for _, w := range args {
			if !w.static || w.text == "" || strings.ContainsFunc(w.text, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
				return Rule{}, false
			}
			words = append(words, escapeGlob(w.text, "*?[\\"))
		}
	}
	r := Rule{Tool: ShellTool, Pattern: strings.Join(words, " ")}
	// The rule must read back as itself and cover the command it is for.
	if back, err := ParseRule(r.String()); err != nil || back != r {
		return Rule{}, false
	}
	if ok, _ := matchAllow(strings.Fields(r.Pattern), c.words, a.guard); !ok {
		return Rule{}, false
	}
	return r, true
}

// escapeGlob puts a backslash before each of the characters special in a
// pattern, so that the pattern matches s alone.
func escapeGlob(s, special string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ruleWord reports whether a command name can stand in a rule as itself:
// printable, no spaces, nothing a pattern or ParseRule reads specially.
func ruleWord(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.ContainsAny(s, "*?[]\\()") {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Decide returns the policy's decision for one call.
func (p *Policy) Decide(call chat.ToolCall) hooks.PreToolResult {
	return p.decide(call, nil)
}

// decide is Decide with what an earlier hook said about asking the user
// (nil: nothing). It counts only after deny rules, plan mode, programs
// deny rules cannot see through and protected paths, and only for the
// arguments the hook judged.
func (p *Policy) decide(call chat.ToolCall, say *hooks.Approval) hooks.PreToolResult {
	return p.decideWith(call, say, nil, "")
}

// decideWith is decide with extra session rules counted as if they were
// added, in mode as (the policy's own when empty): Always asks what
// adding rules would do, whatever the mode.
func (p *Policy) decideWith(call chat.ToolCall, say *hooks.Approval, extra []Rule, as Mode) hooks.PreToolResult {
	p.mu.Lock()
	mode, allow, deny, ask, session, sandboxed := p.mode, p.allow, p.deny, p.ask, p.session, p.sandboxed
	turn, turnBy := p.turn, p.turnBy
	p.mu.Unlock()
	if as != "" {
		mode = as
	}
	if len(extra) > 0 {
		session = append(slices.Clip(session), extra...)
	}

	s := p.subject(call)
	kind := s.kind
	// readOnly: a bash program that only reads, where a sandbox holds
	// what it does (readonly.go).
	escape := ""
	if sandboxed {
		escape = s.escape() // a way out of the sandbox (escape.go)
	}
	readOnly := sandboxed && escape == "" && kind == tools.KindExec && s.notReadOnly() == ""

	// 1. Deny rules, in every mode.
	d := s.denied(deny)
	if d.rule != nil {
		return skipResult(fmt.Sprintf("denied by the rule %s: %s", d.rule, d.what))
	}
	// 2. Plan mode reads only: it changes nothing in the workspace. A
	// network tool (fetch) changes nothing there either, and asks below
	// as in every mode.
	if mode == Plan && kind != tools.KindRead && !readOnly && !s.network {
		return skipResult(fmt.Sprintf("plan mode is read-only: %s was not run (%s). Describe the change in your plan instead.",
			call.Name, s.describe(kind)))
	}
	// 3. A program deny rules cannot see through.
	if d.unsure != "" {
		return pauseResult(fmt.Sprintf("%s — %s; asking", s.describe(kind), d.unsure))
	}
	// 4. Protected paths, in every mode.
	if why := s.protected(kind, allow, session); why != "" {
		return pauseResult(fmt.Sprintf("%s — %s; asking in every mode", s.describe(kind), why))
	}
	// 4b. A way out of the sandbox, in every mode: only the user lets a
	// command out.
	if escape != "" {
		if mode == Plan {
			return skipResult(fmt.Sprintf("plan mode is read-only: %s was not run (it asks to %s).", call.Name, escape))
		}
		return pauseResult(fmt.Sprintf("%s — it asks to %s; asking in every mode", s.describe(kind), escape))
	}
	// 4c. Ask rules, in every mode, whatever a hook said: as deny rules
	// see the call, with a pause for a skip.
	if len(ask) > 0 {
		if a := s.denied(ask); a.rule != nil {
			what := a.what
			if a.rule.Pattern == "" {
				what = "every " + a.rule.Tool + " call"
			}
			return pauseResult(fmt.Sprintf("%s — the rule ask %s covers it (%s); asking in every mode", s.describe(kind), a.rule, what))
		} else if a.unsure != "" {
			return pauseResult(fmt.Sprintf("%s — an ask rule may cover it and tackle cannot tell; asking", s.describe(kind)))
		}
	}
	// A hook's say (hooks.Approval) on the arguments it judged.
	if say.Holds(call) {
		if say.Ask {
			return pauseResult(hookAsks(s.describe(kind), say))
		}
		return hooks.PreToolResult{Reason: fmt.Sprintf("approved by hook %q", say.Hook)}
	}
	// 5. Allow rules, session rules and a command's turn rules.
	a := s.allowed(allow, session)
	if !a.ok && len(turn) > 0 {
		if t := s.allowed(allow, slices.Concat(session, turn)); t.ok {
			return hooks.PreToolResult{Reason: fmt.Sprintf("allowed by %s (allowed-tools of %s)", t.by, turnBy)}
		}
	}
	if a.ok {
		return hooks.PreToolResult{Reason: "allowed by " + a.by}
	}
	// 6–8. Modes.
	switch {
	case mode == Yolo:
		return hooks.PreToolResult{Reason: "yolo mode"}
	case kind == tools.KindRead && s.server == "":
		return hooks.PreToolResult{}
	case readOnly:
		return hooks.PreToolResult{Reason: "read-only, in the sandbox"}
	case kind == tools.KindEdit && mode == AcceptEdits:
		return hooks.PreToolResult{Reason: "accept-edits mode"}
	}
	// 10. Ask.
	reason := s.describe(kind)
	if a.why != "" {
		reason += " — " + a.why
	}
	return pauseResult(reason)
}

// HeldBack says why a blanket approval — one given to calls at once,
// with no person looking at each: the UI's "approve these", tackle --yes
// — must hold call back, or "" when it may approve it. It holds back a
// call that writes a protected path no allow rule names exactly (the
// pause step 4 makes, in every mode): a change there can run code later,
// so a person answers for that call on its own. Nothing is held back
// when protection is off.
func (p *Policy) HeldBack(call chat.ToolCall) string {
	p.mu.Lock()
	allow, session := p.allow, p.session
	p.mu.Unlock()
	s := p.subject(call)
	return s.protected(s.kind, allow, session)
}

// Protected says why a write to the file rel would ask in every mode —
// rel is protected and no allow rule names it exactly — or "" (also
// when protection is off). rel is a path as the file tools resolve it:
// relative to the workspace, slash-separated, symbolic links resolved;
// or absolute, outside it. It agrees with what the policy decides for a
// call of a file tool that writes rel (write_file, edit_file).
func (p *Policy) Protected(rel string) string {
	if p.env.prot.Off {
		return ""
	}
	p.mu.Lock()
	allow, session := p.allow, p.session
	p.mu.Unlock()
	rel, why := p.protectedWrite("", tools.EditsFiles, []string{p.relPath(rel)}, slices.Concat(allow, session))
	if why == "" {
		return ""
	}
	return fmt.Sprintf("%s is protected (%s)", rel, why)
}

// ReadAllowed reports whether the file rel (as for Protected) may be
// read: false when a deny rule on reading covers it, as it would a call
// of a file tool that shows rel (read_file, grep). The file tools take it
// as a filter, so that a grep of a whole directory skips the file too.
func (p *Policy) ReadAllowed(rel string) bool {
	p.mu.Lock()
	deny := p.deny
	p.mu.Unlock()
	rel = p.relPath(rel)
	for _, r := range deny {
		if p.ruleAccess(r.Tool)&tools.ReadsFiles == 0 {
			continue
		}
		if r.Pattern == "" || matchPath(r.Pattern, rel, true) {
			return false
		}
	}
	return true
}

// hookAsks is the reason of a pause a hook asked for.
func hookAsks(what string, say *hooks.Approval) string {
	r := fmt.Sprintf("%s — hook %q asks", what, say.Hook)
	if say.Reason != "" {
		r += ": " + say.Reason
	}
	return r
}

func skipResult(reason string) hooks.PreToolResult {
	return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: reason}
}

func pauseResult(reason string) hooks.PreToolResult {
	return hooks.PreToolResult{Action: hooks.ToolPause, Reason: reason}
}

// ruleAccess is the access a path rule of the tool named is about (see
// tools.Access.Main): how the tool reaches its paths, as it declares; 0
// for a tool that names no paths or that the policy does not know.
func (p *Policy) ruleAccess(tool string) tools.Access {
	if p.inspector == nil {
		return 0
	}
	t, ok := p.inspector.Lookup(tool)
	if !ok {
		return 0
	}
	return t.Access().Main()
}

// denyApplies reports whether a deny rule of tool rt applies to a call of
// tool ct reaching its paths with access ca: the same tool, or a tool
// that reaches paths the way the rule is about.
func (p *Policy) denyApplies(rt, ct string, ca tools.Access) bool {
	return toolMatches(rt, ct) || p.ruleAccess(rt)&ca != 0
}

// allowApplies reports whether an allow rule of tool rt applies to a call
// of tool ct reaching its paths with access ca: the same tool, or one
// whose rules are about the same access.
func (p *Policy) allowApplies(rt, ct string, ca tools.Access) bool {
	if toolMatches(rt, ct) {
		return true
	}
	ra := p.ruleAccess(rt)
	return ra != 0 && ra == ca.Main()
}

// subject is one call as rules see it.
type subject struct {
	p       *Policy
	call    chat.ToolCall
	kind    tools.Kind   // KindRead, KindEdit or KindExec (see New)
	access  tools.Access // how the tool reaches paths, as it declares
	command string       // bash: the program
	hasCmd  bool
	prog    *program // bash: parsed on first use
	// paths are the paths a file tool's call names as rules see them
	// (relPath): as sent, then as resolved (tools.CallInfo); sent is the
	// first as sent, for a reason.
	paths []string
	sent  string
	// server is a remote tool's server (an MCP server's tool): it asks
	// unless a rule allows it, whatever it declares.
	server string
	// network: the tool reaches other machines (fetch); host is the host
	// the call reaches, as domain rules see it ("" when the tool will
	// refuse the call).
	network bool
	host    string
	assess  map[*command]*assessment

	// bash: where the program's relative paths are taken from (see where).
	env     *pathEnv
	away    string // why they cannot be judged, if so
	located bool
}

func (p *Policy) subject(call chat.ToolCall) *subject {
	var info tools.CallInfo
	if p.inspector != nil {
		// Arguments the tool refuses still give its kind, and what they
		// name as far as they decode.
		info, _ = p.inspector.Inspect(call)
	}
	s := &subject{p: p, call: call, kind: tools.KindExec, access: info.Access, server: info.Server}
	if info.Kind == tools.KindRead || info.Kind == tools.KindEdit {
		s.kind = info.Kind
	}
	if s.server != "" {
		return s // a remote tool names no workspace paths tackle can judge
	}
	if info.Kind == tools.KindNetwork {
		s.network, s.host = true, info.Host
		return s
	}
	if call.Name == ShellTool {
		s.command, s.hasCmd = info.Command, info.Command != ""
		return s
	}
	if len(info.Sent) > 0 {
		s.sent = info.Sent[0]
	}
	for _, r := range slices.Concat(info.Sent, info.Paths) {
		if r = p.relPath(r); !slices.Contains(s.paths, r) {
			s.paths = append(s.paths, r)
		}
	}
	return s
}

// relPath cleans a path the way rules see it: slash-separated, relative to
// the workspace when it is inside it.
func (p *Policy) relPath(raw string) string {
	s := filepath.ToSlash(raw)
	if filepath.IsAbs(raw) && p.root != "" {
		if rel, err := filepath.Rel(p.root, filepath.Clean(raw)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			s = filepath.ToSlash(rel)
		}
	}
	return path.Clean(s)
}

func (s *subject) program() *program {
	if s.prog == nil {
		s.prog = analyzeShell(s.command)
	}
	return s.prog
}

// assessed returns what the policy knows about a command of the program.
func (s *subject) assessed(c *command) *assessment {
	if s.assess == nil {
		s.assess = make(map[*command]*assessment)
	}
	a, ok := s.assess[c]
	if !ok {
		a = s.bashEnv().assess(c)
		s.assess[c] = a
	}
	return a
}

type denial struct {
	rule   *Rule
	what   string // what matched, for the reason
	unsure string // why deny rules cannot be checked, if so
}

func (s *subject) denied(deny []Rule) denial {
	var patterns, pathRules []Rule
	for i := range deny {
		r := &deny[i]
		if s.call.Name == ShellTool && r.Tool != ShellTool && r.Pattern != "" && s.p.ruleAccess(r.Tool) != 0 {
			pathRules = append(pathRules, *r)
			continue
		}
		if !s.p.denyApplies(r.Tool, s.call.Name, s.access) {
			continue
		}
		if r.Pattern == "" {
			if !toolMatches(r.Tool, s.call.Name) {
				// Every call of a file tool reaching paths this way.
				return denial{rule: r, what: fmt.Sprintf("every %s call is denied, and %s reaches files the same way", r.Tool, s.call.Name)}
			}
			return denial{rule: r, what: "every " + r.Tool + " call is denied"}
		}
		patterns = append(patterns, *r)
	}
	if len(patterns) == 0 && len(pathRules) == 0 {
		return denial{}
	}
	if s.network {
		for i, r := range patterns {
			if s.host != "" && matchDomain(r.Pattern, s.host) {
				return denial{rule: &patterns[i], what: s.host}
			}
		}
		return denial{} // a URL the tool refuses reaches no host
	}
	if s.call.Name != ShellTool {
		if len(s.paths) == 0 {
			// The tool declares no paths (or the policy has no
			// inspector): its arguments cannot be held against a
			// pattern.
			return denial{unsure: fmt.Sprintf("cannot tell which paths %s names, to check it against the deny rule %s", s.call.Name, &patterns[0])}
		}
		for i, r := range patterns {
			for _, p := range s.paths {
				if matchPath(r.Pattern, p, true) {
					return denial{rule: &patterns[i], what: p}
				}
			}
		}
		return denial{}
	}
	if !s.hasCmd {
		if s.p.inspector == nil {
			return denial{unsure: "without the tools to ask, the policy cannot see its command"}
		}
		return denial{} // the tool refuses the call
	}
	prog := s.program()
	if prog.err != nil {
		return denial{unsure: fmt.Sprintf("could not parse the command (%v)", prog.err)}
	}
	if d := s.pathDenied(pathRules); d.rule != nil {
		return d
	}
	if len(patterns) == 0 {
		if len(prog.unsure) > 0 {
			return denial{unsure: "cannot check it against the deny rules: " + prog.unsure[0]}
		}
		return denial{}
	}
	var unsure string
	for _, list := range [][]*command{prog.cmds, prog.guesses} {
		for _, c := range list {
			args := c.args()
			if len(args) == 0 {
				continue
			}
			for i, r := range patterns {
				switch matchDeny(strings.Fields(r.Pattern), args) {
				case fullMatch:
					return denial{rule: &patterns[i], what: chat.OneLine(c.String(), maxQuoted)}
				case maybeMatch:
					if unsure == "" {
						unsure = fmt.Sprintf("cannot tell whether %s is denied by %s", chat.OneLine(c.String(), maxQuoted), r)
					}
				}
			}
		}
	}
	if unsure == "" && len(prog.unsure) > 0 {
		unsure = "cannot check it against the deny rules: " + prog.unsure[0]
	}
	return denial{unsure: unsure}
}

// pathDenied applies the path deny rules of the file tools to a bash
// program, where it names the paths as words the parser can see: a rule
// on reading or listing to every word naming the path, a rule on editing
// to the files a command writes and to every word of a command not known
// to only read.
func (s *subject) pathDenied(rules []Rule) denial {
	if len(rules) == 0 {
		return denial{}
	}
	prog := s.program()
	check := func(w word, edit bool, what string) denial {
		rels := s.wordPaths(w)
		for i, r := range rules {
			if s.p.ruleAccess(r.Tool)&tools.EditsFiles != 0 && !edit {
				continue
			}
			for _, rel := range rels {
				if matchPath(r.Pattern, rel, true) {
					return denial{rule: &rules[i], what: fmt.Sprintf("%s names %s", what, rel)}
				}
			}
		}
		return denial{}
	}
	for _, rd := range prog.redirs {
		if d := check(rd.w, rd.write, "a redirect"); d.rule != nil {
			return d
		}
	}
	for _, list := range [][]*command{prog.cmds, prog.guesses} {
		for _, c := range list {
			a := s.assessed(c)
			what := chat.OneLine(c.String(), maxQuoted)
			for _, t := range a.writes {
				if d := check(t.w, true, what); d.rule != nil {
					return d
				}
			}
			for _, t := range a.reads {
				if d := check(t.w, false, what); d.rule != nil {
					return d
				}
			}
			args := c.args()
			for i := 1; i < len(args); i++ {
				cands := []word{args[i]}
				if args[i].static {
					cands = cands[:0]
					for _, cand := range pathCandidates(args[i].text) {
						cands = append(cands, lit(cand))
					}
				}
				for _, w := range cands {
					if d := check(w, a.mayWriteAny(), what); d.rule != nil {
						return d
					}
				}
			}
		}
	}
	return denial{}
}

// wordPaths returns the workspace-relative paths a bash word names: as
// written (cleaned) and with symbolic links resolved, from each directory
// the program may be in. A path outside the workspace is given absolute.
func (s *subject) wordPaths(w word) []string {
	var out []string
	if w.static && w.text != "" {
		out = append(out, s.p.relPath(w.text))
	}
	e := s.bashEnv()
	for _, abs := range e.locate(w) {
		r, inside := e.rel(abs)
		if !inside {
			r = filepath.ToSlash(abs)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// protected says why the call writes a protected path and no allow rule
// names that exact path, or "".
func (s *subject) protected(kind tools.Kind, allow, session []Rule) string {
	e := &s.p.env
	if e.prot.Off {
		return ""
	}
	if s.call.Name != ShellTool {
		if kind != tools.KindEdit && s.access&tools.EditsFiles == 0 {
			return ""
		}
		rel, why := s.p.protectedWrite(s.call.Name, s.access, s.paths, slices.Concat(allow, session))
		if why == "" {
			return ""
		}
		if r, ok := e.rel(e.absPath(rel)); ok && r != rel {
			return fmt.Sprintf("%s (a link to %s) is protected (%s). Only an allow rule naming exactly the file lets a write to it through, and only by its own path, e.g. --allow '%s(%s)'",
				rel, r, why, s.call.Name, escapeGlob(r, "*?[]{}\\"))
		}
		return fmt.Sprintf("%s is protected (%s). Only an allow rule naming exactly this path lets it through, e.g. --allow '%s(%s)'",
			rel, why, s.call.Name, escapeGlob(rel, "*?[]{}\\"))
	}
	if !s.hasCmd {
		return ""
	}
	prog := s.program()
	if prog.err != nil {
		return ""
	}
	e = s.bashEnv()
	for _, rd := range prog.redirs {
		if !rd.write {
			continue
		}
		if why := e.protectedTarget(rd.w, true); why != "" {
			return fmt.Sprintf("it writes to %s, which is protected (%s)", rd.w.src, why)
		}
	}
	if away := s.movesAway(); away != "" && s.writesAnything() {
		return away + ", and then writes files, which might be protected"
	}
	rules := append(slices.Clone(allow), session...)
	for _, list := range [][]*command{prog.cmds, prog.guesses} {
		for _, c := range list {
			why := e.namesProtected(c, s.assessed(c))
			if why == "" || exactShellRule(rules, c) {
				continue
			}
			return why
		}
	}
	return ""
}

// movesAway says how the program changes its working directory to one
// where its relative paths cannot be judged (cd with no argument, cd -,
// popd, a directory known only at run time or outside the workspace, a
// CDPATH setting), or "".
func (s *subject) movesAway() string {
	s.where()
	return s.away
}

// bashEnv returns the path environment of a bash program: relative paths
// are taken from each directory it may cd into.
func (s *subject) bashEnv() *pathEnv {
	s.where()
	return s.env
}

// maxDirs bounds the directories a program is followed into.
const maxDirs = 16

// where works out the directories below the workspace root a bash
// program may be in when it names a relative path. bash starts in the
// root; each cd to a directory known when the program is written adds
// it, joined to every directory already possible (the program may take
// either branch of an if). Anything else that changes directory is
// recorded in away.
func (s *subject) where() {
	if s.located {
		return
	}
	s.located = true
	s.env = &s.p.env
	if !s.hasCmd {
		return
	}
	prog := s.program()
	if prog.err != nil {
		return
	}
	e := s.p.env.withProgram(prog)
	s.env = e
	dirs := []string{"."}
	for _, list := range [][]*command{prog.cmds, prog.guesses} {
		for _, c := range list {
			for _, w := range c.words {
				if strings.HasPrefix(w.text, "CDPATH=") || strings.HasPrefix(w.src, "CDPATH=") {
					s.away = "it sets CDPATH, which changes where cd goes"
					return
				}
			}
			args := c.args()
			if len(args) == 0 || !args[0].static {
				continue
			}
			name := args[0].text
			switch name {
			case "cd", "pushd", "popd":
			default:
				continue
			}
			var target *word
			for i := 1; i < len(args); i++ {
				if a := args[i]; a.static && (a.text == "--" || len(a.text) > 1 && a.text[0] == '-') {
					continue // cd -P, cd --
				}
				target = &args[i]
				break
			}
			switch {
			case name == "popd":
				s.away = "popd goes back to a directory not known here"
			case target == nil:
				s.away = name + " with no directory goes to the home directory"
			case !target.static:
				s.away = fmt.Sprintf("%s %s goes to a directory known only at run time", name, target.src)
			case target.text == "-":
				s.away = name + " - goes back to a directory not known here"
			}
			if s.away != "" {
				return
			}
			var next []string
			for _, d := range dirs {
				j := path.Clean(path.Join(d, filepath.ToSlash(target.text)))
				if path.IsAbs(target.text) {
					j = target.text
				}
				r, ok := e.dirRel(j)
				if !ok {
					s.away = fmt.Sprintf("%s %s goes to a directory outside the workspace", name, target.src)
					return
				}
				next = append(next, r)
			}
			for _, r := range next {
				if !slices.Contains(dirs, r) {
					dirs = append(dirs, r)
				}
			}
			if len(dirs) > maxDirs {
				s.away = "it changes directory too often to follow"
				return
			}
		}
	}
	if len(dirs) > 1 {
		s.env = e.in(dirs)
	}
}

// readRedirects says how an input redirect of the program reads a file
// outside the workspace or one known only at run time (cat < ../x,
// cat < ~/.ssh/id_rsa, < /proc/$PPID/environ), or "". Rules cover
// commands; a redirect is no word of one.
func (s *subject) readRedirects() string {
	e := s.bashEnv()
	for _, rd := range s.program().redirs {
		if rd.write {
			continue
		}
		if rd.w.static {
			if why := e.outside(rd.w.text); why != "" {
				return fmt.Sprintf("it reads %s (%s)", rd.w.src, why)
			}
			continue
		}
		why, unknown := e.wordOutside(rd.w)
		if unknown {
			return fmt.Sprintf("it reads %s, a file known only at run time", rd.w.src)
		}
		if why != "" {
			return fmt.Sprintf("it reads %s (%s)", rd.w.src, why)
		}
	}
	return ""
}

// writesAnything reports a program that writes files or may: a write
// redirect, or a command that writes or is not known.
func (s *subject) writesAnything() bool {
	prog := s.program()
	for _, rd := range prog.redirs {
		if rd.write {
			return true
		}
	}
	for _, list := range [][]*command{prog.cmds, prog.guesses} {
		for _, c := range list {
			if a := s.assessed(c); len(a.writes) > 0 || a.mayWriteAny() {
				return true
			}
		}
	}
	return false
}

// namesProtected says why a command writes a protected path: a file it
// writes, or any word naming one in a command that is not in the table or
// that writes, deletes or runs code (its writes are not all known).
func (e *pathEnv) namesProtected(c *command, a *assessment) string {
	if e.prot.Off {
		return ""
	}
	if a.config != "" {
		return fmt.Sprintf("%s %s, which is protected (a command hook there runs on tackle's next start)", chat.OneLine(c.String(), maxQuoted), a.config)
	}
	for _, t := range a.writes {
		if why := e.protectedTarget(t.w, true); why != "" {
			return fmt.Sprintf("%s writes to %s, which is protected (%s)", chat.OneLine(c.String(), maxQuoted), t.w.src, why)
		}
	}
	if !a.mayWriteAny() {
		return ""
	}
	args := c.args()
	isGit := len(args) > 0 && args[0].static && path.Base(args[0].text) == "git"
	for i := 1; i < len(args); i++ {
		w := args[i]
		if isGit && w.static && w.text == "HEAD" {
			continue // a revision, not the file
		}
		cands := []word{w}
		if w.static {
			cands = cands[:0]
			for _, cand := range pathCandidates(w.text) {
				cands = append(cands, lit(cand))
			}
		}
		for _, cw := range cands {
			// A word known only at run time counts where the table says
			// the command writes it (above), not as any argument.
			if why := e.protectedTarget(cw, false); why != "" {
				return fmt.Sprintf("%s names %s, which is protected (%s)", chat.OneLine(c.String(), maxQuoted), w.src, why)
			}
		}
	}
	return ""
}

// protectedWrite returns the first of paths (as rules see them: relPath)
// that is protected and why, unless an allow rule of rules names each of
// them exactly, also as its links resolve; tool, reaching the paths with
// access, is the tool that writes ("" for any that edits). It returns
// "", "" when no path is protected or such a rule lets the write
// through. It does not look at whether protection is off.
func (p *Policy) protectedWrite(tool string, access tools.Access, paths []string, rules []Rule) (rel, why string) {
	e := &p.env
	for _, rel := range paths {
		if why = e.protected(e.absPath(rel)); why == "" {
			continue
		}
		// The exact rule must name the path as sent and as resolved.
		all := slices.Clone(paths)
		for _, rel := range paths {
			if r, ok := e.rel(e.absPath(rel)); ok && !slices.Contains(all, r) {
				all = append(all, r)
			}
		}
		if p.exactPathRule(rules, tool, access, all) {
			return "", ""
		}
		return rel, why
	}
	return "", ""
}

// exactPathRule reports an allow rule of a tool reaching paths like tool
// (reaching them with access) whose pattern is exactly the path (no
// wildcards), for every path.
func (p *Policy) exactPathRule(rules []Rule, tool string, access tools.Access, paths []string) bool {
	for _, r := range rules {
		if r.Pattern == "" || !p.allowApplies(r.Tool, tool, access) || hasMeta(r.Pattern, "*?[{") {
			continue
		}
		if allPaths(r.Pattern, paths) {
			return true
		}
	}
	return false
}

// exactShellRule reports a bash allow rule with no wildcard that covers
// the whole command.
func exactShellRule(rules []Rule, c *command) bool {
	for _, r := range rules {
		if r.Tool != ShellTool || r.Pattern == "" || hasMeta(r.Pattern, "*?[") {
			continue
		}
		if ok, _ := matchAllow(strings.Fields(r.Pattern), c.words, nil); ok {
			return true
		}
	}
	return false
}

// hasMeta reports an unescaped glob character of meta in a pattern.
func hasMeta(pattern, meta string) bool {
	for i := 0; i < len(pattern); i++ {
		switch {
		case pattern[i] == '\\':
			i++
		case strings.IndexByte(meta, pattern[i]) >= 0:
			return true
		}
	}
	return false
}

type allowance struct {
	ok  bool
	by  string // the rules that allowed it
	why string // why it was not allowed, when rules were consulted
}

func (s *subject) allowed(allow, session []Rule) allowance {
	var rules []Rule
	for _, list := range [][]Rule{allow, session} {
		for _, r := range list {
			if !s.p.allowApplies(r.Tool, s.call.Name, s.access) {
				continue
			}
			if r.Pattern == "" {
				return allowance{ok: true, by: r.String()}
			}
			rules = append(rules, r)
		}
	}
	if s.network {
		for _, r := range rules {
			if s.host != "" && matchDomain(r.Pattern, s.host) {
				return allowance{ok: true, by: r.String()}
			}
		}
		return allowance{}
	}
	if s.call.Name != ShellTool {
		for _, r := range rules {
			if allPaths(r.Pattern, s.paths) {
				return allowance{ok: true, by: r.String()}
			}
		}
		return allowance{}
	}
	if !s.hasCmd {
		return allowance{why: "its arguments have no command"}
	}
	prog := s.program()
	switch {
	case prog.err != nil:
		return allowance{why: fmt.Sprintf("could not parse the command (%v); asking", prog.err)}
	case len(prog.opaque) > 0:
		if len(rules) == 0 {
			return allowance{}
		}
		return allowance{why: prog.opaque[0] + ", which an allow rule never covers"}
	case len(rules) == 0:
		return allowance{}
	case len(prog.cmds) == 0:
		return allowance{why: "it runs no command a rule could cover"}
	}
	if away := s.movesAway(); away != "" {
		return allowance{why: away + ", where an allow rule cannot judge its paths"}
	}
	if why := s.readRedirects(); why != "" {
		return allowance{why: why + ", which an allow rule never covers"}
	}
	var by, uncovered, blocked []string
	for _, c := range prog.cmds {
		found := false
		a := s.assessed(c)
		guard := a.guard
		for _, r := range rules {
			ok, stop := matchAllow(strings.Fields(r.Pattern), c.words, guard)
			if ok && a.stop != "" && hasMeta(r.Pattern, "*?[") {
				ok, stop = false, a.stop
			}
			if ok {
				by = appendNew(by, r.String())
				found = true
				break
			}
			if stop != "" {
				blocked = appendNew(blocked, fmt.Sprintf("the * of %s does not cover %s", r, stop))
			}
		}
		if !found {
			uncovered = appendNew(uncovered, c.name())
		}
	}
	if len(uncovered) == 0 {
		return allowance{ok: true, by: strings.Join(by, ", ")}
	}
	if len(blocked) > 0 {
		return allowance{why: blocked[0]}
	}
	if len(uncovered) == 1 {
		return allowance{why: uncovered[0] + " is not covered by an allow rule"}
	}
	return allowance{why: joinAnd(uncovered) + " are not covered by allow rules"}
}

func allPaths(pattern string, paths []string) bool {
	for _, p := range paths {
		if !matchPath(pattern, p, false) {
			return false
		}
	}
	return len(paths) > 0
}

func joinAnd(list []string) string {
	if len(list) > 4 {
		list = append(list[:3:3], fmt.Sprintf("%d more", len(list)-3))
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// describe says in words what a call wants to do.
func (s *subject) describe(kind tools.Kind) string {
	name := s.call.Name
	if s.server != "" {
		what := fmt.Sprintf("the MCP server %s's tool %s", s.server, name)
		if kind == tools.KindRead {
			what += " (read-only, the server says)"
		}
		if args := strings.TrimSpace(s.call.Arguments); args != "" && args != "{}" {
			return fmt.Sprintf("%s wants to run with %s", what, chat.OneLine(args, maxQuoted))
		}
		return what + " wants to run"
	}
	switch {
	case name == ShellTool && s.hasCmd:
		return fmt.Sprintf("%s wants to run: %s", name, chat.OneLine(s.command, maxQuoted))
	case s.network && s.host != "":
		return fmt.Sprintf("%s wants to reach %s", name, s.host)
	case kind == tools.KindEdit:
		if s.sent != "" {
			return fmt.Sprintf("%s wants to change %s", name, s.sent)
		}
		return name + " wants to change files"
	case kind == tools.KindRead:
		if s.sent != "" {
			return fmt.Sprintf("%s wants to read %s", name, s.sent)
		}
		return name + " wants to read files"
	}
	if args := strings.TrimSpace(s.call.Arguments); args != "" && args != "{}" {
		return fmt.Sprintf("%s wants to run with %s", name, chat.OneLine(args, maxQuoted))
	}
	return name + " wants to run"
}
