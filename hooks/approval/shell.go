package approval

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file reads a bash program the way bash will run it, to find every
// simple command in it. Nothing here matches rules; rule.go does that.
//
// The analysis is conservative in two separate directions:
//
//   - opaque: something no allow rule can vouch for (a substitution, a
//     subshell, a write redirect, a wrapper whose command cannot be told,
//     a program fed to sh on stdin, a command name known only at run
//     time…). Such a program is never auto-allowed by a rule.
//   - unsure: something that may run a command a deny rule cannot see (a
//     program built at run time for sh -c or eval, a pipe into sh,
//     arithmetic on variables, alias…). Where bash deny rules exist, such a
//     program is never let through without asking.

// maxDepth bounds how deeply programs given to sh -c, eval and the like
// are followed.
const maxDepth = 8

// maxCommands bounds the work on one program: past it, the program is
// too large to check.
const maxCommands = 4000

// word is one word of a simple command as bash will pass it on.
type word struct {
	text   string // the value, when static
	src    string // as written, for messages
	static bool   // known before the program runs, as exactly this one word
	split  bool   // not static, and may become no word or several
	subst  bool   // contains a command or process substitution
	// For a word that is not static: tmpl is its value with the parts
	// known only at run time left as written ("rm -rf $DIR" for
	// "rm -rf $DIR"), prefix the value's known start ("rm -rf ").
	tmpl, prefix string
	// toks is the word as bash expands it (expand.go); nil when the
	// word was not read from the program.
	toks []tok
}

func lit(s string) word { return word{text: s, src: s, static: true} }

// command is one simple command the program runs.
type command struct {
	words   []word
	assigns int  // how many leading words are NAME=value assignments
	plain   bool // a candidate for an "approve always" rule
	// guard holds, per word (or nil), why a rule's final `*` must not
	// cover the word, where the parser knows it (declare PATH=x).
	guard []string
}

// guardWord records why a rule's final `*` must not cover word i.
func (c *command) guardWord(i int, why string) {
	if c.guard == nil {
		c.guard = make([]string, len(c.words))
	}
	if c.guard[i] == "" {
		c.guard[i] = why
	}
}

// args returns the command name and its arguments, without assignments.
func (c *command) args() []word { return c.words[c.assigns:] }

func (c *command) String() string {
	src := make([]string, len(c.words))
	for i, w := range c.words {
		src[i] = w.src
	}
	return strings.Join(src, " ")
}

// name returns the command's name as written, for messages.
func (c *command) name() string {
	if args := c.args(); len(args) > 0 {
		return args[0].src
	}
	return c.String()
}

// program is what the analysis found.
type program struct {
	err     error      // the program could not be parsed
	cmds    []*command // every simple command it runs, in order
	guesses []*command // commands a wrapper might run, for deny rules only
	opaque  []string   // why no allow rule can cover the program
	unsure  []string   // why deny rules cannot be checked soundly
	// opaqueOther: opaque has a reason other than a substitution or a
	// subshell (analyzer.nesting).
	opaqueOther bool
	redirs      []redirTarget
	vars        varTable // the values it gives its variables (vartable.go)
	// globOpts: it may change how bash globs (shopt, GLOBIGNORE), so a
	// glob may match names starting with a dot.
	globOpts bool
}

// redirTarget is a file a redirect writes or reads.
type redirTarget struct {
	w     word
	write bool
}

// analyzeShell parses src as bash and finds what it runs.
func analyzeShell(src string) (prog *program) {
	prog = &program{}
	defer func() {
		// The parser and this analysis are not supposed to panic; if they
		// do, the command is treated as unparseable.
		if r := recover(); r != nil {
			prog = &program{err: fmt.Errorf("internal error: %v", r)}
		}
	}()
	f, err := parseShell(src)
	if err != nil {
		prog.err = err
		return prog
	}
	a := &analyzer{prog: prog}
	a.stmts(f.Stmts, ctx{src: src})
	return prog
}

