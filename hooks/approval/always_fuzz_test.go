package approval

import (
	"slices"
	"strings"
	"testing"
)

// The "always" fuzz test builds shell programs from a grammar whose
// pieces carry what they do, independently of the policy: each command is
// a tool (and subcommand), options and paths, some harmless, some that
// write files, delete, run code or name a path outside the workspace.
// For a random program A it approves A "always" (Remember), then builds a
// program B from the same tools with other arguments, and checks that the
// rules remembered for A never let B run a command that does any of those
// things unless A ran exactly that command.

// danger is what a piece of the grammar does, as the grammar knows it.
type danger string

const (
	harmless   danger = ""
	dWrites    danger = "writes"
	dDeletes   danger = "deletes"
	dRunsCode  danger = "runs code"
	dOutside   danger = "names a path outside the workspace"
	dSendsFile danger = "uploads a file"
)

// genArg is one argument (perhaps several words) and what it does.
type genArg struct {
	text string
	d    danger
}

// genTool is a command of the grammar.
type genTool struct {
	name   string
	lead   string   // words always first (grep's -e pattern, so that paths are operands)
	subs   []string // one is picked; "" for none
	base   danger   // what it does whatever its arguments
	text   bool     // its arguments are not files (echo)
	args   []genArg
	global []genArg // options before the subcommand
}

var (
	insidePaths  = []genArg{{"main.go", harmless}, {"src/x.go", harmless}, {"build", harmless}, {"'*.go'", harmless}, {"docs/", harmless}}
	outsidePaths = []genArg{{"../x", dOutside}, {"/etc/passwd", dOutside}, {"~/x", dOutside}, {"$HOME/.ssh/id_rsa", dOutside}, {"src/../../x", dOutside}, {"$F", dOutside}}
)

