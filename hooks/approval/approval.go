// Package approval is tackle's approval policy: a built-in pre_tool_call
// hook that decides, for each tool call, whether it runs (Continue), waits
// for the user (Pause) or is skipped with a reason the model reads (Skip).
//
// # Order of evaluation
//
// For each call, the first of these that applies decides:
//
//  1. a deny rule matches → Skip, in every mode (yolo too), naming the rule;
//  2. plan mode and the tool is not a reader → Skip ("plan mode is read-only");
//  3. bash deny rules exist and the program cannot be checked against them
//     soundly (it does not parse, builds a command at run time, pipes into
//     sh, …) → Pause;
//  4. allow rules and session rules ("approve always") together cover the
//     call → Continue; for bash, every simple command must be covered;
//  5. yolo mode → Continue;
//  6. the tool only reads → Continue;
//  7. accept-edits mode and the tool edits files → Continue;
//  8. otherwise → Pause, with a reason saying what the call wants to do.
//
// Rule syntax and matching are described on Rule. How bash programs are
// read is in shell.go and wrappers.go; in short:
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
//     arithmetic on variables, alias/hash/enable, find -delete, and a
//     wrapper whose command cannot be told.
//   - A word known only at run time ($VAR, "$X", globs, {a,b}, ~) is
//     matched only by a pattern's final `*`.
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
// another name. A deny rule on a file tool applies to that tool only:
// `edit_file(.git/**)` does not stop `write_file` or a bash redirect.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/tackle-dev/tackle/agent/chat"
	"github.com/tackle-dev/tackle/hooks"
)

// HookName is the name the policy's hook has in the decision trace.
const HookName = "approval"

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

// Kind classifies a tool by what it can do.
type Kind uint8

// Tool kinds. An unknown tool is treated as Exec, the most guarded kind.
const (
	Exec Kind = iota // runs commands
	Read             // only reads
	Edit             // changes files in the workspace
)

func (k Kind) String() string {
	switch k {
	case Read:
		return "read"
	case Edit:
		return "edit"
	}
	return "exec"
}

// KindOf classifies tackle's built-in tools by name; any other name is
// Exec.
func KindOf(name string) Kind {
	switch name {
	case "read_file", "list_dir", "glob", "grep":
		return Read
	case "write_file", "edit_file":
		return Edit
	}
	return Exec
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
			p.root = filepath.Clean(root)
		}
	}
}

// WithPaths gives a function that returns the workspace-relative paths a
// call names with symbolic links resolved (tools.Registry.Inspect gives
// them as CallInfo.Paths). Path rules are then matched against both the
// path as sent and these: a deny rule matches if either matches, an allow
// rule only if all do. Without it only the path as sent is used.
func WithPaths(resolve func(chat.ToolCall) []string) Option {
	return func(p *Policy) { p.resolve = resolve }
}

// Policy decides which tool calls run, ask or are skipped. It is safe for
// concurrent use.
type Policy struct {
	kindOf  func(name string) Kind
	root    string
	resolve func(chat.ToolCall) []string

	mu      sync.Mutex
	mode    Mode
	allow   []Rule
	deny    []Rule
	session []Rule // approve-always rules, in the order they were added

	// perms are the allow and deny rules with their sources, when set by
	// WithPermissions (permissions.go).
	perms []Permission
}

// New returns a policy in mode; kindOf classifies tools by name (nil means
// KindOf).
func New(mode Mode, kindOf func(name string) Kind, opts ...Option) *Policy {
	if kindOf == nil {
		kindOf = KindOf
	}
	p := &Policy{mode: mode, kindOf: kindOf}
	for _, o := range opts {
		o(p)
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
		Priority: 100,
		Run: func(_ context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
			return p.Decide(in.Call), nil
		},
	}
}