func parseShell(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

type analyzer struct {
	prog *program
	n    int // commands looked at, up to maxCommands
}

// budget counts one more command, and reports false once there were too
// many to check.
func (a *analyzer) budget() bool {
	a.n++
	if a.n > maxCommands {
		a.both("the program is too large to check")
		return false
	}
	return true
}

func (a *analyzer) opaque(why string) {
	a.prog.opaque = appendNew(a.prog.opaque, why)
	a.prog.opaqueOther = true
}

// nesting records a construct that runs commands of its own (a
// substitution, a subshell): no allow rule covers it, but it is no more
// than the commands in it, which are checked as well (readOnly).
func (a *analyzer) nesting(why string) {
	a.prog.opaque = appendNew(a.prog.opaque, why)
}
func (a *analyzer) unsure(why string) { a.prog.unsure = appendNew(a.prog.unsure, why) }

// both records something neither an allow rule nor a deny rule can see
// through.
func (a *analyzer) both(why string) {
	a.opaque(why)
	a.unsure(why)
}

// appendNew appends s unless list has it. Only the first few reasons are
// ever shown, so a long list stops growing.
func appendNew(list []string, s string) []string {
	if len(list) >= 8 {
		return list
	}
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}

// stdinKind says where a command's standard input comes from.
type stdinKind uint8

const (
	stdinClosed stdinKind = iota // as the bash tool runs it: closed
	stdinPipe                    // a pipe, or anything not known
	stdinFile                    // a file or another descriptor
	stdinDoc                     // a here-document or here-string: ctx.doc
)

// ctx is what the analysis knows about the place it is looking at.
type ctx struct {
	src       string // the program text being read
	depth     int    // how many programs deep (sh -c in sh -c …)
	nested    bool   // inside a substitution, subshell, wrapper or nested program
	guess     bool   // a wrapper's command was guessed: for deny rules only
	scanning  bool   // guessing already: do not guess again
	writes    bool   // output goes to a file
	stdin     stdinKind
	doc       word // the here-document, when stdin is stdinDoc
	inputHere bool // this statement redirects its own input
	// cond: this place may not run, or runs in a subshell (a branch, a
	// loop, a pipe, a function body): an assignment here does not always
	// hold after it.
	cond bool
}

// text returns the source of a node.
func (c ctx) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src) || start > end {
		return "…"
	}
	return c.src[start:end]
}

func (a *analyzer) stmts(list []*syntax.Stmt, c ctx) {
	for _, s := range list {
		a.stmt(s, c)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt, c ctx) {
	c.inputHere = false
	if s.Background || s.Coprocess {
		c.cond = true // it runs in a subshell
	}
	for _, r := range s.Redirs {
		a.redirect(r, &c)
	}
	if s.Coprocess || s.Disown {
		a.both("a coprocess")
	}
	a.command(s.Cmd, c)
}

// harmlessSinks are the files a redirect may write without making a
// program opaque.
var harmlessSinks = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func (a *analyzer) redirect(r *syntax.Redirect, c *ctx) {
	fd := ""
	if r.N != nil {
		fd = r.N.Value
	}
	onStdin := fd == "" || fd == "0"
	// Any input redirect, on any descriptor, may carry a program that a
	// shell later reads (exec 3<<<'…'; sh <&3): exec notes it.
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrIn, syntax.DplIn, syntax.RdrInOut:
		c.inputHere = true
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		a.word(r.Word, *c, false) // the delimiter
		doc := a.hereDoc(r, *c)
		if onStdin {
			c.stdin, c.doc = stdinDoc, doc
		}
		return
	}
	target := a.word(r.Word, *c, false)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		if !target.static || !harmlessSinks[target.text] {
			a.opaque(fmt.Sprintf("it writes to %s (%s)", target.src, c.text(r)))
			c.writes = true
			a.prog.redirs = append(a.prog.redirs, redirTarget{w: target, write: true})
		}
		if r.Op == syntax.RdrInOut && onStdin {
			c.stdin = stdinFile
		}
	case syntax.DplOut:
		// >&2 duplicates a descriptor; >&file writes a file.
		if !target.static || !(isFD(target.text) || harmlessSinks[target.text]) {
			a.opaque(fmt.Sprintf("it writes to %s (%s)", target.src, c.text(r)))
			c.writes = true
			a.prog.redirs = append(a.prog.redirs, redirTarget{w: target, write: true})
		}
	case syntax.RdrIn:
		a.prog.redirs = append(a.prog.redirs, redirTarget{w: target})
		if onStdin {
			c.stdin = stdinFile
			if !target.static || specialFile(target.text) {
				c.stdin = stdinPipe // < <(…), < /dev/fd/3: not a plain file
			}
		}
	case syntax.DplIn:
		if onStdin {
			c.stdin = stdinPipe // <&3: whatever descriptor 3 holds
		}
	case syntax.WordHdoc:
		if onStdin {
			doc := word{src: target.src, static: target.static, split: !target.static}
			if target.static {
				doc.text = target.text + "\n"
			} else {
				doc.tmpl = target.tmpl + "\n"
			}
			c.stdin, c.doc = stdinDoc, doc
		}
	default:
		a.both(fmt.Sprintf("a redirection bash may not read as this parser does (%s)", c.text(r)))
	}
}

