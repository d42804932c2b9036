package approval

import (
	"fmt"
	"slices"
	"strings"
)

// This file reads the little programs some commands take as an argument
// (sed scripts, awk programs) and the options the generic reader in
// risk.go cannot (tar's bundled modes, curl's @file data, git config).
// Where a script cannot be read, it is taken to run code: the safe side.

// scriptRisk is what a sed script or awk program does beyond printing.
type scriptRisk struct {
	effect effect
	what   string
	writes []string // files it writes
	reads  []string // files it reads besides its operands
	// unknownWrite: it writes a file named only at run time.
	unknownWrite bool
}

func (r *scriptRisk) raise(e effect, what string) {
	if e > r.effect {
		r.effect, r.what = e, what
	}
}

// sedCheck reads sed's scripts: the -e values, else the first operand.
func sedCheck(a *assessment, p *parsed) {
	var scripts []int
	for _, o := range p.opts {
		if o.name == "e" || strings.HasPrefix(o.name, "--e") && strings.HasPrefix("--expression", o.name) {
			scripts = append(scripts, o.valIdx)
		}
	}
	files := p.operands
	_, fromFile := p.opt("f", "--file")
	if len(scripts) == 0 && !fromFile && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	for _, i := range scripts {
		w := p.args[i]
		p.script(i)
		if !w.static {
			a.raise(runsCode)
			a.flag(p, i, "a sed script known only at run time")
			continue
		}
		text := w.text
		if o, ok := optAt(p, i); ok && o.valIdx == o.idx {
			text = o.value // -es/a/b/
		}
		r := sedScript(text)
		if r.effect > readsOnly {
			a.raise(r.effect)
			a.flag(p, i, "a sed script that "+r.what)
		}
		for _, f := range r.writes {
			a.writes = append(a.writes, pathWord{w: lit(f), idx: -1})
		}
		for _, f := range r.reads {
			a.reads = append(a.reads, pathWord{w: lit(f), idx: i})
		}
	}
	if _, inPlace := p.opt("i", "--in-place"); inPlace {
		for _, i := range files {
			a.writes = append(a.writes, pathWord{w: p.args[i], idx: i})
		}
	}
}

// optAt returns the option whose value is the word at index i.
func optAt(p *parsed, i int) (parsedOpt, bool) {
	for _, o := range p.opts {
		if o.valIdx == i {
			return o, true
		}
	}
	return parsedOpt{}, false
}

// sedScript reads a GNU sed script and reports the commands and flags
// that write files (w, W, s///w) or run commands (e, s///e). A script it
// cannot read is reported as running code.
func sedScript(s string) scriptRisk {
	var r scriptRisk
	sc := &sedScanner{s: s}
	if err := sc.run(&r); err != "" {
		return scriptRisk{effect: runsCode, what: "cannot be checked (" + err + ")"}
	}
	return r
}

type sedScanner struct {
	s string
	i int
}

func (sc *sedScanner) more() bool { return sc.i < len(sc.s) }
func (sc *sedScanner) peek() byte { return sc.s[sc.i] }

func (sc *sedScanner) skipBlank() {
	for sc.more() && (sc.peek() == ' ' || sc.peek() == '\t') {
		sc.i++
	}
}

// line returns the rest of the line and moves past it.
func (sc *sedScanner) line() string {
	rest := sc.s[sc.i:]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		sc.i += j + 1
		return rest[:j]
	}
	sc.i = len(sc.s)
	return rest
}

