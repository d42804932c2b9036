package approval

import (
	"slices"
	"strings"
)

// The variable analysis: which values a program gives its own variables,
// so that `d=.git; rm -rf $d` and `for f in .gi?; do tee "$f/config"; done`
// are judged by the paths they name. It is a may-analysis over the whole
// program text, with two rules for soundness:
//
//   - a use outside a for loop over the variable is followed only after an
//     assignment that always runs (at the top level, not in a branch, loop,
//     pipe, function or subshell) and outside function bodies; otherwise
//     the variable may still hold what the environment gave it;
//   - any other way of setting the variable (read, printf -v, mapfile,
//     getopts, arithmetic, ${x:=…}, an assignment with an index or +=, one
//     in a program run by sh -c or eval, declare with options …), and any
//     command that may set variables it does not name (source, eval, a
//     setter whose name is known only at run time) makes it unknown.

// varTable is what the analyzer saw of the program's variables.
type varTable struct {
	assigns    map[string][]varAssign
	loops      []loopVar
	funcs      [][2]int // the offsets of function bodies
	unknown    map[string]bool
	allUnknown bool // the program may set any variable
	setters    []*command
}

type varAssign struct {
	value  []tok
	pos    int
	uncond bool
}

type loopVar struct {
	name       string
	items      [][]tok
	start, end int // the offsets of the loop's body
}

func (t *varTable) markUnknown(name string) {
	if t.unknown == nil {
		t.unknown = make(map[string]bool)
	}
	t.unknown[name] = true
}

func (t *varTable) assign(name string, value []tok, pos int, uncond bool) {
	if t.assigns == nil {
		t.assigns = make(map[string][]varAssign)
	}
	t.assigns[name] = append(t.assigns[name], varAssign{value: value, pos: pos, uncond: uncond})
}

// setterName reports the builtins that set variables they are given by name.
func setterName(name string) bool {
	switch name {
	case "read", "printf", "mapfile", "readarray", "getopts", "wait", "unset", "declare", "typeset", "local", "export", "readonly", "let", "select":
		return true
	}
	return false
}

// noteCommand looks at a recorded command for ways of setting variables.
func (t *varTable) noteCommand(c *command) {
	args := c.args()
	if len(args) == 0 {
		return
	}
	if !args[0].static {
		t.allUnknown = true
		return
	}
	name := path0(args[0].text)
	switch {
	case name == "source" || name == "." || name == "eval":
		t.allUnknown = true
	case setterName(name):
		for _, w := range args[1:] {
			if !w.static {
				t.allUnknown = true
			}
		}
		t.setters = append(t.setters, c)
	}
}

// path0 is the base name of a command name.
func path0(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// setBy reports a setter command that names the variable (read name,
// printf -v name, declare -n name=…).
func (t *varTable) setBy(name string) bool {
	for _, c := range t.setters {
		for _, w := range c.args()[1:] {
			s := w.text
			if strings.HasPrefix(s, "-") && len(s) > 2 {
				s = s[2:] // -vNAME, -aNAME
			}
			if s == name || strings.HasPrefix(s, name+"=") || strings.HasPrefix(s, name+"[") || strings.HasPrefix(s, name+"+=") {
				return true
			}
		}
	}
	return false
}

// ifsChanged reports a program that may give IFS a value of its own (bash
// does not take it from the environment).
func (t *varTable) ifsChanged() bool {
	return len(t.assigns["IFS"]) > 0 || t.unknown["IFS"] || t.setBy("IFS") || slices.ContainsFunc(t.loops, func(l loopVar) bool { return l.name == "IFS" })
}

func (t *varTable) inFunc(pos int) bool {
	return slices.ContainsFunc(t.funcs, func(r [2]int) bool { return pos >= r[0] && pos < r[1] })
}

// lookup returns a varLookup over the table, with home for $HOME.
func (t *varTable) lookup(home string) varLookup {
	var look varLookup
	look = func(name string, pos int, quoted bool) ([][]tok, bool) {
		if t == nil || t.allUnknown || t.unknown[name] || t.setBy(name) {
			return nil, false
		}
		if !quoted && t.ifsChanged() {
			// Split on other characters than blanks: IFS=x; f=ax.git;
			// rm -rf $f removes .git.
			return nil, false
		}
		var values [][]tok
		budget := maxAlternatives
		addAssigns := func() bool {
			for _, as := range t.assigns[name] {
				v, ok := expandTilde(as.value, home)
				if !ok {
					return false
				}
				subs, ok := substitute(v, look, &budget, 1)
				if !ok {
					return false
				}
				for _, s := range subs {
					// What a variable holds is plain text: when it is
					// used outside quotes, all of it may glob.
					s = slices.Clone(s)
					for i := range s {
						s[i].quoted = false
					}
					values = append(values, s)
				}
			}
			return true
		}
		addLoops := func() bool {
			for _, l := range t.loops {
				if l.name != name {
					continue
				}
				for _, item := range l.items {
					alts := braceExpand(item, &budget)
					if alts == nil {
						return false
					}
					for _, alt := range alts {
						alt, ok := expandTilde(alt, home)
						if !ok {
							return false
						}
						subs, ok := substitute(alt, look, &budget, 1)
						if !ok {
							return false
						}
						for _, s := range subs {
							// One of the files the item matched: its glob
							// stays a glob even where the use is quoted.
							values = append(values, markGlobbed(s))
						}
					}
				}
			}
			return true
		}
		inLoop := slices.ContainsFunc(t.loops, func(l loopVar) bool { return l.name == name && pos >= l.start && pos < l.end })
		if !inLoop {
			if t.inFunc(pos) || !slices.ContainsFunc(t.assigns[name], func(a varAssign) bool { return a.uncond && a.pos < pos }) {
				if name == "HOME" && home != "" && len(t.assigns[name]) == 0 && !slices.ContainsFunc(t.loops, func(l loopVar) bool { return l.name == name }) {
					return [][]tok{charToks(home, false)}, true
				}
				return nil, false
			}
		}
		if !addAssigns() || !addLoops() || len(values) == 0 {
			return nil, false
		}
		return values, true
	}
	return look
}

// markGlobbed marks the unquoted glob characters of a pathname expansion
// that already happened: quoting the variable later does not undo it.
func markGlobbed(ts []tok) []tok {
	out := slices.Clone(ts)
	for i := range out {
		if !out[i].quoted && strings.IndexByte("*?[]", out[i].ch) >= 0 {
			out[i].globbed = true
		}
	}
	return out
}