// specialFile reports a path that is no plain file: a descriptor, a
// device, a process's file. A program read from one cannot be checked.
func specialFile(p string) bool {
	return p == "-" || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/")
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-") // >&3- moves a descriptor
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// hereDoc returns the body of a here-document as the command will read it.
func (a *analyzer) hereDoc(r *syntax.Redirect, c ctx) word {
	if r.Hdoc == nil {
		return lit("")
	}
	a.scan(r.Hdoc, c)
	quoted := false
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			quoted = quoted || strings.Contains(p.Value, `\`)
		}
	}
	var b strings.Builder
	static := true
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		switch {
		case !ok:
			static = false
			b.WriteString(c.text(p))
		case quoted:
			b.WriteString(l.Value)
		default:
			b.WriteString(unescape(l.Value, "$`\\\n"))
		}
	}
	if !static {
		return word{src: "a here-document", split: true, tmpl: b.String()}
	}
	return word{text: b.String(), src: "a here-document", static: true}
}

func (a *analyzer) command(cmd syntax.Command, c ctx) {
	switch x := cmd.(type) {
	case nil:
		// A statement of redirections only.
	case *syntax.CallExpr:
		words := make([]word, 0, len(x.Assigns)+len(x.Args))
		for _, as := range x.Assigns {
			w, val := a.assign(as, c)
			words = append(words, w)
			if len(x.Args) == 0 {
				a.noteAssign(as, val, c) // a variable of the shell, not the command's
			}
		}
		for _, w := range x.Args {
			words = append(words, a.word(w, c, false))
		}
		a.simple(words, len(x.Assigns), c)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.AndStmt, syntax.OrStmt:
			a.stmt(x.X, c)
			c.cond = true
			a.stmt(x.Y, c)
		case syntax.Pipe, syntax.PipeAll:
			c.cond = true // each side runs in a subshell
			a.stmt(x.X, c)
			c.stdin = stdinPipe
			a.stmt(x.Y, c)
		default:
			a.both(fmt.Sprintf("an operator this check does not know (%s)", x.Op))
		}
	case *syntax.Block:
		a.stmts(x.Stmts, c)
	case *syntax.Subshell:
		a.nesting("a subshell ( … )")
		c.nested, c.cond = true, true
		a.stmts(x.Stmts, c)
	case *syntax.IfClause:
		c.cond = true
		for cl := x; cl != nil; cl = cl.Else {
			a.stmts(cl.Cond, c)
			a.stmts(cl.Then, c)
		}
	case *syntax.WhileClause:
		c.cond = true
		a.stmts(x.Cond, c)
		a.stmts(x.Do, c)
	case *syntax.ForClause:
		c.cond = true
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			lv := loopVar{name: l.Name.Value, start: int(x.DoPos.Offset()), end: int(x.DonePos.Offset())}
			for _, w := range l.Items {
				lv.items = append(lv.items, a.word(w, c, false).toks)
			}
			if c.depth > 0 || x.Select || !l.InPos.IsValid() {
				a.prog.vars.markUnknown(lv.name) // select, or for x; do (the arguments)
			} else {
				a.prog.vars.loops = append(a.prog.vars.loops, lv)
			}
		case *syntax.CStyleLoop:
			a.arith(l.Init, c)
			a.arith(l.Cond, c)
			a.arith(l.Post, c)
		default:
			a.both("a loop this check does not know")
		}
		a.stmts(x.Do, c)
	case *syntax.CaseClause:
		c.cond = true
		a.word(x.Word, c, false)
		for _, item := range x.Items {
			for _, p := range item.Patterns {
				a.word(p, c, false)
			}
			a.stmts(item.Stmts, c)
		}
	case *syntax.FuncDecl:
		// The body runs whenever the function is called: check it as if
		// it ran here.
		if x.Body != nil {
			if c.depth == 0 {
				a.prog.vars.funcs = append(a.prog.vars.funcs, [2]int{int(x.Body.Pos().Offset()), int(x.Body.End().Offset())})
			}
			c.cond = true
			a.stmt(x.Body, c)
		}
	case *syntax.ArithmCmd:
		a.arith(x.X, c)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			a.arith(e, c)
		}
	case *syntax.TestClause:
		a.test(x.X, c)
	case *syntax.DeclClause:
		a.decl(x, c)
	case *syntax.TimeClause:
		// The time keyword is a wrapper: a rule must name it, and the
		// command it times is checked on its own.
		words := []word{lit("time")}
		if x.PosixFormat {
			words = append(words, lit("-p"))
		}
		a.record(&command{words: words}, c)
		if x.Stmt != nil {
			c.nested = true
			a.stmt(x.Stmt, c)
		}
	case *syntax.CoprocClause:
		a.both("a coprocess")
		c.nested, c.cond = true, true
		a.stmt(x.Stmt, c)
	default:
		a.both(fmt.Sprintf("a construct this check does not know (%T)", cmd))
	}
}