var genTools = []genTool{
	{name: "ls", args: []genArg{{"-la", harmless}, {"-1", harmless}}},
	{name: "cat", args: []genArg{{"-n", harmless}}},
	{name: "head", args: []genArg{{"-n 5", harmless}, {"-c1", harmless}}},
	{name: "grep", lead: "-e TODO", args: []genArg{{"-rn", harmless}, {"-e x", harmless}}},
	{name: "echo", text: true, args: []genArg{{"hello", harmless}, {"$HOME", harmless}, {"-n", harmless}}},
	{name: "wc", args: []genArg{{"-l", harmless}}},
	{name: "sort", args: []genArg{{"-n", harmless}, {"-o out", dWrites}, {"--output=out", dWrites}, {"--compress-program=sh", dRunsCode}, {"-no out", dWrites}}},
	{name: "sed", lead: "-e p", args: []genArg{
		{"-n", harmless}, {"-e 's/a/b/g'", harmless}, {"-e 1,5p", harmless}, {"-e p", harmless}, {"--expression=p", harmless},
		{"-i", dWrites}, {"--in-place", dWrites}, {"-i.bak", dWrites}, {"-e 'e id'", dRunsCode}, {"-e 'w out'", dWrites}, {"-e 's/a/b/w out'", dWrites},
		{"-e 's/x/id/e'", dRunsCode}, {"-f s.sed", dRunsCode}, {"-e '1e id'", dRunsCode}, {"--expression='W out'", dWrites}, {"-ni", dWrites},
		{"-es/x/id/e", dRunsCode}, {"--in-pl", dWrites},
	}},
	{name: "awk", lead: "-e '{print $1}'", args: []genArg{
		{"-e 'NR>1'", harmless}, {"-F:", harmless}, {"-v x=1", harmless},
		{`-e 'BEGIN{system("id")}'`, dRunsCode}, {`-e '{print > "f"}'`, dWrites}, {`-e '{print | "sh"}'`, dRunsCode}, {"-f p.awk", dRunsCode},
		{`-e 'BEGIN{"id" | getline}'`, dRunsCode}, {"-i inc", dRunsCode}, {`--source='BEGIN{system("id")}'`, dRunsCode}, {"-l ext", dRunsCode},
	}},
	{name: "git", subs: []string{"status", "log", "diff", "show"},
		global: []genArg{{"-c core.pager=id", dRunsCode}, {"-C ../other", dOutside}, {"--exec-path=/tmp", dRunsCode}, {"--no-pager", harmless}},
		args:   []genArg{{"--oneline", harmless}, {"-5", harmless}, {"HEAD", harmless}, {"--output=x", dWrites}, {"--output ../x", dWrites}, {"--ext-diff", dRunsCode}, {"--textconv", dRunsCode}, {"--outp=x", dWrites}}},
	{name: "git", subs: []string{"config"}, args: []genArg{{"user.name", harmless}, {"core.fsmonitor id", dRunsCode}, {"--add alias.x '!id'", dRunsCode}, {"-e", dRunsCode}}},
	{name: "go", subs: []string{"version", "list", "vet"}, args: []genArg{{"./...", harmless}, {"-json", harmless}, {"-toolexec=id", dRunsCode}, {"-vettool=/tmp/x", dRunsCode}, {"-o ../x", dWrites}, {"-exec id", dRunsCode}}},
	{name: "go", subs: []string{"env"}, args: []genArg{{"GOPATH", harmless}, {"-json", harmless}, {"-w GOFLAGS=-x", dWrites}, {"-u GOFLAGS", dWrites}}},
	{name: "go", subs: []string{"test", "run", "generate", "build"}, base: dRunsCode, args: []genArg{{"./...", harmless}, {"-v", harmless}}},
	{name: "gofmt", args: []genArg{{"-l", harmless}, {"-d", harmless}, {"-w", dWrites}}},
	{name: "find", args: []genArg{{".", harmless}, {"-name x", harmless}, {"-exec id ';'", dRunsCode}, {"-delete", dDeletes}, {"-fprint out", dWrites}, {"-execdir id +", dRunsCode}}},
	{name: "tar", lead: "xzf a.tgz", base: dWrites}, // old-style options come first
	{name: "tar", args: []genArg{{"-tf a.tar", harmless}, {"-xf a.tar", dWrites}, {"--to-command=sh", dRunsCode}, {"-I sh", dRunsCode}, {"-cf out.tar", dWrites}, {"--checkpoint-action=exec=id", dRunsCode}}},
	{name: "curl", args: []genArg{{"-s", harmless}, {"https://example.com", harmless}, {"-o x", dWrites}, {"-O", dWrites}, {"-K cfg", dRunsCode}, {"-T .env", dSendsFile}, {"-d @.env", dSendsFile}, {"--output-dir d", dWrites}}},
	{name: "python3", base: dRunsCode, args: []genArg{{"x.py", harmless}, {"-c 'import os'", dRunsCode}, {"-m http.server", dRunsCode}}},
	{name: "node", base: dRunsCode, args: []genArg{{"x.js", harmless}, {"-e 1", dRunsCode}}},
	{name: "perl", base: dRunsCode, args: []genArg{{"x.pl", harmless}, {"-e 1", dRunsCode}, {"-i", dWrites}}},
	{name: "make", base: dRunsCode, args: []genArg{{"all", harmless}, {"-j4", harmless}}},
	{name: "rm", base: dDeletes, args: []genArg{{"-rf", harmless}, {"-f", harmless}}},
	{name: "cp", base: dWrites, args: []genArg{{"-r", harmless}}},
	{name: "touch", base: dWrites},
	{name: "tee", base: dWrites, args: []genArg{{"-a", harmless}}},
	{name: "dd", args: []genArg{{"if=in", harmless}, {"bs=1", harmless}, {"of=out", dWrites}, {"of=../x", dWrites}}},
	{name: "mytool", args: []genArg{{"build", harmless}, {"-v", harmless}}},
	{name: "./run.sh", base: dRunsCode, args: []genArg{{"--fast", harmless}}},
}

// genReader hands out choices from the fuzz input; past its end every
// choice is 0.
type genReader struct {
	b []byte
	i int
}

func (r *genReader) pick(n int) int {
	if n <= 1 {
		return 0
	}
	if r.i >= len(r.b) {
		return 0
	}
	v := int(r.b[r.i])
	r.i++
	return v % n
}

// genCmd is a generated command and what it does.
type genCmd struct {
	text    string
	dangers []danger
}

func (c genCmd) dangerous() bool { return len(c.dangers) > 0 }

// command builds one command of tool t (sub, when it has subcommands).
func (r *genReader) command(t genTool, sub string) genCmd {
	c := genCmd{}
	words := []string{t.name}
	add := func(d danger) {
		if d != harmless && !slices.Contains(c.dangers, d) {
			c.dangers = append(c.dangers, d)
		}
	}
	add(t.base)
	if len(t.subs) > 0 {
		if len(t.global) > 0 && r.pick(3) == 0 {
			g := t.global[r.pick(len(t.global))]
			words = append(words, g.text)
			add(g.d)
		}
		words = append(words, sub)
	}
	if t.lead != "" {
		words = append(words, t.lead)
	}
	for n := r.pick(4); n > 0; n-- {
		var a genArg
		switch k := r.pick(6); {
		case k < 3 && len(t.args) > 0:
			a = t.args[r.pick(len(t.args))]
		case k < 5:
			a = insidePaths[r.pick(len(insidePaths))]
		default:
			a = outsidePaths[r.pick(len(outsidePaths))]
			if t.text {
				a.d = harmless // echo ../x does not touch ../x
			}
		}
		words = append(words, r.quote(a.text))
		add(a.d)
	}
	c.text = strings.Join(words, " ")
	return c
}

