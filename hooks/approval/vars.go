package approval

import (
	"fmt"
	"strings"
)

// This file knows the builtins that take a variable's name as an argument
// (printf -v, read, mapfile, unset, getopts, wait -p, test -v, declare,
// export, local …). Two things make such a name dangerous, and a final `*`
// of a rule never covers either:
//
//   - an array subscript: bash evaluates x[…] when it looks the name up,
//     and the subscript of an indexed array is arithmetic, which expands
//     $(…) and evaluates variables whose values may hold more subscripts
//     (test -v 'x[$(cmd)]' runs cmd; so does test -v 'x[i]' when i holds
//     'y[$(cmd)]');
//   - an assignment to a variable that changes how later commands run:
//     PATH, IFS, BASH_ENV, LD_PRELOAD, GIT_CONFIG_*, GOFLAGS … Rather than
//     list them, only lower-case names are taken as the program's own
//     (environment variables are upper case), less the lower-case proxy
//     variables.
//
// A name known only at run time may be either.

// proxyVar reports the lower-case variables that change where programs
// connect.
func proxyVar(name string) bool {
	switch name {
	case "http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy":
		return true
	}
	return false
}

// ownVarName reports a name a program may set without changing how later
// commands run: a lower-case shell identifier that is not a proxy setting.
func ownVarName(name string) bool {
	if name == "" || proxyVar(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// nameRisk says why a variable name given to a builtin is dangerous, or
// "". assigns is true when the builtin sets the variable.
func nameRisk(w word, assigns bool) string {
	if !w.static {
		return "a variable name known only at run time, which bash may evaluate as an array subscript"
	}
	name, sub, hasSub := strings.Cut(w.text, "[")
	if hasSub {
		sub, closed := strings.CutSuffix(sub, "]")
		if !closed || !isNumber(sub) && sub != "@" && sub != "*" {
			return "an array subscript, which bash evaluates (it can run commands)"
		}
	}
	if assigns && !ownVarName(name) {
		return fmt.Sprintf("it sets %s, which can change how later commands run", name)
	}
	return ""
}

// assignRisk is nameRisk for NAME=value, NAME+=value or a bare NAME of
// declare, export, local, readonly and typeset.
func assignRisk(name string, index bool) string {
	if index {
		return "an array subscript, which bash evaluates (it can run commands)"
	}
	if !ownVarName(name) {
		return fmt.Sprintf("it sets %s, which can change how later commands run", name)
	}
	return ""
}

// guardName guards the word at index i of the arguments when it is a
// dangerous variable name.
func guardName(a *assessment, p *parsed, i int, assigns bool) {
	w := p.args[i]
	if o, ok := optAt(p, i); ok && o.valIdx == o.idx {
		w = lit(o.value) // -vNAME
	}
	if why := nameRisk(w, assigns); why != "" {
		a.raise(runsCode)
		a.flag(p, i, why)
	}
}

// optNameCheck guards the value of the option opt (printf -v, wait -p,
// read -a) and, with operands, every operand (read, mapfile, unset).
func optNameCheck(opt string, operands bool) func(a *assessment, p *parsed) {
	return func(a *assessment, p *parsed) {
		for _, o := range p.opts {
			if o.name == opt && o.hasVal {
				guardName(a, p, o.valIdx, true)
			}
		}
		if operands {
			for _, i := range p.operands {
				guardName(a, p, i, true)
			}
		}
	}
}

// getoptsCheck guards getopts' variable name, its second operand.
func getoptsCheck(a *assessment, p *parsed) {
	if len(p.operands) > 1 {
		guardName(a, p, p.operands[1], true)
	}
	for _, i := range p.operands {
		if !p.args[i].static {
			a.raise(runsCode)
			a.flag(p, i, "known only at run time (it may be getopts' variable name)")
		}
	}
}

// testBinary reports test's binary comparisons: the words on either side of
// one are its operands, not variable names.
func testBinary(op string) bool {
	switch op {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef":
		return true
	}
	return false
}

// testCheck guards what test and [ may take as a variable name: the word
// after -v or -R, and any word known only at run time that is not plainly
// an operand (after an operator other than -v and -R, or before a binary
// operator), since its value might be -v or a name with a subscript.
func testCheck(a *assessment, p *parsed) {
	args := p.args
	end := len(args)
	if args[0].text == "[" && end > 1 && args[end-1].static && args[end-1].text == "]" {
		end--
	}
	if end == 2 || end == 3 && args[1].static && args[1].text == "!" {
		// One operand: test tells whether it is empty, whatever it holds.
		if w := args[end-1]; !w.static && !w.split {
			return
		}
	}
	for i := 1; i < end; i++ {
		w := args[i]
		prev, next := "", ""
		prevStatic := i > 1 && args[i-1].static
		if prevStatic {
			prev = args[i-1].text
		}
		if i+1 < end && args[i+1].static {
			next = args[i+1].text
		}
		switch {
		case prevStatic && (prev == "-v" || prev == "-R"):
			if why := nameRisk(w, false); why != "" {
				a.raise(runsCode)
				a.flag(p, i, why)
			}
		case w.static:
		case w.split:
			a.raise(runsCode)
			a.flag(p, i, "known only at run time and not quoted (it may become -v and a variable name)")
		case prevStatic && (testBinary(prev) || strings.HasPrefix(prev, "-") && prev != "-a" && prev != "-o"):
		case testBinary(next):
		default:
			a.raise(runsCode)
			a.flag(p, i, "known only at run time (it may be -v or a variable name)")
		}
	}
}

// envCheck guards the NAME=value operands of env (before its command)
// whose name is not the program's own (ownVarName).
func envCheck(a *assessment, p *parsed) {
	for _, i := range p.operands {
		w := p.args[i]
		if !w.static {
			return
		}
		name, _, ok := strings.Cut(w.text, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t\n/") {
			return // the command
		}
		if !ownVarName(name) {
			a.raise(runsCode)
			a.flag(p, i, fmt.Sprintf("it sets %s for the command it runs", name))
		}
	}
}