// test checks a [[ … ]] expression. It runs no command, but its arithmetic
// comparisons evaluate their operands.
func (a *analyzer) test(e syntax.TestExpr, c ctx) {
	switch x := e.(type) {
	case *syntax.Word:
		a.word(x, c, false)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !isNumberExpr(x.X) || !isNumberExpr(x.Y) {
				a.both("arithmetic on variables, which can run commands hidden in their values")
			}
		}
		a.test(x.X, c)
		a.test(x.Y, c)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if w, ok := x.X.(*syntax.Word); !ok || strings.ContainsAny(c.text(w), "[$`") {
				a.both("a [[ -v ]] test on an array element, which can run commands")
			}
		}
		a.test(x.X, c)
	case *syntax.ParenTest:
		a.test(x.X, c)
	default:
		a.both(fmt.Sprintf("a test this check does not know (%T)", e))
	}
}

func isNumberExpr(e syntax.TestExpr) bool {
	w, ok := e.(*syntax.Word)
	return ok && isNumber(w.Lit())
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// arith checks an arithmetic expression. Arithmetic on literal numbers is
// harmless; arithmetic on variables evaluates their values, and a value
// such as a[$(cmd)] runs cmd.
func (a *analyzer) arith(x syntax.ArithmExpr, c ctx) {
	if x == nil {
		return
	}
	safe := true
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if !isNumber(w.Lit()) {
				safe = false
				if name := w.Lit(); name != "" {
					a.prog.vars.markUnknown(name) // ((x=…)), ((x++))
				}
				a.scan(w, c)
			}
			return false
		}
		return true
	})
	if !safe {
		a.both("arithmetic on variables, which can run commands hidden in their values")
	}
}

