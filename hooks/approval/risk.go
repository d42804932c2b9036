package approval

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/tools/chat"
)

// This file reads one simple command with the knowledge of commands.go:
// what the command does (only reads, writes, deletes, runs code), which of
// its words are options that write or run code, which files it writes,
// and which words name paths outside the workspace. Allow rules use it to
// keep a pattern's final `*` from covering such words; "approve always"
// uses it to decide how wide a rule may be; protected paths and path deny
// rules use the files it names.

// effect is what a command does, from the least to the most dangerous.
type effect uint8

const (
	readsOnly     effect = iota // reads files and prints: a wide "always" rule is safe
	unknownEffect               // not known: an exact "always" rule at most
	sends                       // sends local files over the network
	writes                      // writes files
	deletes                     // deletes files
	runsCode                    // runs a program it was given, or code the workspace holds
)

func (e effect) String() string {
	switch e {
	case readsOnly:
		return "only reads"
	case sends:
		return "sends files"
	case writes:
		return "writes files"
	case deletes:
		return "deletes files"
	case runsCode:
		return "runs code"
	}
	return "may do anything"
}

// toolSpec is what the policy knows about one command (or subcommand).
// Table entries are in commands.go.
type toolSpec struct {
	// effect is what the command does with none of its risky options.
	effect effect
	// text: its arguments are text, not file names (echo, printf).
	text bool
	// args are the short options that take a value, longArgs the long
	// ones (without "--"), so that a value is not read as an operand.
	args     string
	longArgs []string
	// longFlags are long options without a value that an abbreviation
	// of a risky option must not be taken for (tar --list is not
	// --listed-incremental).
	longFlags []string
	// pattern: the first operand is a pattern, not a file (grep), unless
	// an -e or -f option gives the pattern.
	pattern bool
	// goFlags: options are Go-style single-dash words (-o, -toolexec=x),
	// matched whole; risky short names are then full flag names.
	goFlags bool
	// risky are its options that write, delete, send or run code.
	risky []risky
	// words are risky words matched whole (find's -exec, -delete) or, when
	// they end in "=", by prefix (dd's of=).
	words map[string]risky
	// operands says which of its operands it writes.
	operands operandKind
	// check reads what the generic option parser cannot: sed scripts,
	// awk programs, tar modes.
	check func(a *assessment, p *parsed)
	// subs are its subcommands (git status, go test); a subcommand not
	// listed has the effect subDefault.
	subs       map[string]*toolSpec
	subDefault effect
	// globalArgs are the options that take a value before the
	// subcommand (git -C dir).
	globalArgs     string
	globalLongArgs []string
	// guardName: a subcommand that is itself risky (git filter-branch):
	// why a final `*` must not cover its name.
	guardName string
}

// risky is an option that writes, deletes, sends or runs code.
type risky struct {
	short  string   // option letters ("i"), or a Go-style flag name
	long   []string // long names without "--"
	effect effect
	target bool   // its value is a file it writes
	what   string // what it does, for messages: "edits files in place"
}

// operandKind says which operands a command writes.
type operandKind uint8

const (
	opRead     operandKind = iota // operands are read (or are not files)
	opAll                         // every operand is written (touch, rm, tee)
	opLast                        // the last operand is written (cp, ln, install)
	opSecond                      // the second operand is written (uniq, xxd)
	opScripted                    // a script decides (sed -i: the files after the script)
)

// parsed is a command's words read against its toolSpec.
type parsed struct {
	spec     *toolSpec
	args     []word // the command's name and arguments
	first    int    // index in args of the first word read against spec
	opts     []parsedOpt
	operands []int        // indices in args
	notPath  map[int]bool // operands that are scripts or patterns, not files
}

// script marks the word at index i as a program or pattern, not a file.
func (p *parsed) script(i int) {
	if p.notPath == nil {
		p.notPath = make(map[int]bool)
	}
	p.notPath[i] = true
}

type parsedOpt struct {
	name   string // "i" or "--in-place" (the name as written)
	value  string
	hasVal bool
	idx    int // the option's word
	valIdx int // the word holding the value (idx when attached)
	risk   *risky
}

// opt returns the first option with one of the names (short letters or
// long names with "--"), matching long names by unambiguous prefix as
// GNU getopt does.
func (p *parsed) opt(names ...string) (parsedOpt, bool) {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n || strings.HasPrefix(n, "--") && len(o.name) > 2 && strings.HasPrefix(n, o.name) {
				return o, true
			}
		}
	}
	return parsedOpt{}, false
}

// pathWord is a file a command reads or writes, as written.
type pathWord struct {
	w   word
	idx int // index of the word in the command's words; -1 for a redirect or an implied file
}

