package approval

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// This file knows the commands that run other commands: wrappers (env,
// timeout, xargs, sudo, find -exec …), shells and their -c, eval, source,
// trap and a few more. For each it says what the command runs, so that
// allow rules must cover the wrapped command too and deny rules see it.
//
// A wrapper is itself a simple command: an allow rule has to name it
// (`bash(timeout *)`), and what it runs needs a rule of its own
// (`bash(go test *)`). So `bash(go test *)` never allows `timeout 5 rm x`,
// and `bash(timeout *)` alone allows no command at all.

// unwrap is what a special command runs.
type unwrap struct {
	cmds         [][]word // commands it runs, each as its words
	scripts      []word   // programs it runs from a string (sh -c, eval)
	maybeScripts []string // strings it may run as a program, for deny rules
	stdin        bool     // it reads a program from standard input
	scan         bool     // its command is one of its arguments' suffixes, which one is unclear
	opaque       string   // why no allow rule can cover it
	unsure       string   // why deny rules cannot see what it runs
}

type handler func(args []word, c ctx) unwrap

// specials maps the base name of a command to what it runs. Names not
// here run nothing but themselves (as far as this check can know). It is
// built on first use.
var specials = sync.OnceValue(func() map[string]handler {
	specials := map[string]handler{
		"env":       envCmd,
		"xargs":     xargsCmd,
		"find":      findCmd,
		"timeout":   timeoutCmd,
		"nice":      withOptions(optSpec{arg: "n", numeric: true, long: []string{"adjustment"}}),
		"nohup":     withOptions(optSpec{}),
		"sudo":      sudoCmd,
		"doas":      doasCmd,
		"command":   commandCmd,
		"builtin":   func(args []word, _ ctx) unwrap { return runs(args) },
		"exec":      execCmd,
		"time":      timeCmd,
		"watch":     watchCmd,
		"eval":      evalCmd,
		"source":    sourceCmd,
		".":         sourceCmd,
		"trap":      trapCmd,
		"mapfile":   mapfileCmd,
		"readarray": mapfileCmd,
		"complete":  completeCmd,
		"compgen":   completeCmd,
		"alias":     redefines("alias"),
		"hash":      redefines("hash"),
		"enable":    redefines("enable"),
		"parallel": func([]word, ctx) unwrap {
			return unwrap{scan: true, unsure: "parallel can run its arguments as commands"}
		},
	}
	for _, sh := range []string{"sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"} {
		specials[sh] = shellCmd(sh)
	}
	// Wrappers whose options this check does not model: deny rules see
	// every suffix of their arguments; no allow rule covers them.
	for _, w := range []string{
		"stdbuf", "ionice", "chrt", "taskset", "setsid", "chroot", "unshare", "nsenter",
		"strace", "ltrace", "caffeinate", "pkexec", "run0", "firejail", "xvfb-run",
		"dbus-run-session", "dbus-launch", "unbuffer", "fakeroot", "torsocks", "proxychains",
		"proxychains4", "busybox", "valgrind", "numactl", "cgexec", "prlimit", "setarch",
		"faketime", "ssh-agent", "systemd-run", "catchsegv",
	} {
		specials[w] = func([]word, ctx) unwrap { return unwrap{scan: true} }
	}
	// Commands that run one of their arguments as a shell program.
	for _, w := range []string{"su", "runuser", "flock", "script", "sg"} {
		specials[w] = stringRunner(w)
	}
	return specials
})

// runs returns an unwrap that runs args, if there are any.
func runs(args []word) unwrap {
	if len(args) == 0 {
		return unwrap{}
	}
	return unwrap{cmds: [][]word{args}}
}

// optSpec describes a command's options.
type optSpec struct {
	arg      string   // short options that take an argument
	optional string   // short options whose argument, if any, is attached (xargs -i[R])
	flags    string   // short options without one; "*" takes any letter
	long     []string // long options that take an argument
	longFlag []string // long options without one (also accepted as --name=value)
	anyLong  bool     // every other long option is a flag
	numeric  bool     // -N is an option (nice -10)
	plus     bool     // +o style options too (shells)
}

// opt is one option as read: "c" for -c, "--command" for --command.
type opt struct {
	name, value string
}

func hasOpt(opts []opt, names ...string) (string, bool) {
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			return o.value, true
		}
	}
	return "", false
}