// decl handles declare, local, export, readonly, typeset and nameref as
// simple commands named by the keyword.
func (a *analyzer) decl(d *syntax.DeclClause, c ctx) {
	words := []word{lit(d.Variant.Value)}
	guards := map[int]string{}
	plainDecl := !slices.ContainsFunc(d.Args, func(as *syntax.Assign) bool { return as.Naked && as.Name == nil })
	for _, as := range d.Args {
		if as.Name != nil {
			if why := assignRisk(as.Name.Value, as.Index != nil); why != "" {
				guards[len(words)] = why
			}
		}
		switch {
		case as.Naked && as.Name != nil:
			a.prog.vars.markUnknown(as.Name.Value)
			words = append(words, lit(as.Name.Value))
		case as.Naked:
			w := a.word(as.Value, c, false)
			if !w.static || (strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+")) && strings.ContainsAny(w.text[1:], "in") {
				// declare -i makes later assignments arithmetic; -n makes
				// a name a reference that may hold an array subscript.
				a.both(fmt.Sprintf("%s %s, which can make later assignments run commands", d.Variant.Value, w.src))
			}
			if w.static && !strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "+") {
				// A quoted assignment ("PATH=/tmp") or name: bash reads
				// the word as one all the same.
				name, _, _ := strings.Cut(w.text, "=")
				name = strings.TrimSuffix(name, "+")
				base, _, sub := strings.Cut(name, "[")
				if why := assignRisk(base, sub); why != "" {
					guards[len(words)] = why
				}
				a.prog.vars.markUnknown(base)
			}
			words = append(words, w)
		default:
			w, val := a.assign(as, c)
			if plainDecl {
				a.noteAssign(as, val, c)
			} else if as.Name != nil {
				a.prog.vars.markUnknown(as.Name.Value) // declare -n, -i, -a …
			}
			words = append(words, w)
		}
	}
	cmd := a.simple(words, 0, c)
	for i, why := range guards {
		if cmd != nil {
			cmd.guardWord(i, why)
		}
	}
}

// dangerousVars are variables bash evaluates as code or loads code from.
var dangerousVars = map[string]bool{
	"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true,
	"PROMPT_COMMAND": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
}

func dangerousVar(name string) bool {
	return dangerousVars[name] || strings.HasPrefix(name, "BASH_FUNC_")
}

// assign returns an assignment as one word, NAME=value, and its value.
func (a *analyzer) assign(as *syntax.Assign, c ctx) (word, word) {
	name := ""
	if as.Name != nil {
		name = as.Name.Value
	}
	if dangerousVar(name) {
		a.both(fmt.Sprintf("it sets %s, which bash can run as code", name))
	}
	static := true
	if as.Index != nil {
		a.arith(as.Index, c)
		static = false
	}
	op := "="
	if as.Append {
		op = "+="
	}
	var val word
	switch {
	case as.Array != nil:
		val = lit("")
		var parts []string
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				a.arith(el.Index, c)
				static = false
			}
			if el.Value != nil {
				w := a.word(el.Value, c, false)
				static = static && w.static
				val.subst = val.subst || w.subst
				parts = append(parts, w.text)
			}
		}
		val.text = "(" + strings.Join(parts, " ") + ")"
	case as.Value != nil:
		val = a.word(as.Value, c, true)
	default:
		val = lit("")
	}
	w := word{text: name + op + val.text, src: c.text(as), static: static && val.static, subst: val.subst}
	if !w.static {
		w.text = ""
	}
	return w, val
}

// noteAssign records an assignment to a variable of the shell for the
// variable analysis (vartable.go).
func (a *analyzer) noteAssign(as *syntax.Assign, val word, c ctx) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	if name == "GLOBIGNORE" {
		a.prog.globOpts = true
	}
	tildeAfterColon := false
	for i := 1; i < len(val.toks); i++ {
		tildeAfterColon = tildeAfterColon || val.toks[i].is('~') && val.toks[i-1].is(':')
	}
	if c.depth > 0 || as.Append || as.Index != nil || as.Array != nil || val.toks == nil || tildeAfterColon {
		a.prog.vars.markUnknown(name)
		return
	}
	a.prog.vars.assign(name, val.toks, int(as.Pos().Offset()), !c.cond)
}