// assessment is what one simple command does, as far as the policy knows.
type assessment struct {
	known  bool   // the command is in the table
	prefix int    // words of the command an "always" rule names before its `*`
	effect effect // the worst it does
	// guard holds, per word of the command (assignments included), why a
	// pattern's final `*` must not cover it; "" where it may.
	guard  []string
	writes []pathWord // files it writes, where the table knows them
	// reads are files it reads that are no word of its own (sed r, awk
	// getline <); idx is the word of the script naming them.
	reads []pathWord
	// dynamic: a word is known only at run time (and may be anything).
	dynamic bool
	// outside names a word naming a path outside the workspace.
	outside string
	// config says how the command changes tackle's own configuration
	// (tackle permissions revoke), which is protected wherever the file
	// is; "" when it does not.
	config string
	// stop says why no rule with a wildcard covers the command at all
	// (git run where it takes a directory not named .git for the
	// repository); only an exact rule does.
	stop string
}

// mayWriteAny reports a command that may write files the table does not
// name: one not in the table, or one that writes, deletes or runs code.
func (a *assessment) mayWriteAny() bool { return !a.known || a.effect >= writes }

// raise records that the command does at least e.
func (a *assessment) raise(e effect) { a.effect = max(a.effect, e) }

// flag guards the word at index i of the arguments: what it does.
func (a *assessment) flag(p *parsed, i int, what string) {
	if j := i + (len(a.guard) - len(p.args)); j >= 0 && j < len(a.guard) && a.guard[j] == "" {
		a.guard[j] = fmt.Sprintf("%s (%s)", chat.OneLine(p.args[i].src, maxQuoted), what)
	}
}

// assess reads one simple command; e judges the paths it names.
func (e *pathEnv) assess(c *command) *assessment {
	args := c.args()
	a := &assessment{guard: make([]string, len(c.words)), prefix: 1, effect: unknownEffect}
	if len(args) == 0 || !args[0].static {
		a.raise(runsCode)
		parserGuards(a, c)
		return a
	}
	name := args[0].text
	spec := lookupTool(name)
	p := &parsed{spec: spec, args: args, first: 1}
	switch {
	case strings.Contains(name, "/") && (spec == nil || !path.IsAbs(name)):
		a.raise(runsCode) // a program run by its path: ./build.sh
	case spec != nil:
		a.known = true
		a.effect = readsOnly
		if spec.subs != nil {
			spec = readSub(a, p, spec)
		}
		if spec != nil {
			p.spec = spec
			a.raise(spec.effect)
			readOptions(a, p)
			if spec.check != nil {
				spec.check(a, p)
			}
			if spec.pattern && len(p.operands) > 0 {
				if _, given := p.opt("e", "f", "--regexp", "--file"); !given {
					p.script(p.operands[0])
				}
			}
			operandWrites(a, p)
		}
		if a.effect > unknownEffect && onlyAsksVersion(args[1:]) {
			a.effect = unknownEffect // python3 --version: an exact rule
		}
	}
	parserGuards(a, c)
	if a.known && path.Base(name) == "git" {
		e.checkGitDir(a)
	}
	e.checkWords(a, p)
	return a
}

// checkGitDir: git run in a directory it takes for a repository that is
// not a .git directory (HEAD, objects/ and refs/ written there) runs that
// directory's config: its core.fsmonitor, hooks, pager … (issue 21 class
// 3: cd dir && git status).
func (e *pathEnv) checkGitDir(a *assessment) {
	for _, b := range e.bases() {
		if d := e.foreignGitDir(b); d != "" {
			a.raise(runsCode)
			rel, _ := e.rel(d)
			a.stop = fmt.Sprintf("git runs in %s, which git takes for a repository (it has HEAD, objects/ and refs/) and whose config can make it run commands", rel)
			return
		}
	}
}

// parserGuards adds the guards the parser found (command.guard).
func parserGuards(a *assessment, c *command) {
	for i, why := range c.guard {
		if why != "" && a.guard[i] == "" {
			a.guard[i] = fmt.Sprintf("%s (%s)", chat.OneLine(c.words[i].src, maxQuoted), why)
			a.raise(runsCode)
		}
	}
}