// options reads the options at the start of args. It returns them and the
// index of the first operand, or ok=false at an option it does not know or
// a word known only at run time (which might be several options).
func options(args []word, spec optSpec) (opts []opt, operand int, ok bool) {
	takeNext := func(i int) (string, bool) {
		if i+1 >= len(args) || !args[i+1].static {
			return "", false
		}
		return args[i+1].text, true
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static {
			if w.prefix != "" && w.prefix[0] != '-' && w.prefix[0] != '+' {
				return opts, i, true // known to start like an operand
			}
			return opts, i, false
		}
		s := w.text
		switch {
		case s == "--":
			return opts, i + 1, true
		case len(s) < 2 || (s[0] != '-' && !(spec.plus && s[0] == '+')):
			return opts, i, true
		case strings.HasPrefix(s, "--"):
			name, val, eq := strings.Cut(s[2:], "=")
			switch {
			case slices.Contains(spec.long, name):
				if !eq {
					v, ok := takeNext(i)
					if !ok {
						return opts, i, false
					}
					val = v
					i++
				}
			case slices.Contains(spec.longFlag, name), spec.anyLong:
			default:
				return opts, i, false
			}
			opts = append(opts, opt{"--" + name, val})
		default:
			for j := 1; j < len(s); j++ {
				ch := s[j : j+1]
				switch {
				case strings.Contains(spec.arg, ch):
					val := s[j+1:]
					if val == "" {
						v, ok := takeNext(i)
						if !ok {
							return opts, i, false
						}
						val = v
						i++
					}
					opts = append(opts, opt{ch, val})
					j = len(s)
				case strings.Contains(spec.optional, ch):
					opts = append(opts, opt{ch, s[j+1:]})
					j = len(s)
				case spec.numeric && j == 1 && isNumber(s[1:]):
					opts = append(opts, opt{"N", s[1:]})
					j = len(s)
				case spec.flags == "*" || strings.Contains(spec.flags, ch):
					opts = append(opts, opt{ch, ""})
				default:
					return opts, i, false
				}
			}
		}
	}
	return opts, len(args), true
}

// withOptions is a wrapper that runs its operands after its options.
func withOptions(spec optSpec) handler {
	return func(args []word, _ ctx) unwrap {
		_, i, ok := options(args, spec)
		if !ok {
			return unwrap{scan: true}
		}
		return runs(args[i:])
	}
}

func timeoutCmd(args []word, _ ctx) unwrap {
	_, i, ok := options(args, optSpec{
		arg: "sk", flags: "fv",
		long:     []string{"signal", "kill-after"},
		longFlag: []string{"foreground", "preserve-status", "verbose"},
	})
	if !ok || i >= len(args) || !args[i].static {
		return unwrap{scan: true}
	}
	return runs(args[i+1:]) // after the duration
}

func timeCmd(args []word, _ ctx) unwrap {
	opts, i, ok := options(args, optSpec{
		arg: "fo", flags: "apqv",
		long:     []string{"format", "output"},
		longFlag: []string{"append", "portability", "quiet", "verbose"},
	})
	if !ok {
		return unwrap{scan: true}
	}
	u := runs(args[i:])
	if out, ok := hasOpt(opts, "o", "--output"); ok {
		u.opaque = "time -o writes to " + out
	}
	return u
}

func commandCmd(args []word, _ ctx) unwrap {
	opts, i, ok := options(args, optSpec{flags: "pvV"})
	if !ok {
		return unwrap{scan: true}
	}
	if _, lookup := hasOpt(opts, "v", "V"); lookup {
		return unwrap{} // command -v only looks the name up
	}
	return runs(args[i:])
}

func execCmd(args []word, c ctx) unwrap {
	_, i, ok := options(args, optSpec{arg: "a", flags: "cl"})
	if !ok {
		return unwrap{scan: true}
	}
	if i >= len(args) {
		if c.inputHere {
			return unwrap{unsure: "exec changes the standard input of the commands after it"}
		}
		return unwrap{}
	}
	return runs(args[i:])
}

// skipAssignments returns the index of the first word after NAME=value
// words (env and sudo take them before the command).
func skipAssignments(args []word, u *unwrap) int {
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !w.static {
			return i
		}
		name, _, ok := strings.Cut(w.text, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t\n/") || strings.HasPrefix(name, "-") {
			return i
		}
		if dangerousVar(name) {
			u.unsure = fmt.Sprintf("it sets %s, which bash can run as code", name)
		}
	}
	return i
}

func envCmd(args []word, _ ctx) unwrap {
	var u unwrap
	opts, i, ok := options(args, optSpec{
		arg: "uCSPa", flags: "i0v",
		long:     []string{"unset", "chdir", "split-string", "argv0"},
		longFlag: []string{"ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"},
	})
	if !ok {
		return unwrap{scan: true}
	}
	if i < len(args) && args[i].static && args[i].text == "-" {
		i++ // env - is env -i
	}
	if s, split := hasOpt(opts, "S", "--split-string"); split {
		// env -S splits a string into the command and its first
		// arguments, much as the shell would.
		u.scripts = append(u.scripts, lit(s))
		u.opaque = "env -S runs a command from a string"
	}
	i += skipAssignments(args[i:], &u)
	if i < len(args) {
		u.cmds = [][]word{args[i:]}
	}
	return u
}