// scan finds the substitutions and expansions inside a node: the commands
// they run are checked like any other.
func (a *analyzer) scan(n syntax.Node, c ctx) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if n.Backquotes {
				a.nesting("a command substitution `…`")
			} else {
				a.nesting("a command substitution $(…)")
			}
			nc := c
			nc.nested = true
			a.stmts(n.Stmts, nc)
			return false
		case *syntax.ProcSubst:
			a.nesting("a process substitution <(…)")
			nc := c
			nc.nested = true
			a.stmts(n.Stmts, nc)
			return false
		case *syntax.ArithmExp:
			a.arith(n.X, c)
			return false
		case *syntax.ParamExp:
			a.param(n, c)
			return false
		}
		return true
	})
}

func (a *analyzer) param(p *syntax.ParamExp, c ctx) {
	if p.Excl && p.Names == 0 {
		a.both("an indirect expansion ${!…}, which can run commands hidden in a variable's value")
	}
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); !ok || (w.Lit() != "@" && w.Lit() != "*") {
			a.arith(p.Index, c)
		}
	}
	if p.Slice != nil {
		a.arith(p.Slice.Offset, c)
		a.arith(p.Slice.Length, c)
	}
	if p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil {
		a.prog.vars.markUnknown(p.Param.Value) // ${x:=value}
	}
	if p.Exp != nil {
		if p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
			a.both("a prompt expansion ${…@P}, which can run commands")
		}
		if p.Exp.Word != nil {
			a.scan(p.Exp.Word, c)
		}
	}
	if p.Repl != nil {
		if p.Repl.Orig != nil {
			a.scan(p.Repl.Orig, c)
		}
		if p.Repl.With != nil {
			a.scan(p.Repl.With, c)
		}
	}
	if p.NestedParam != nil {
		a.scan(p.NestedParam, c)
	}
}

// word works out a word's value. assignValue is true for the value of an
// assignment, which bash neither splits nor globs.
func (a *analyzer) word(w *syntax.Word, c ctx, assignValue bool) word {
	if w == nil || len(w.Parts) == 0 {
		return lit("")
	}
	a.scan(w, c)
	out := word{src: c.text(w), static: true}
	var val, mask, tmpl strings.Builder
	prefixDone := false
	dynamic := func(src string) {
		if !prefixDone {
			out.prefix, prefixDone = val.String(), true
		}
		tmpl.WriteString(src)
	}
	// part is a part known only at run time, for toks: a simple
	// parameter by name (only in the program itself, whose offsets the
	// variable analysis knows), anything else as written.
	part := func(n syntax.Node, inDQ bool) tok {
		if p, ok := n.(*syntax.ParamExp); ok && c.depth == 0 {
			if name, ok := simpleParam(p); ok {
				return tok{param: name, inDQ: inDQ, pos: int(p.Pos().Offset())}
			}
		}
		return tok{dyn: c.text(n), inDQ: inDQ}
	}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(x.Value); i++ {
				ch := x.Value[i]
				if ch == '\\' && i+1 < len(x.Value) {
					i++
					val.WriteByte(x.Value[i])
					tmpl.WriteByte(x.Value[i])
					mask.WriteByte('_')
					out.toks = append(out.toks, tok{ch: x.Value[i], quoted: true})
					continue
				}
				val.WriteByte(ch)
				tmpl.WriteByte(ch)
				mask.WriteByte(ch)
				out.toks = append(out.toks, tok{ch: ch})
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				out.static = false // $'…' escapes: not worth decoding here
				dynamic(c.text(x))
				out.toks = append(out.toks, tok{dyn: c.text(x)})
				continue
			}
			val.WriteString(x.Value)
			tmpl.WriteString(x.Value)
			mask.WriteString(strings.Repeat("_", len(x.Value)))
			out.toks = append(out.toks, charToks(x.Value, true)...)
		case *syntax.DblQuoted:
			toks := &out.toks
			if x.Dollar {
				out.static = false // $"…" is translated at run time
				dynamic("")
				out.toks = append(out.toks, tok{dyn: c.text(x), inDQ: true})
				toks = new([]tok) // its parts are not what it expands to
			}
			for _, q := range x.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					s := unescape(q.Value, "$`\"\\\n")
					val.WriteString(s)
					tmpl.WriteString(s)
					mask.WriteString(strings.Repeat("_", len(s)))
					*toks = append(*toks, charToks(s, true)...)
				case *syntax.ParamExp:
					out.static = false
					dynamic(c.text(q))
					if (q.Param != nil && q.Param.Value == "@") || q.Names == syntax.NamesPrefixWords || isAtIndex(q.Index) {
						out.split = true // "$@" is as many words as there are
					}
					*toks = append(*toks, part(q, true))
				default:
					out.static = false
					dynamic(c.text(q))
					*toks = append(*toks, part(q, true))
				}
			}
		default: // $x, $(…), $((…)), <(…), @(…)
			out.static = false
			out.split = true
			dynamic(c.text(x))
			out.toks = append(out.toks, part(x, false))
		}
	}
	m := mask.String()
	if assignValue {
		if strings.HasPrefix(m, "~") || strings.Contains(m, ":~") {
			out.static = false
		}
	} else if expands(m) {
		out.static, out.split = false, true
	}
	if !out.static {
		out.tmpl = tmpl.String()
		if !prefixDone {
			out.prefix = val.String() // a glob: all of it is known text
		}
	}
	if out.static {
		out.text = val.String()
		if subscriptTrap(out.text) {
			// Deny and allow rules alike: which builtin takes the string
			// as a name (printf -v, read, test -v, declare …) or as
			// arithmetic cannot always be told.
			a.both(fmt.Sprintf("the string %s, which bash would run if it is used as an array subscript", out.src))
		}
	}
	out.subst = hasSubst(w)
	return out
}