// readSub reads the options before a subcommand and the subcommand
// itself, and returns the subcommand's spec (nil when it is not known:
// a.effect then says what an unknown subcommand may do).
func readSub(a *assessment, p *parsed, spec *toolSpec) *toolSpec {
	global := &toolSpec{args: spec.globalArgs, longArgs: spec.globalLongArgs, risky: spec.risky, goFlags: spec.goFlags}
	i := 1
	for ; i < len(p.args); i++ {
		w := p.args[i]
		if !w.static {
			a.raise(runsCode)
			return nil
		}
		if w.text == "--" || !strings.HasPrefix(w.text, "-") || w.text == "-" {
			break
		}
		i += readOption(a, &parsed{spec: global, args: p.args}, i)
	}
	if i >= len(p.args) || p.args[i].text == "--" {
		a.raise(spec.effect)
		p.first = len(p.args)
		return nil
	}
	sub := p.args[i].text
	p.first = i + 1
	a.prefix = 2
	if i != 1 {
		a.prefix = 0 // options before the subcommand: no wide rule
	}
	if s, ok := spec.subs[sub]; ok {
		if s.guardName != "" {
			a.raise(s.effect)
			a.flag(p, i, s.guardName)
		}
		return s
	}
	a.raise(spec.subDefault)
	// Read the rest for risky options all the same.
	return &toolSpec{effect: spec.subDefault, risky: spec.risky, goFlags: spec.goFlags}
}

// readOptions reads the options and operands of args[p.first:].
func readOptions(a *assessment, p *parsed) {
	for i := p.first; i < len(p.args); i++ {
		w := p.args[i]
		if !w.static {
			p.operands = append(p.operands, i)
			continue
		}
		switch {
		case w.text == "--":
			for j := i + 1; j < len(p.args); j++ {
				p.operands = append(p.operands, j)
			}
			return
		case len(w.text) > 1 && w.text[0] == '-':
			if r, ok := matchWord(p.spec.words, w.text); ok {
				a.raise(r.effect)
				a.flag(p, i, r.what)
				p.opts = append(p.opts, parsedOpt{name: w.text, idx: i, valIdx: i, risk: &r})
				if r.target && i+1 < len(p.args) {
					a.writes = append(a.writes, pathWord{w: p.args[i+1], idx: i + 1})
					i++
				}
				continue
			}
			i += readOption(a, p, i)
		default:
			if r, ok := matchWord(p.spec.words, w.text); ok {
				a.raise(r.effect)
				a.flag(p, i, r.what)
				if r.target {
					_, v, _ := strings.Cut(w.text, "=")
					a.writes = append(a.writes, pathWord{w: lit(v), idx: i})
				}
				continue
			}
			p.operands = append(p.operands, i)
		}
	}
}

// matchWord finds a word of a toolSpec's words table.
func matchWord(words map[string]risky, s string) (risky, bool) {
	if r, ok := words[s]; ok {
		return r, true
	}
	if k, _, ok := strings.Cut(s, "="); ok {
		if r, ok := words[k+"="]; ok {
			return r, true
		}
	}
	return risky{}, false
}

// readOption reads the option word args[i] and returns how many more
// words it took (its value).
func readOption(a *assessment, p *parsed, i int) int {
	s := p.args[i].text
	spec := p.spec
	next := func() (word, bool) {
		if i+1 < len(p.args) {
			return p.args[i+1], true
		}
		return word{}, false
	}
	record := func(o parsedOpt) {
		p.opts = append(p.opts, o)
		if o.risk == nil {
			return
		}
		a.raise(o.risk.effect)
		a.flag(p, o.idx, o.risk.what)
		if o.risk.target && o.hasVal {
			a.writes = append(a.writes, pathWord{w: p.args[o.valIdx], idx: o.valIdx})
			if o.valIdx == o.idx {
				a.writes[len(a.writes)-1].w = lit(o.value)
			}
		}
	}
	long := strings.HasPrefix(s, "--") || spec.goFlags
	if long {
		name, val, eq := strings.Cut(strings.TrimLeft(s, "-"), "=")
		o := parsedOpt{name: "--" + name, value: val, hasVal: eq, idx: i, valIdx: i}
		if spec.goFlags {
			o.name = "-" + name
		}
		var takesValue bool
		exact := slices.Contains(spec.longArgs, name) || slices.Contains(spec.longFlags, name)
		for k := range spec.risky {
			r := &spec.risky[k]
			if spec.goFlags && r.short == name || slices.Contains(r.long, name) ||
				!exact && slices.ContainsFunc(r.long, func(l string) bool { return abbrev(name, l, spec.goFlags) }) {
				o.risk = r
				takesValue = r.target
				break
			}
		}
		takesValue = takesValue || slices.ContainsFunc(spec.longArgs, func(l string) bool { return abbrev(name, l, spec.goFlags) })
		if spec.goFlags && len(name) == 1 {
			takesValue = takesValue || strings.Contains(spec.args, name)
		}
		took := 0
		if takesValue && !eq {
			if v, ok := next(); ok {
				o.value, o.hasVal, o.valIdx = v.text, true, i+1
				took = 1
			}
		}
		record(o)
		return took
	}
	// Short options, perhaps grouped: -ni, -e script, -escript.
	for j := 1; j < len(s); j++ {
		ch := s[j : j+1]
		o := parsedOpt{name: ch, idx: i, valIdx: i}
		for k := range spec.risky {
			if strings.Contains(spec.risky[k].short, ch) {
				o.risk = &spec.risky[k]
				break
			}
		}
		if strings.Contains(spec.args, ch) || o.risk != nil && o.risk.target {
			if rest := s[j+1:]; rest != "" {
				o.value, o.hasVal = rest, true
				record(o)
				return 0
			}
			if v, ok := next(); ok {
				o.value, o.hasVal, o.valIdx = v.text, true, i+1
				record(o)
				return 1
			}
		}
		record(o)
	}
	return 0
}