func sudoCmd(args []word, _ ctx) unwrap {
	opts, i, ok := options(args, optSpec{
		arg: "CDgprRtTUu", flags: "AbBEeHiKklNnPSsVv",
		long: []string{"close-from", "chdir", "group", "host", "prompt", "role", "type",
			"command-timeout", "other-user", "user", "chroot"},
		longFlag: []string{"askpass", "background", "bell", "preserve-env", "preserve-groups", "edit",
			"help", "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive",
			"set-home", "shell", "stdin", "validate", "version"},
	})
	if !ok {
		return unwrap{scan: true}
	}
	if _, edit := hasOpt(opts, "e", "--edit"); edit {
		return unwrap{opaque: "sudo -e edits files as another user"}
	}
	var u unwrap
	i += skipAssignments(args[i:], &u)
	if i < len(args) {
		u.cmds = [][]word{args[i:]}
	} else if _, sh := hasOpt(opts, "s", "i", "--shell", "--login"); sh {
		u.stdin = true
	}
	return u
}

func doasCmd(args []word, _ ctx) unwrap {
	opts, i, ok := options(args, optSpec{arg: "uC", flags: "nsL"})
	if !ok {
		return unwrap{scan: true}
	}
	if i < len(args) {
		return runs(args[i:])
	}
	if _, sh := hasOpt(opts, "s"); sh {
		return unwrap{stdin: true}
	}
	return unwrap{}
}

func xargsCmd(args []word, _ ctx) unwrap {
	opts, i, ok := options(args, optSpec{
		arg: "adEILnPs", optional: "eil", flags: "0oprtx",
		long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		longFlag: []string{"null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty",
			"show-limits", "eof", "replace", "max-lines"},
	})
	if !ok {
		return unwrap{scan: true}
	}
	repl := ""
	for _, o := range opts {
		switch o.name {
		case "I":
			repl = o.value
		case "i", "--replace":
			repl = o.value
			if repl == "" {
				repl = "{}"
			}
		}
	}
	inner := slices.Clone(args[i:])
	if len(inner) == 0 {
		inner = []word{lit("echo")} // xargs runs echo by default
	}
	if repl != "" {
		for k, w := range inner {
			if w.static && strings.Contains(w.text, repl) {
				inner[k] = replaced(w, repl, "$INPUT_LINE") // by each input line
			}
		}
	} else {
		inner = append(inner, word{src: "<arguments from standard input>", split: true})
	}
	return unwrap{cmds: [][]word{inner}}
}

// replaced returns a word whose occurrences of repl a command replaces
// with text known only at run time; the template shows them as v.
func replaced(w word, repl, v string) word {
	prefix, _, _ := strings.Cut(w.text, repl)
	return word{src: w.src, prefix: prefix, tmpl: strings.ReplaceAll(w.text, repl, v)}
}

func findCmd(args []word, _ ctx) unwrap {
	var u unwrap
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static {
			u.scan = true // it might be -exec
			continue
		}
		switch w.text {
		case "-exec", "-execdir", "-ok", "-okdir":
			var inner []word
			j := i + 1
			for ; j < len(args); j++ {
				t := args[j]
				if t.static && (t.text == ";" || t.text == "+" && j > i+1 && args[j-1].static && args[j-1].text == "{}") {
					break
				}
				if t.static && strings.Contains(t.text, "{}") {
					t = replaced(t, "{}", "$FOUND_FILE") // by each file name
				}
				inner = append(inner, t)
			}
			if len(inner) > 0 {
				u.cmds = append(u.cmds, inner)
			}
			i = j
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			u.opaque = fmt.Sprintf("find %s changes files", w.text)
		}
	}
	return u
}

func watchCmd(args []word, _ ctx) unwrap {
	opts, i, ok := options(args, optSpec{
		arg: "nqs", optional: "d", flags: "bcCegprtwx",
		long: []string{"interval", "equexit", "shotsdir"},
		longFlag: []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "precise",
			"no-rerun", "no-title", "no-wrap", "no-linewrap", "exec"},
	})
	if !ok {
		return unwrap{scan: true}
	}
	if i >= len(args) {
		return unwrap{}
	}
	if _, exec := hasOpt(opts, "x", "--exec"); exec {
		return runs(args[i:])
	}
	return unwrap{scripts: []word{joinWords(args[i:])}} // watch runs sh -c "$*"
}

// joinWords joins words with spaces, as eval and watch do.
func joinWords(ws []word) word {
	out := word{static: true}
	text, src := make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		out.static = out.static && w.static
		text[i], src[i] = w.text, w.src
	}
	out.src = strings.Join(src, " ")
	if out.static {
		out.text = strings.Join(text, " ")
	}
	return out
}

func evalCmd(args []word, _ ctx) unwrap {
	if len(args) > 0 && args[0].static && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return unwrap{}
	}
	return unwrap{scripts: []word{joinWords(args)}}
}