// simpleParam returns the name of $NAME or ${NAME}: a variable with no
// operator, index or length.
func simpleParam(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return "", false
	}
	name := p.Param.Value
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch == '_' || isLetter(ch) || i > 0 && isDigit(ch)) {
			return "", false
		}
	}
	return name, name != ""
}

func isAtIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && w.Lit() == "@"
}

// expands reports whether unquoted text undergoes tilde, brace or
// pathname expansion. mask is the word with its quoted and escaped
// characters replaced by "_".
func expands(mask string) bool {
	if strings.HasPrefix(mask, "~") || strings.ContainsAny(mask, "*?") {
		return true
	}
	if i := strings.IndexByte(mask, '['); i >= 0 && strings.IndexByte(mask[i+1:], ']') > 0 {
		return true
	}
	i, j := strings.IndexByte(mask, '{'), strings.LastIndexByte(mask, '}')
	return i >= 0 && j > i && (strings.Contains(mask[i:j], ",") || strings.Contains(mask[i:j], ".."))
}

// subscriptTrap reports a literal string holding a command substitution
// inside an array subscript, like 'a[$(rm -rf x)]': bash runs it when
// such a string reaches printf -v, read, unset, declare -n, test -v or
// arithmetic.
func subscriptTrap(s string) bool {
	i := strings.IndexByte(s, '[')
	return i >= 0 && (strings.Contains(s[i:], "$(") || strings.Contains(s[i:], "`"))
}