// Remember adds session rules for calls like call: the user approved it
// "always". See AlwaysRules for what is added.
func (p *Policy) Remember(call chat.ToolCall) {
	add := p.AlwaysRules(call)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range add {
		if !slices.Contains(p.session, r) {
			p.session = append(p.session, r)
		}
	}
}

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

// AlwaysRules returns the session rules that approving call "always" adds,
// scoped as narrowly as the call: for any tool but bash, the tool; for
// bash, one rule per simple command of the program, of its name and, when
// the second word is a plain subcommand (lower-case letters, digits and
// dashes, like "test" or "status"; not a flag or a path), that
// subcommand: `git status` gives bash(git status *), `go test ./...` gives
// bash(go test *), `ls -la` gives bash(ls *). It never gives bash(*).
//
// A command that a rule could never allow — inside a substitution or
// subshell, behind a wrapper, with a write redirect or assignments in
// front, a wrapper or interpreter itself (sudo, sh -c, eval …) — gets no
// rule: such a program is approved once only. A program that does not
// parse gives no rule.
func (p *Policy) AlwaysRules(call chat.ToolCall) []Rule {
	if call.Name != ShellTool {
		return []Rule{{Tool: call.Name}}
	}
	cmd, ok := argString(call, "command")
	if !ok {
		return nil
	}
	prog := analyzeShell(cmd)
	if prog.err != nil {
		return nil
	}
	var out []Rule
	for _, c := range prog.cmds {
		if !c.plain {
			continue
		}
		args := c.args()
		name := args[0].text
		if !ruleWord(name) {
			continue
		}
		pattern := name
		if len(args) > 1 && args[1].static && isSubcommand(args[1].text) {
			pattern += " " + args[1].text
		}
		r := Rule{Tool: ShellTool, Pattern: pattern + " *"}
		// The rule must read back as itself, a name and then more.
		if back, err := ParseRule(r.String()); err != nil || back != r || len(strings.Fields(r.Pattern)) < 2 {
			continue
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
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

func isSubcommand(s string) bool {
	if s == "" || len(s) > 40 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Decide returns the policy's decision for one call.
func (p *Policy) Decide(call chat.ToolCall) hooks.PreToolResult {
	kind := p.kindOf(call.Name)
	p.mu.Lock()
	mode, allow, deny, session := p.mode, p.allow, p.deny, p.session
	p.mu.Unlock()

	s := p.subject(call)

	// 1. Deny rules, in every mode.
	d := s.denied(deny)
	if d.rule != nil {
		return skipResult(fmt.Sprintf("denied by the rule %s: %s", d.rule, d.what))
	}
	// 2. Plan mode reads only.
	if mode == Plan && kind != Read {
		return skipResult(fmt.Sprintf("plan mode is read-only: %s was not run (%s). Describe the change in your plan instead.",
			call.Name, s.describe(kind)))
	}
	// 3. A program deny rules cannot see through.
	if d.unsure != "" {
		return pauseResult(fmt.Sprintf("%s — %s; asking", s.describe(kind), d.unsure))
	}
	// 4. Allow rules and session rules.
	a := s.allowed(allow, session)
	if a.ok {
		return hooks.PreToolResult{Reason: "allowed by " + a.by}
	}
	// 5–7. Modes.
	switch {
	case mode == Yolo:
		return hooks.PreToolResult{Reason: "yolo mode"}
	case kind == Read:
		return hooks.PreToolResult{}
	case kind == Edit && mode == AcceptEdits:
		return hooks.PreToolResult{Reason: "accept-edits mode"}
	}
	// 8. Ask.
	reason := s.describe(kind)
	if a.why != "" {
		reason += " — " + a.why
	}
	return pauseResult(reason)
}

func skipResult(reason string) hooks.PreToolResult {
	return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: reason}
}

func pauseResult(reason string) hooks.PreToolResult {
	return hooks.PreToolResult{Action: hooks.ToolPause, Reason: reason}
}

// subject is one call as rules see it.
type subject struct {
	call    chat.ToolCall
	command string // bash: the program
	hasCmd  bool
	prog    *program // bash: parsed on first use
	paths   []string // other tools: the paths the call names
}

func (p *Policy) subject(call chat.ToolCall) *subject {
	s := &subject{call: call}
	if call.Name == ShellTool {
		s.command, s.hasCmd = argString(call, "command")
		return s
	}
	raw, ok := argString(call, "path")
	if !ok || raw == "" {
		raw = "." // list_dir, glob and grep default to the workspace root
	}
	s.paths = append(s.paths, p.relPath(raw))
	if p.resolve != nil {
		for _, r := range p.resolve(call) {
			if r = p.relPath(r); !slices.Contains(s.paths, r) {
				s.paths = append(s.paths, r)
			}
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

type denial struct {
	rule   *Rule
	what   string // what matched, for the reason
	unsure string // why deny rules cannot be checked, if so
}

func (s *subject) denied(deny []Rule) denial {
	var patterns []Rule
	for i := range deny {
		r := &deny[i]
		if r.Tool != s.call.Name {
			continue
		}
		if r.Pattern == "" {
			return denial{rule: r, what: "every " + r.Tool + " call is denied"}
		}
		patterns = append(patterns, *r)
	}
	if len(patterns) == 0 {
		return denial{}
	}
	if s.call.Name != ShellTool {
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
		return denial{} // the tool refuses the call
	}
	prog := s.program()
	if prog.err != nil {
		return denial{unsure: fmt.Sprintf("could not parse the command (%v)", prog.err)}
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
					return denial{rule: &patterns[i], what: oneLine(c.String())}
				case maybeMatch:
					if unsure == "" {
						unsure = fmt.Sprintf("cannot tell whether %s is denied by %s", oneLine(c.String()), r)
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

type allowance struct {
	ok  bool
	by  string // the rules that allowed it
	why string // why it was not allowed, when rules were consulted
}

func (s *subject) allowed(allow, session []Rule) allowance {
	var rules []Rule
	for _, list := range [][]Rule{allow, session} {
		for _, r := range list {
			if r.Tool != s.call.Name {
				continue
			}
			if r.Pattern == "" {
				return allowance{ok: true, by: r.String()}
			}
			rules = append(rules, r)
		}
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
	var by, uncovered []string
	for _, c := range prog.cmds {
		found := false
		for _, r := range rules {
			if matchAllow(strings.Fields(r.Pattern), c.words) {
				by = appendNew(by, r.String())
				found = true
				break
			}
		}
		if !found {
			uncovered = appendNew(uncovered, c.name())
		}
	}
	if len(uncovered) == 0 {
		return allowance{ok: true, by: strings.Join(by, ", ")}
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
func (s *subject) describe(kind Kind) string {
	name := s.call.Name
	switch {
	case name == ShellTool && s.hasCmd:
		return fmt.Sprintf("%s wants to run: %s", name, oneLine(s.command))
	case kind == Edit:
		if p, ok := argString(s.call, "path"); ok && p != "" {
			return fmt.Sprintf("%s wants to change %s", name, p)
		}
		return name + " wants to change files"
	case kind == Read:
		if p, ok := argString(s.call, "path"); ok && p != "" {
			return fmt.Sprintf("%s wants to read %s", name, p)
		}
		return name + " wants to read files"
	}
	if args := strings.TrimSpace(s.call.Arguments); args != "" && args != "{}" {
		return fmt.Sprintf("%s wants to run with %s", name, oneLine(args))
	}
	return name + " wants to run"
}

// argString returns a string argument of a call. Arguments are decoded as
// the tools decode them: a JSON object, exact key, the last duplicate wins.
func argString(call chat.ToolCall, key string) (string, bool) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return "", false
	}
	raw, ok := args[key]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// oneLine shortens a command for a one-line reason; the approval UI shows
// the full command separately.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
