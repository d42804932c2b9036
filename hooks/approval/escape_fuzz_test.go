package approval

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The escape fuzz test builds shell programs from the command table's
// risky options and the forms issue 21 found walking around the parser
// (array-subscript traps, variables that change later commands, input
// redirects and brace/glob words reaching outside, protected paths behind
// non-static words, git config scopes, Go's profiling flags, sed and awk
// file names), each piece labelled with what it does independently of the
// policy, and asserts three things outside yolo:
//
//   - wide rules (bash(TOOL *), bash(TOOL SUB *) for every tool of the
//     program: what a user gets from "always", or more) never let a
//     program run unasked when a piece beyond the tool's own effect
//     writes, deletes, runs code, sends a file or reaches outside;
//   - with a sandbox and no rules, nothing dangerous at all runs unasked
//     (read-only programs only), in default, accept-edits and plan mode;
//   - a write to a protected path asks in every mode, yolo included.
//
// FuzzSandboxNoEscape (sandbox_fuzz_linux_test.go) runs programs of the
// same pieces in the sandbox and asserts that none gets out.

const dProtected danger = "writes a protected path"

// trapTools are the pieces of issue 21's classes.
var trapTools = []genTool{
	{name: "test", text: true, args: []genArg{{"-v x", harmless}, {"-f main.go", harmless}, {"-v 'x[$(touch pwned)]'", dRunsCode}, {"-v \"$n\"", dRunsCode}, {"-R 'x[$(id)]'", dRunsCode}}},
	{name: "printf", text: true, args: []genArg{{"'%s\\n' x", harmless}, {"-v out x", harmless}, {"-v PATH /tmp", dRunsCode}, {"-v 'x[$(id)]' x", dRunsCode}, {"-vIFS x", dRunsCode}}},
	{name: "read", text: true, args: []genArg{{"line", harmless}, {"PATH", dRunsCode}, {"-a 'x[$(id)]'", dRunsCode}}},
	{name: "export", text: true, args: []genArg{{"x=1", harmless}, {"GIT_CONFIG_COUNT=1", dRunsCode}, {"PATH=/tmp", dRunsCode}, {"LD_PRELOAD=./x.so", dRunsCode}}},
	{name: "env", text: true, args: []genArg{{"x=1", harmless}, {"GIT_CONFIG_COUNT=1", dRunsCode}, {"-C ..", dRunsCode}}},
	{name: "cat", args: []genArg{
		{"< README", harmless}, {"2>/dev/null", harmless}, {"src/{a,b}.go", harmless},
		{"< ../x", dOutside}, {"< ~/.ssh/id_rsa", dOutside}, {"< /proc/$PPID/environ", dOutside}, {"0< ../x", dOutside},
		{"{README,~/.ssh/id_rsa}", dOutside}, {"{a,../b}", dOutside}, {"/proc/*/environ", dOutside}, {"> out", dWrites},
	}},
	{name: "base64", args: []genArg{{"-w0", harmless}, {"< /proc/self/environ", dOutside}, {"< /proc/$PPID/environ", dOutside}}},
	{name: "git", subs: []string{"config"}, args: []genArg{
		{"user.name", harmless}, {"--system a.b c", dWrites}, {"-f x a.b c", dWrites},
		{"--global core.pager id", dWrites}, {"--file=x core.fsmonitor id", dWrites}, {"set core.pager id", dWrites}, {"edit", dRunsCode},
	}},
	{name: "gofmt", args: []genArg{{"-l", harmless}, {"-cpuprofile=x", dWrites}, {"-cpuprofile .git/config", dWrites}}},
	{name: "go", subs: []string{"vet", "list"}, args: []genArg{
		{"./...", harmless}, {"-json", harmless}, {"-debug-trace=x", dWrites}, {"-debug-actiongraph=x", dWrites}, {"-debug-runtime-trace=x", dWrites},
		{"-gcflags=-cpuprofile=x", dRunsCode}, {"-fix", dWrites}, {"-mod=mod", dWrites}, {"-memprofile x", dWrites},
	}},
	{name: "sed", lead: "-n -e p", args: []genArg{{"-e p", harmless}, {"-e 'r /etc/passwd'", dOutside}, {"-e 'R ../x'", dOutside}, {"-e 'w out'", dWrites}}},
	{name: "awk", lead: "-e '{print}'", args: []genArg{{"-F:", harmless}, {`-e 'BEGIN{ARGV[1]="/etc/passwd";ARGC=2}'`, dOutside}, {"-v ARGC=3", dOutside}}},
	{name: "tee", base: dWrites, args: []genArg{
		{"out.txt", harmless}, {".git/confi{g,g}", dProtected}, {".gi?/config", dProtected}, {".[g]it/hooks/pre-commit", dProtected},
		{".tackl?/config.json", dProtected}, {"~/.bash{rc,_profile}", dProtected},
	}},
	{name: "rm", base: dDeletes, args: []genArg{{"-rf build", harmless}, {"-rf {.git,x}", dProtected}, {"-rf .*", dProtected}}},
	{name: "echo", text: true, args: []genArg{{"x", harmless}, {"> .gi?/config", dProtected}, {">> .[g]it/config", dProtected}, {"> out", dWrites}}},
}