func hasSubst(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// unescape removes the backslash before the characters in special, as bash
// does inside double quotes and here-documents.
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(special, s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// record adds a command to the program: to the commands allow rules must
// cover, or, when it was guessed, to the ones only deny rules look at.
func (a *analyzer) record(cmd *command, c ctx) {
	if !a.budget() {
		return
	}
	if c.guess {
		a.prog.guesses = append(a.prog.guesses, cmd)
	} else {
		a.prog.cmds = append(a.prog.cmds, cmd)
	}
	a.prog.vars.noteCommand(cmd)
	if args := cmd.args(); len(args) > 0 && (!args[0].static || path.Base(args[0].text) == "shopt") {
		a.prog.globOpts = true
	}
}

// simple handles one simple command: its words, assignments first.
func (a *analyzer) simple(words []word, assigns int, c ctx) *command {
	if a.n >= maxCommands {
		a.both("the program is too large to check")
		return nil
	}
	cmd := &command{words: words, assigns: assigns}
	a.record(cmd, c)
	args := cmd.args()
	if len(args) == 0 {
		return cmd // assignments only
	}
	name := args[0]
	if !name.static {
		a.opaque(fmt.Sprintf("the command name %s is known only at run time", name.src))
		return cmd
	}
	base := path.Base(name.text)
	h, special := specials()[base]
	if !special {
		cmd.plain = !c.nested && !c.guess && !c.writes && assigns == 0
		for _, w := range words {
			cmd.plain = cmd.plain && !w.subst
		}
		return cmd
	}
	a.run(base, args, h(args[1:], c), c)
	return cmd
}

// script checks a program that a command runs from a string.
func (a *analyzer) script(text string, c ctx, what string, stdin stdinKind) {
	if c.depth >= maxDepth {
		a.both(fmt.Sprintf("programs nested too deeply to check (%s)", what))
		return
	}
	f, err := parseShell(text)
	if err != nil {
		a.both(fmt.Sprintf("could not parse the program %s runs", what))
		return
	}
	a.stmts(f.Stmts, ctx{
		src:    text,
		depth:  c.depth + 1,
		nested: true,
		guess:  c.guess,
		writes: c.writes,
		stdin:  stdin,
	})
}

// guessScript looks into a string that may be run as a program, for deny
// rules only: a string that is no program is no problem.
func (a *analyzer) guessScript(text string, c ctx) {
	if text == "" || c.depth >= maxDepth {
		return
	}
	f, err := parseShell(text)
	if err != nil {
		return
	}
	// The commands found feed deny rules only. What it makes opaque or
	// unsure counts: the callers are opaque already, and a string that
	// pipes into sh is a program.
	c.guess, c.scanning, c.src, c.depth = true, false, text, c.depth+1
	a.stmts(f.Stmts, c)
}

// run follows what a wrapper or interpreter runs.
func (a *analyzer) run(name string, args []word, u unwrap, c ctx) {
	nc := c
	nc.nested = true
	nc.inputHere = false
	for _, inner := range u.cmds {
		a.simple(inner, 0, nc)
	}
	for _, s := range u.scripts {
		if !s.static {
			// Part of the program is known only at run time, and may be
			// code: deny rules can still find what the known part runs.
			a.both(fmt.Sprintf("%s runs a program known only at run time (%s)", name, s.src))
			a.guessScript(s.tmpl, nc)
			continue
		}
		a.script(s.text, nc, name, c.stdin)
	}
	for _, s := range u.maybeScripts {
		a.guessScript(s, nc)
	}
	if u.stdin {
		switch {
		case c.stdin == stdinDoc && c.doc.static:
			a.opaque(fmt.Sprintf("%s reads a program from a here-document", name))
			a.script(c.doc.text, nc, name, stdinPipe)
		case c.stdin == stdinDoc || c.stdin == stdinPipe:
			a.both(fmt.Sprintf("%s reads a program from standard input", name))
			if c.stdin == stdinDoc {
				a.guessScript(c.doc.tmpl, nc)
			}
		default:
			a.opaque(fmt.Sprintf("%s reads a program from standard input", name))
		}
	}
	if u.scan {
		a.opaque(fmt.Sprintf("cannot tell which command %s runs", name))
		if !c.scanning {
			// The command is one of the suffixes of the arguments: let
			// deny rules see each of them.
			gc := nc
			gc.guess, gc.scanning = true, true
			for i := 1; i < len(args); i++ {
				a.simple(args[i:], 0, gc)
			}
		}
	}
	if u.opaque != "" {
		a.opaque(u.opaque)
	}
	if u.unsure != "" {
		a.both(u.unsure)
	}
}