// text skips the text of a, i and c: lines continued by a backslash.
func (sc *sedScanner) text() {
	for sc.more() {
		l := sc.line()
		n := len(l) - len(strings.TrimRight(l, `\`))
		if n%2 == 0 {
			return
		}
	}
}

// delimited moves past text ending in the delimiter d. In a regular
// expression (re) a bracket expression may hold d. It reports false when
// the text does not end.
func (sc *sedScanner) delimited(d byte, re bool) bool {
	for sc.more() {
		c := sc.peek()
		switch {
		case c == '\\':
			sc.i += 2
			continue
		case c == d:
			sc.i++
			return true
		case c == '\n':
			return false
		case re && c == '[':
			end := bracketEnd(sc.s, sc.i)
			if end < 0 {
				return false
			}
			sc.i = end
			continue
		}
		sc.i++
	}
	return false
}

// bracketEnd returns the index after the bracket expression starting at
// s[i] == '[', or -1. Inside it a backslash is an ordinary character.
func bracketEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		switch {
		case s[j] == '\n':
			return -1
		case s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0:
			end := strings.Index(s[j+2:], string(s[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += 2 + end + 2
		case s[j] == ']':
			return j + 1
		default:
			j++
		}
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (sc *sedScanner) digits() {
	for sc.more() && isDigit(sc.peek()) {
		sc.i++
	}
}

// address moves past one address, if there is one.
func (sc *sedScanner) address(second bool) bool {
	if !sc.more() {
		return true
	}
	switch c := sc.peek(); {
	case isDigit(c):
		sc.digits()
		if sc.more() && sc.peek() == '~' {
			sc.i++
			sc.digits()
		}
	case c == '$':
		sc.i++
	case second && (c == '+' || c == '~'):
		sc.i++
		sc.digits()
	case c == '/' || c == '\\':
		d := byte('/')
		if c == '\\' {
			if sc.i+1 >= len(sc.s) {
				return false
			}
			d = sc.s[sc.i+1]
			sc.i++
		}
		sc.i++
		if !sc.delimited(d, true) {
			return false
		}
		for sc.more() && (sc.peek() == 'I' || sc.peek() == 'M') {
			sc.i++
		}
	}
	return true
}

// run reads the script and returns what stopped it, or "".
func (sc *sedScanner) run(r *scriptRisk) string {
	for {
		for sc.more() && strings.IndexByte(" \t\n;", sc.peek()) >= 0 {
			sc.i++
		}
		if !sc.more() {
			return ""
		}
		if sc.peek() == '#' {
			sc.line()
			continue
		}
		if !sc.address(false) {
			return "an unterminated address"
		}
		sc.skipBlank()
		if sc.more() && sc.peek() == ',' {
			sc.i++
			sc.skipBlank()
			if !sc.address(true) {
				return "an unterminated address"
			}
		}
		sc.skipBlank()
		for sc.more() && sc.peek() == '!' {
			sc.i++
			sc.skipBlank()
		}
		if !sc.more() {
			return "an address without a command"
		}
		c := sc.peek()
		sc.i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			sc.skipBlank()
			sc.digits()
		case ':', 'b', 't', 'T', 'v':
			for sc.more() && sc.peek() != ';' && sc.peek() != '\n' {
				sc.i++
			}
		case 'a', 'i', 'c':
			sc.text()
		case 'r', 'R':
			// Reads a file, like cat: the file is judged as a path.
			if f := strings.TrimSpace(sc.line()); f != "" && f != "/dev/stdin" {
				r.reads = append(r.reads, f)
			}
		case 'w', 'W':
			f := strings.TrimSpace(sc.line())
			if !harmlessSinks[f] {
				r.raise(writes, fmt.Sprintf("writes to %s (sed %c)", f, c))
				r.writes = append(r.writes, f)
			}
		case 'e':
			r.raise(runsCode, "runs a shell command (sed e)")
			sc.line()
		case 's':
			if !sc.more() || sc.peek() == '\n' || sc.peek() == '\\' {
				return "a bad s command"
			}
			d := sc.peek()
			sc.i++
			if !sc.delimited(d, true) || !sc.delimited(d, false) {
				return "an unterminated s command"
			}
			if err := sc.sFlags(r); err != "" {
				return err
			}
		case 'y':
			if !sc.more() || sc.peek() == '\n' || sc.peek() == '\\' {
				return "a bad y command"
			}
			d := sc.peek()
			sc.i++
			source := sc.delimited(d, false)
			if !source || !sc.delimited(d, false) { // then the destination
				return "an unterminated y command"
			}
		default:
			return fmt.Sprintf("an unknown command %q", c)
		}
	}
}

// sFlags reads the flags of an s command.
func (sc *sedScanner) sFlags(r *scriptRisk) string {
	for sc.more() {
		switch c := sc.peek(); {
		case c == ';' || c == '\n' || c == '}' || c == ' ' || c == '\t' || c == '#':
			return ""
		case strings.IndexByte("gpiImM", c) >= 0 || isDigit(c):
			sc.i++
		case c == 'e':
			r.raise(runsCode, "runs the pattern space as a shell command (s///e)")
			sc.i++
		case c == 'w':
			sc.i++
			f := strings.TrimSpace(sc.line())
			if !harmlessSinks[f] {
				r.raise(writes, fmt.Sprintf("writes to %s (s///w)", f))
				r.writes = append(r.writes, f)
			}
			return ""
		default:
			return fmt.Sprintf("an unknown s flag %q", c)
		}
	}
	return ""
}

// awkCheck reads awk's program: the -e/--source values, else the first
// operand (unless it comes from a file, which is risky already).
func awkCheck(a *assessment, p *parsed) {
	var progs []int
	for _, o := range p.opts {
		if o.name == "e" || strings.HasPrefix(o.name, "--s") && strings.HasPrefix("--source", o.name) {
			progs = append(progs, o.valIdx)
		}
	}
	_, fromFile := p.opt("f", "E", "--file", "--exec")
	if len(progs) == 0 && !fromFile && len(p.operands) > 0 {
		progs = p.operands[:1]
	}
	for _, i := range progs {
		w := p.args[i]
		p.script(i)
		if !w.static {
			a.raise(runsCode)
			a.flag(p, i, "an awk program known only at run time")
			continue
		}
		text := w.text
		if o, ok := optAt(p, i); ok && o.valIdx == o.idx {
			text = o.value
		}
		r := awkProgram(text)
		if r.effect != readsOnly {
			a.raise(r.effect)
			a.flag(p, i, "an awk program that "+r.what)
		}
		for _, f := range r.writes {
			a.writes = append(a.writes, pathWord{w: lit(f), idx: -1})
		}
		if r.unknownWrite {
			a.writes = append(a.writes, pathWord{w: word{src: "a file the awk program names at run time"}, idx: -1})
		}
		for _, f := range r.reads {
			a.reads = append(a.reads, pathWord{w: lit(f), idx: i})
		}
	}
	// ARGV and ARGC decide which files awk reads: set by the program or
	// by -v or an operand, they name files the command line does not.
	for i := 1; i < len(p.args); i++ {
		if w := p.args[i]; w.static && (strings.Contains(w.text, "ARGV") || strings.Contains(w.text, "ARGC")) {
			a.raise(unknownEffect)
			a.flag(p, i, "sets ARGV or ARGC, which name the files awk reads")
		}
	}
}

// awkProgram reports what in an awk program may run commands or write
// files. It does not parse awk; it looks for the words and operators that
// do so anywhere in the text (strings and regular expressions included),
// so it errs on the side of asking.
func awkProgram(s string) scriptRisk {
	var r scriptRisk
	if strings.Contains(s, "system") {
		r.raise(runsCode, "calls system()")
	}
	if strings.Contains(s, "@") {
		r.raise(runsCode, "uses @include, @load or an indirect function call")
	}
	if awkPipe(s) {
		r.raise(runsCode, "pipes to or from a command")
	}
	if i := strings.Index(s, "print"); i >= 0 && strings.Contains(s[i:], ">") {
		r.raise(writes, "may print to a file")
		r.writes, r.unknownWrite = awkTargets(s, "print", '>')
	}
	if i := strings.Index(s, "getline"); i >= 0 && strings.Contains(s[i:], "<") {
		r.raise(unknownEffect, "reads a file it names")
		r.reads, _ = awkTargets(s, "getline", '<')
	}
	return r
}

// awkTargets finds the files of the redirects (> or >>, or <) in the
// statements after each keyword: a string literal is a file; anything
// else is a file named at run time (unknown).
func awkTargets(s, keyword string, op byte) (files []string, unknown bool) {
	for rest := s; ; {
		i := strings.Index(rest, keyword)
		if i < 0 {
			return files, unknown
		}
		rest = rest[i+len(keyword):]
		stmt := rest
		if j := strings.IndexAny(stmt, ";}\n"); j >= 0 {
			stmt = stmt[:j]
		}
		j := strings.IndexByte(stmt, op)
		if j < 0 {
			continue
		}
		t := strings.TrimSpace(strings.TrimLeft(stmt[j:], string(op)))
		if len(t) >= 2 && t[0] == '"' && strings.IndexByte(t[1:], '"') == len(t)-2 && !strings.Contains(t, `\`) {
			files = append(files, t[1:len(t)-1])
			continue
		}
		unknown = true
	}
}

// awkPipe reports a | that is not part of the || operator.
func awkPipe(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '|' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '|' {
			i++
			continue
		}
		return true
	}
	return false
}

// tarCheck reads tar's old-style bundled first argument (tar xzf a.tgz)
// and finds the archive a create writes.
func tarCheck(a *assessment, p *parsed) {
	mode := ""
	for _, o := range p.opts {
		if len(o.name) == 1 && strings.Contains("xcrutA", o.name) {
			mode += o.name
		}
	}
	if len(p.operands) > 0 && p.operands[0] == p.first {
		w := p.args[p.first]
		if w.static && w.text != "" && strings.Trim(w.text, "abcdfghijklmnoprstuvwxzABCGHIJKLMNOPRSTUVWXZ") == "" {
			// Old style: the letters are options; their values are the
			// next operands, in order.
			ops := p.operands[1:]
			for _, ch := range w.text {
				switch {
				case strings.ContainsRune("xcruA", ch):
					mode += string(ch)
					a.raise(writes)
					a.flag(p, p.first, "writes files")
				case ch == 'I' || ch == 'F':
					a.raise(runsCode)
					a.flag(p, p.first, "runs a program")
				case strings.ContainsRune("fCbgHKLNTVX", ch) && len(ops) > 0:
					if ch == 'f' && strings.ContainsAny(mode, "cruA") {
						a.writes = append(a.writes, pathWord{w: p.args[ops[0]], idx: ops[0]})
					}
					ops = ops[1:]
				}
			}
			return
		}
	}
	if f, ok := p.opt("f", "--file"); ok && f.hasVal && strings.ContainsAny(mode, "cruA") {
		a.writes = append(a.writes, pathWord{w: p.args[f.valIdx], idx: f.valIdx})
		if f.valIdx == f.idx {
			a.writes[len(a.writes)-1].w = lit(f.value)
		}
	}
}

// curlCheck finds data and form values that upload a local file (@file,
// <file).
func curlCheck(a *assessment, p *parsed) {
	for _, o := range p.opts {
		if !o.hasVal {
			continue
		}
		upload := false
		switch {
		case o.name == "d" || strings.HasPrefix(o.name, "--data") || o.name == "--json":
			upload = strings.HasPrefix(o.value, "@") && o.value != "@-"
		case o.name == "F" || o.name == "--form":
			_, v, _ := strings.Cut(o.value, "=")
			upload = strings.HasPrefix(v, "@") || strings.HasPrefix(v, "<")
		}
		if upload {
			a.raise(sends)
			a.flag(p, o.valIdx, "uploads a local file")
		}
	}
}

// gitConfigCheck: git config reads unless it sets, unsets or edits; a
// change of git's configuration can make git run any command. A change
// never has its name, value or scope (--global, --system, -f FILE,
// --blob, --worktree) covered by a rule's final `*`, and it writes the
// file of its scope, which is protected (.git/config, ~/.gitconfig,
// /etc/gitconfig) unless -f names another.
func gitConfigCheck(a *assessment, p *parsed) {
	sub := p.first - 1
	edit := func(i int) {
		a.raise(runsCode)
		a.flag(p, i, "git config edit runs an editor")
	}
	for _, o := range p.opts {
		switch o.name {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "l", "--list", "--get-color", "--get-colorbool":
			return
		case "e", "--edit":
			edit(o.idx)
			return
		}
	}
	ops := p.operands
	if len(ops) > 0 && p.args[ops[0]].static {
		switch p.args[ops[0]].text {
		case "get", "list", "get-color", "get-colorbool":
			return
		case "edit":
			edit(ops[0])
			return
		case "set", "unset", "rename-section", "remove-section":
			ops = ops[1:] // git config set name value
		}
	}
	setting := len(ops) != 1 || len(p.operands) != len(ops)
	for _, o := range p.opts {
		if strings.HasPrefix(o.name, "--unset") || strings.HasPrefix(o.name, "--add") || strings.HasPrefix(o.name, "--replace") ||
			strings.HasPrefix(o.name, "--rename") || strings.HasPrefix(o.name, "--remove") {
			setting = true
		}
	}
	for _, i := range p.operands {
		if !p.args[i].static {
			setting = true // the name might be an option: --add, --edit …
		}
	}
	if !setting {
		return // git config name: prints the value
	}
	why := "git config changes git's configuration, which can make git run commands"
	a.raise(writes)
	a.flag(p, sub, why)
	for _, i := range p.operands {
		a.flag(p, i, why) // the name (after set, unset …); a rule naming it covers the value
		if len(ops) == 0 || i == ops[0] {
			break
		}
	}
	for _, o := range p.opts {
		switch o.name {
		case "--global", "--system", "--worktree", "--local", "f", "--file", "--blob", "--includes":
			a.flag(p, o.idx, "the configuration git config changes")
		}
	}
	target := pathWord{w: lit(".git/config"), idx: -1}
	switch {
	case hasFlag(p, "--global"):
		target.w = tildeWord("/.gitconfig")
	case hasFlag(p, "--system"):
		target.w = lit("/etc/gitconfig")
	case hasFlag(p, "--worktree"):
		target.w = lit(".git/config.worktree")
	}
	if f, ok := p.opt("f", "--file"); ok && f.hasVal {
		target = pathWord{w: p.args[f.valIdx], idx: f.valIdx}
		if f.valIdx == f.idx {
			target.w = lit(f.value)
		}
	}
	a.writes = append(a.writes, target)
}

// tildeWord is the word ~rest, as a program would write it.
func tildeWord(rest string) word {
	return word{src: "~" + rest, tmpl: "~" + rest, toks: append([]tok{{ch: '~'}}, charToks(rest, true)...)}
}

func hasFlag(p *parsed, name string) bool {
	_, ok := p.opt(name)
	return ok
}

// gitSubmoduleCheck: git submodule foreach runs a command in each.
func gitSubmoduleCheck(a *assessment, p *parsed) {
	firstOperand(a, p, "foreach", "git submodule foreach runs a command in every submodule")
}

// gitBisectCheck: git bisect run runs a command at each step.
func gitBisectCheck(a *assessment, p *parsed) {
	firstOperand(a, p, "run", "git bisect run runs a command at each step")
}

func firstOperand(a *assessment, p *parsed, name, why string) {
	if len(p.operands) > 0 && p.args[p.operands[0]].static && p.args[p.operands[0]].text == name {
		a.raise(runsCode)
		a.flag(p, p.operands[0], why)
	}
}

// tacklePermissionsCheck: tackle permissions revoke rewrites tackle's
// configuration file (tackle permissions and tackle permissions list
// only read it).
func tacklePermissionsCheck(a *assessment, p *parsed) {
	if len(p.operands) == 0 {
		return
	}
	i := p.operands[0]
	switch w := p.args[i]; {
	case w.static && w.text == "list":
		return
	case w.static && w.text == "revoke":
		a.config = "revokes a rule of tackle's configuration file"
	default:
		a.config = "may change tackle's configuration file"
	}
	a.raise(writes)
	a.flag(p, i, a.config)
}

// goModCheck: -mod=mod lets the go command update go.mod and go.sum.
func goModCheck(a *assessment, p *parsed) {
	for _, o := range p.opts {
		if o.name == "-mod" && o.value == "mod" {
			a.raise(writes)
			a.flag(p, o.idx, "lets go update go.mod and go.sum")
			a.writes = append(a.writes, pathWord{w: lit("go.mod"), idx: -1})
		}
	}
}

// jqCheck reads jq's options that take two values (--arg NAME VALUE,
// --argjson NAME JSON, --rawfile NAME FILE, --slurpfile NAME FILE): the
// option parser takes the name as the value, so the second word would be
// read as the filter, and the file it names never checked as a path
// (`jq -n --rawfile k ~/.docker/config.json '$k'`). The second word is
// no operand: a file for --rawfile and --slurpfile, which jq reads, and
// text for the others.
func jqCheck(a *assessment, p *parsed) {
	second := map[int]bool{}
	for _, o := range p.opts {
		switch o.name {
		case "--arg", "--argjson", "--rawfile", "--slurpfile":
		default:
			continue
		}
		i := o.valIdx + 1
		if o.valIdx == o.idx || i >= len(p.args) {
			continue
		}
		second[i] = true
		if o.name == "--rawfile" || o.name == "--slurpfile" {
			a.reads = append(a.reads, pathWord{w: p.args[i], idx: i})
		} else {
			p.script(i)
		}
	}
	p.operands = slices.DeleteFunc(p.operands, func(i int) bool { return second[i] })
}