// abbrev reports whether the long option name as written selects full:
// the same, or (GNU getopt) an abbreviation of it.
func abbrev(name, full string, exact bool) bool {
	if exact {
		return name == full
	}
	return name != "" && strings.HasPrefix(full, name)
}

// operandWrites adds the operands the command writes.
func operandWrites(a *assessment, p *parsed) {
	ops := p.operands
	var w []int
	switch p.spec.operands {
	case opAll:
		w = ops
	case opLast:
		if t, ok := p.opt("t", "--target-directory"); ok && t.hasVal {
			a.writes = append(a.writes, pathWord{w: p.args[t.valIdx], idx: t.valIdx})
			if t.valIdx == t.idx {
				a.writes[len(a.writes)-1].w = lit(t.value)
			}
			if p.args[0].text == "mv" {
				w = ops
			}
			break
		}
		if len(ops) > 0 {
			w = ops[len(ops)-1:]
			if p.args[0].text == "mv" {
				w = ops // moving a file away changes it too
			}
		}
	case opSecond:
		if len(ops) > 1 {
			w = ops[1:2]
			a.raise(writes)
		}
	}
	for _, i := range w {
		a.writes = append(a.writes, pathWord{w: p.args[i], idx: i})
	}
}

// onlyAsksVersion reports a command that only prints its version or help.
func onlyAsksVersion(args []word) bool {
	if len(args) != 1 || !args[0].static {
		return false
	}
	switch args[0].text {
	case "--version", "--help", "-h", "-V":
		return true
	}
	return false
}

// checkWords guards the words a final `*` must not cover: words known only
// at run time and words naming paths outside the workspace, unless the
// command's arguments are text.
func (e *pathEnv) checkWords(a *assessment, p *parsed) {
	text := p.spec != nil && p.spec.text
	for i := 1; i < len(p.args); i++ {
		w := p.args[i]
		if p.notPath[i] {
			if !w.static && !text {
				a.dynamic = true
				a.flag(p, i, "known only at run time")
			}
			continue
		}
		if !w.static {
			if text {
				continue
			}
			why, unknown := e.wordOutside(w)
			switch {
			case unknown:
				a.dynamic = true
				a.flag(p, i, "known only at run time")
			case why != "":
				if a.outside == "" {
					a.outside = w.src
				}
				a.flag(p, i, why)
			}
			continue
		}
		if text {
			continue
		}
		for _, cand := range pathCandidates(w.text) {
			if why := e.outside(cand); why != "" {
				if a.outside == "" {
					a.outside = w.src
				}
				a.flag(p, i, why)
				break
			}
		}
	}
	for _, t := range a.writes {
		if t.idx >= 0 && !t.w.static && !text {
			a.dynamic = true
		}
	}
	for _, r := range a.reads {
		if why := e.outside(r.w.text); why != "" && r.idx >= 0 {
			if a.outside == "" {
				a.outside = r.w.src
			}
			a.flag(p, r.idx, fmt.Sprintf("it reads %s (%s)", r.w.src, why))
		}
	}
}

// pathCandidates returns the parts of a word that may be paths: the word,
// the value of --name=value or of name=value (dd's of=), and what follows
// an @ or < (curl -d @file, -F f=@file, -d@file).
func pathCandidates(s string) []string {
	var out []string
	if strings.HasPrefix(s, "-") {
		if _, v, ok := strings.Cut(s, "="); ok && v != "" {
			out = append(out, v)
		}
	} else {
		out = append(out, s)
		if k, v, ok := strings.Cut(s, "="); ok && v != "" && !strings.Contains(k, "/") {
			out = append(out, v)
		}
	}
	if i := strings.IndexAny(s, "@<"); i >= 0 && i+1 < len(s) {
		out = append(out, s[i+1:])
	}
	return out
}