// escapeTools is the grammar: the always fuzz test's tools and the traps.
var escapeTools = append(append([]genTool(nil), genTools...), trapTools...)

// escapeProgram builds a program of 1 to 3 commands of escapeTools.
func (r *genReader) escapeProgram() (string, []genCmd, []genPick) {
	var b strings.Builder
	var cmds []genCmd
	var picks []genPick
	for n := 1 + r.pick(3); n > 0; n-- {
		t := r.pick(len(escapeTools))
		sub := ""
		if s := escapeTools[t].subs; len(s) > 0 {
			sub = s[r.pick(len(s))]
		}
		if b.Len() > 0 {
			b.WriteString(genJoins[r.pick(len(genJoins))])
		}
		c := r.command(escapeTools[t], sub)
		cmds = append(cmds, c)
		picks = append(picks, genPick{t, sub})
		b.WriteString(c.text)
	}
	return b.String(), cmds, picks
}

// wideRules are bash(TOOL *) and bash(TOOL SUB *) for the tools picked.
func wideRules(picks []genPick) []string {
	var rules []string
	for _, p := range picks {
		t := escapeTools[p.tool]
		rules = append(rules, "bash("+escapeGlob(t.name, "*?[\\")+" *)")
		if p.sub != "" {
			rules = append(rules, "bash("+t.name+" "+p.sub+" *)")
		}
	}
	return rules
}

// risky reports a piece beyond the tool's own effect (base): what a rule
// naming the tool must not cover.
func (c genCmd) risky(base danger) bool {
	for _, d := range c.dangers {
		if d != base {
			return true
		}
	}
	return false
}

func (c genCmd) has(d danger) bool {
	for _, x := range c.dangers {
		if x == d {
			return true
		}
	}
	return false
}

// checkEscape decides one program under the three oracles.
func checkEscape(t *testing.T, root, prog string, cmds []genCmd, picks []genPick) {
	t.Helper()
	call := bashCall(prog)
	protect := WithProtection(Protection{Home: "/home/u"})
	risky, dangerous, protected := false, false, false
	for i, c := range cmds {
		risky = risky || c.risky(escapeTools[picks[i].tool].base)
		dangerous = dangerous || c.dangerous()
		protected = protected || c.has(dProtected)
	}
	if risky {
		a, d, err := Rules{Allow: wideRules(picks)}.Parse()
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []Mode{Default, AcceptEdits} {
			p := New(mode, inspector{}, WithRules(a, d), WithWorkspace(root), protect, WithSandbox(true))
			if got := p.Decide(call); got.Action == cont {
				t.Errorf("%s, rules %v: %q runs unasked (%q); its pieces %v", mode, wideRules(picks), prog, got.Reason, cmds)
			}
		}
	}
	if dangerous {
		for _, mode := range []Mode{Default, AcceptEdits, Plan} {
			p := New(mode, inspector{}, WithWorkspace(root), protect, WithSandbox(true))
			if got := p.Decide(call); got.Action == cont {
				t.Errorf("%s with a sandbox: %q runs unasked as read-only (%q); its pieces %v", mode, prog, got.Reason, cmds)
			}
		}
	}
	if protected {
		p := New(Yolo, inspector{}, WithWorkspace(root), protect)
		if got := p.Decide(call); got.Action == cont {
			t.Errorf("yolo: %q writes a protected path unasked (%q); its pieces %v", prog, got.Reason, cmds)
		}
	}
}

func FuzzNoEscape(f *testing.F) {
	root := f.TempDir()
	for _, seed := range []string{"", "\x01\x02\x03", "\xff\x10\x20\x30\x40", "\x05\x45\x11\x02\x03\x04\x05\x06"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &genReader{b: data}
		prog, cmds, picks := r.escapeProgram()
		checkEscape(t, root, prog, cmds, picks)
	})
}

// TestNoEscape runs the escape oracles over programs from a fixed seed, so
// that every test run (not only fuzzing) covers a few thousand, and checks
// that the grammar is not vacuous: it makes programs of each kind, and
// harmless ones that do run.
func TestNoEscape(t *testing.T) {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 9))
	n := 3000
	if testing.Short() {
		n = 300
	}
	var risky, dangerous, protected, ran int
	for range n {
		data := make([]byte, 24)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		r := &genReader{b: data}
		prog, cmds, picks := r.escapeProgram()
		checkEscape(t, root, prog, cmds, picks)
		d := false
		for i, c := range cmds {
			if c.risky(escapeTools[picks[i].tool].base) {
				risky++
			}
			if c.has(dProtected) {
				protected++
			}
			d = d || c.dangerous()
		}
		if d {
			dangerous++
		} else if New(Default, inspector{}, WithWorkspace(root), WithSandbox(true)).Decide(bashCall(prog)).Action == cont {
			ran++
		}
	}
	if risky < n/4 || dangerous < n/3 || protected < n/50 || ran < n/20 {
		t.Errorf("the grammar made %d risky, %d dangerous, %d protected and %d harmless programs that ran, of %d: too few to mean much", risky, dangerous, protected, ran, n)
	}
}