// stdinPaths name standard input.
var stdinPaths = map[string]bool{"-": true, "/dev/stdin": true, "/dev/fd/0": true, "/proc/self/fd/0": true}

// programFile says what running the program in file f means: nothing to
// note for a plain file (like ./script, its content is not checked), a
// program on standard input, or one from a descriptor or device that
// cannot be checked.
func programFile(name string, f word) unwrap {
	switch {
	case !f.static:
		return unwrap{unsure: fmt.Sprintf("%s runs a file named only at run time (%s)", name, f.src)}
	case stdinPaths[f.text]:
		return unwrap{stdin: true}
	case specialFile(f.text):
		return unwrap{unsure: fmt.Sprintf("%s runs a program from %s", name, f.text)}
	}
	return unwrap{}
}

func sourceCmd(args []word, _ ctx) unwrap {
	if len(args) > 0 && args[0].static && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return unwrap{}
	}
	return programFile("source", args[0])
}

func shellCmd(name string) handler {
	return func(args []word, _ ctx) unwrap {
		spec := optSpec{arg: "oO", flags: "*", plus: true, anyLong: true, long: []string{"rcfile", "init-file"}}
		if name == "fish" {
			spec = optSpec{arg: "Cc", flags: "*", anyLong: true, long: []string{"command", "init-command"}}
		}
		opts, i, ok := options(args, spec)
		if !ok {
			return unwrap{unsure: fmt.Sprintf("%s's arguments are known only at run time (%s)", name, args[i].src)}
		}
		var u unwrap
		for _, o := range opts {
			switch {
			case o.name == "--command" || o.name == "--init-command" || name == "fish" && (o.name == "c" || o.name == "C"):
				u.scripts = append(u.scripts, lit(o.value))
			case (o.name == "--rcfile" || o.name == "--init-file") && specialFile(o.value):
				u.unsure = fmt.Sprintf("%s runs a program from %s", name, o.value)
			}
		}
		if name == "fish" && len(u.scripts) > 0 {
			return u
		}
		if _, c := hasOpt(opts, "c"); c {
			if i < len(args) {
				u.scripts = append(u.scripts, args[i]) // sh -c 'program' [name args…]
			}
			return u
		}
		if _, s := hasOpt(opts, "s", "i"); s || i >= len(args) {
			u.stdin = true
			return u
		}
		// A script file: like ./script, its content is not checked, and a
		// rule must name it (bash(bash scripts/test.sh)).
		f := programFile(name, args[i])
		u.stdin = f.stdin
		if f.unsure != "" {
			u.unsure = f.unsure
		}
		return u
	}
}

func trapCmd(args []word, _ ctx) unwrap {
	if len(args) > 0 && args[0].static && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		return unwrap{} // trap, trap -l, trap -p, trap SIG
	}
	if a := args[0]; a.static && (a.text == "-" || a.text == "" || strings.HasPrefix(a.text, "-")) {
		return unwrap{}
	}
	return unwrap{scripts: []word{args[0]}}
}

// mapfileCmd: mapfile -C callback runs the callback as a command.
func mapfileCmd(args []word, _ ctx) unwrap {
	opts, _, ok := options(args, optSpec{arg: "CcdnOsu", flags: "t"})
	if !ok {
		return unwrap{unsure: "mapfile's options are known only at run time"}
	}
	if cb, ok := hasOpt(opts, "C"); ok {
		return unwrap{scripts: []word{lit(cb)}}
	}
	return unwrap{}
}

// completeCmd: complete and compgen -C run a command.
func completeCmd(args []word, _ ctx) unwrap {
	opts, _, ok := options(args, optSpec{arg: "AoCFGPSWX", flags: "abcdefgjkprsuvDEI"})
	if !ok {
		return unwrap{unsure: "complete's options are known only at run time"}
	}
	if cmd, ok := hasOpt(opts, "C"); ok {
		return unwrap{scripts: []word{lit(cmd)}}
	}
	return unwrap{}
}

// redefines is for alias, hash and enable, which can change what a later
// command name runs.
func redefines(name string) handler {
	return func(args []word, _ ctx) unwrap {
		if len(args) == 0 {
			return unwrap{}
		}
		return unwrap{unsure: name + " can change what later commands run"}
	}
}

// stringRunner is for su -c, flock -c, script -c and sg: one of the
// arguments is a shell program.
func stringRunner(name string) handler {
	return func(args []word, _ ctx) unwrap {
		u := unwrap{scan: true}
		for _, w := range args {
			if !w.static {
				u.unsure = fmt.Sprintf("%s may run a program known only at run time (%s)", name, w.src)
				continue
			}
			u.maybeScripts = append(u.maybeScripts, w.text)
		}
		return u
	}
}