// quote sometimes quotes a one-word argument, which must not change what
// the policy sees.
func (r *genReader) quote(s string) string {
	if strings.ContainsAny(s, " '\"$\\*~?[{<>") {
		return s
	}
	switch r.pick(4) {
	case 0:
		return "'" + s + "'"
	case 1:
		return `"` + s + `"`
	}
	return s
}

var genJoins = []string{" && ", "; ", " | ", " || ", "\n"}

// program builds a program of 1 to 3 commands; with like set, of the same
// tools and subcommands as like's, in order.
func (r *genReader) program(like []genPick) (string, []genCmd, []genPick) {
	var picks []genPick
	if like != nil {
		picks = like
	} else {
		for n := 1 + r.pick(3); n > 0; n-- {
			t := r.pick(len(genTools))
			sub := ""
			if s := genTools[t].subs; len(s) > 0 {
				sub = s[r.pick(len(s))]
			}
			picks = append(picks, genPick{t, sub})
		}
	}
	var cmds []genCmd
	var b strings.Builder
	for i, p := range picks {
		if i > 0 {
			b.WriteString(genJoins[r.pick(len(genJoins))])
		}
		c := r.command(genTools[p.tool], p.sub)
		cmds = append(cmds, c)
		b.WriteString(c.text)
	}
	return b.String(), cmds, picks
}

type genPick struct {
	tool int
	sub  string
}

func FuzzAlwaysRule(f *testing.F) {
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &genReader{b: data}
		a, aCmds, picks := r.program(nil)
		p := New(Default, inspector{}, WithWorkspace(root), WithProtection(Protection{Home: "/home/u"}))
		p.Remember(bashCall(a))
		rules := p.SessionRules()
		for _, rule := range rules {
			if rule == "bash" || strings.HasPrefix(rule, "bash(*") {
				t.Fatalf("%q: remembered %s", a, rule)
			}
		}
		// No remembered rule covers a dangerous command of A itself: such
		// a command is approved once.
		for _, c := range aCmds {
			if got := p.Decide(bashCall(c.text)); c.dangerous() && got.Action == cont {
				t.Errorf("after approving %q always (rules %v), its command %q (%v) runs without asking", a, rules, c.text, c.dangers)
			}
		}
		// B: the same tools with other arguments, several times.
		for range 4 {
			b, bCmds, _ := r.program(picks)
			got := p.Decide(bashCall(b))
			if got.Action != cont {
				continue
			}
			for _, c := range bCmds {
				if !c.dangerous() {
					continue
				}
				same := slices.ContainsFunc(aCmds, func(ac genCmd) bool { return ac.text == c.text })
				if !same {
					t.Errorf("after approving %q always (rules %v), %q ran without asking, and %q %v", a, rules, b, c.text, c.dangers)
				}
			}
		}
	})
}

// TestAlwaysRuleGrammar checks the fuzz grammar's own labels against a few
// decisions, so that the fuzz test's oracle is not vacuous: approving a
// harmless read "always" lets the same read with other harmless words
// run, and never a dangerous one.
func TestAlwaysRuleGrammar(t *testing.T) {
	root := t.TempDir()
	allowed, refused := 0, 0
	for _, tool := range genTools {
		subs := tool.subs
		if len(subs) == 0 {
			subs = []string{""}
		}
		for _, sub := range subs {
			r := &genReader{}
			c := r.command(tool, sub) // no arguments
			p := New(Default, inspector{}, WithWorkspace(root), WithProtection(Protection{Home: "/home/u"}))
			p.Remember(bashCall(c.text))
			for _, a := range append(slices.Clone(tool.args), append(insidePaths, outsidePaths...)...) {
				cmd := c.text + " " + a.text
				d := a.d
				if tool.text && d == dOutside {
					d = harmless
				}
				got := p.Decide(bashCall(cmd))
				switch {
				case got.Action == cont && (d != harmless || tool.base != harmless):
					t.Errorf("after %q always, %q (%s) runs: %q", c.text, cmd, d, got.Reason)
				case got.Action == cont:
					allowed++
				default:
					refused++
				}
			}
		}
	}
	if allowed < 30 || refused < 60 {
		t.Errorf("the grammar allowed %d and refused %d programs: too few to mean much", allowed, refused)
	}
}
