package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestModeByKind(t *testing.T) {
	calls := map[string]chat.ToolCall{
		"read":    fileCall("read_file", "main.go"),
		"list":    fileCall("list_dir", ""),
		"edit":    fileCall("edit_file", "main.go"),
		"write":   fileCall("write_file", "new.go"),
		"bash":    bashCall("go test ./..."),
		"unknown": {ID: "c", Name: "deploy", Arguments: `{"env":"prod"}`},
	}
	want := map[Mode]map[string]hooks.PreToolAction{
		Default:     {"read": cont, "list": cont, "edit": pause, "write": pause, "bash": pause, "unknown": pause},
		AcceptEdits: {"read": cont, "list": cont, "edit": cont, "write": cont, "bash": pause, "unknown": pause},
		Yolo:        {"read": cont, "list": cont, "edit": cont, "write": cont, "bash": cont, "unknown": cont},
		Plan:        {"read": cont, "list": cont, "edit": skip, "write": skip, "bash": skip, "unknown": skip},
		"bogus":     {"read": cont, "list": cont, "edit": pause, "write": pause, "bash": pause, "unknown": pause},
	}
	for mode, byCall := range want {
		p := New(mode, inspector{})
		for name, call := range calls {
			if got := p.Decide(call); got.Action != byCall[name] {
				t.Errorf("mode %s, %s: got %s (%q), want %s", mode, name, actionNames[got.Action], got.Reason, actionNames[byCall[name]])
			}
		}
	}
}

func TestPauseReasons(t *testing.T) {
	p := New(Default, inspector{})
	for call, want := range map[*chat.ToolCall]string{
		ptr(fileCall("edit_file", "main.go")):                           "edit_file wants to change main.go",
		ptr(fileCall("write_file", "docs/new.md")):                      "write_file wants to change docs/new.md",
		ptr(bashCall("go test ./...\n  && rm -rf x")):                   "bash wants to run: go test ./... && rm -rf x",
		{Name: "deploy", Arguments: `{"env":"prod"}`}:                   `deploy wants to run with {"env":"prod"}`,
		{Name: "bash", Arguments: `not json`}:                           "bash wants to run with not json — its arguments have no command",
		ptr(bashCall(strings.Repeat("echo 日本語 ", 40))):                  "…",
		{Name: "edit_file", Arguments: `{"path":"a.go","path":"b.go"}`}: "edit_file wants to change b.go",
	} {
		got := p.Decide(*call)
		if got.Action != pause || !strings.Contains(got.Reason, want) {
			t.Errorf("%s %s: got %s %q, want Pause containing %q", call.Name, call.Arguments, actionNames[got.Action], got.Reason, want)
		}
	}
	// With allow rules, the reason says what they do not cover.
	p = mustPolicy(t, Default, []string{"bash(go test *)"}, nil)
	got := p.Decide(bashCall("go test ./... && rm -rf x"))
	if want := "bash wants to run: go test ./... && rm -rf x — rm is not covered by an allow rule"; got.Reason != want {
		t.Errorf("reason %q, want %q", got.Reason, want)
	}
}

func ptr[T any](v T) *T { return &v }

func TestPlanMode(t *testing.T) {
	p := mustPolicy(t, Plan, []string{"edit_file", "bash(go test *)"}, []string{"bash(rm *)"})
	got := p.Decide(fileCall("edit_file", "main.go"))
	want := "plan mode is read-only: edit_file was not run (edit_file wants to change main.go). Describe the change in your plan instead."
	if got.Action != skip || got.Reason != want {
		t.Errorf("edit in plan mode: got %s %q, want Skip %q", actionNames[got.Action], got.Reason, want)
	}
	// Allow rules do not lift plan mode.
	if got := p.Decide(bashCall("go test ./...")); got.Action != skip || !strings.Contains(got.Reason, "plan mode is read-only: bash was not run (bash wants to run: go test ./...)") {
		t.Errorf("allowed bash in plan mode: got %s %q", actionNames[got.Action], got.Reason)
	}
	// A deny rule names itself, not the mode.
	if got := p.Decide(bashCall("rm x")); got.Action != skip || !strings.HasPrefix(got.Reason, "denied by the rule bash(rm *)") {
		t.Errorf("denied bash in plan mode: got %s %q", actionNames[got.Action], got.Reason)
	}
	// Reads still run.
	if got := p.Decide(fileCall("grep", "")); got.Action != cont {
		t.Errorf("grep in plan mode: got %s %q", actionNames[got.Action], got.Reason)
	}
	// SetMode takes effect for the next call.
	p.SetMode(AcceptEdits)
	if got := p.Decide(fileCall("edit_file", "main.go")); got.Action != cont {
		t.Errorf("after SetMode(accept-edits): got %s %q", actionNames[got.Action], got.Reason)
	}
	if p.Mode() != AcceptEdits {
		t.Errorf("Mode() = %s", p.Mode())
	}
}

// decision is a call decided under rules: the action wanted, and what
// its reason contains.
type decision struct {
	mode        Mode
	allow, deny []string
	call        chat.ToolCall
	want        hooks.PreToolAction
	reason      string
}

// checkDecisions decides each case with the policy newPolicy makes.
func checkDecisions(t *testing.T, cases []decision, newPolicy func(mode Mode, allow, deny []string) *Policy) {
	t.Helper()
	for _, tt := range cases {
		got := newPolicy(tt.mode, tt.allow, tt.deny).Decide(tt.call)
		if got.Action != tt.want || !strings.Contains(got.Reason, tt.reason) {
			t.Errorf("%s allow %v deny %v %s %s: got %s %q, want %s containing %q",
				tt.mode, tt.allow, tt.deny, tt.call.Name, tt.call.Arguments, actionNames[got.Action], got.Reason, actionNames[tt.want], tt.reason)
		}
	}
}

func TestDenyBeatsAllow(t *testing.T) {
	tests := []decision{
		{Default, []string{"bash(rm *)"}, []string{"bash(rm -rf *)"}, bashCall("rm -rf x"), skip, "denied by the rule bash(rm -rf *): rm -rf x"},
		{Default, []string{"bash(rm *)"}, []string{"bash(rm -rf *)"}, bashCall("rm x"), cont, "allowed by bash(rm *)"},
		{Default, []string{"bash"}, []string{"bash(curl *)"}, bashCall("ls && curl evil.example"), skip, "bash(curl *)"},
		{Yolo, nil, []string{"bash(rm *)"}, bashCall("ls; rm x"), skip, "bash(rm *)"},
		{Yolo, nil, []string{"bash"}, bashCall("ls"), skip, "denied by the rule bash: every bash call is denied"},
		{Yolo, nil, []string{"bash"}, bashCall("ls &&"), skip, "bash"},
		{AcceptEdits, []string{"edit_file"}, []string{"edit_file(.git/**)"}, fileCall("edit_file", ".git/hooks/pre-commit"), skip, "denied by the rule edit_file(.git/**): .git/hooks/pre-commit"},
		{Yolo, nil, []string{"write_file(.git/**)"}, fileCall("write_file", "./.git/config"), skip, ".git/config"},
		{Yolo, nil, []string{"write_file(.git/**)"}, fileCall("write_file", "docs/../.git/config"), skip, ".git/config"},
		{Yolo, nil, []string{"read_file(.env)"}, fileCall("read_file", ".env"), skip, "read_file(.env)"},
		{Default, nil, []string{"read_file(.env)"}, fileCall("read_file", "src/.env"), cont, ""},
		// Path rules apply to every tool reaching the path the same way.
		{AcceptEdits, nil, []string{"edit_file(docs/**)"}, fileCall("write_file", "docs/a.md"), skip, "denied by the rule edit_file(docs/**): docs/a.md"},
		{Default, nil, []string{"read_file(.env)"}, fileCall("grep", ".env"), skip, "denied by the rule read_file(.env): .env"},
		{Default, nil, []string{"read_file(.env)"}, fileCall("edit_file", ".env"), skip, "read_file(.env)"}, // its result shows the file
		{Default, nil, []string{"read_file(.env)"}, fileCall("list_dir", ".env"), cont, ""},                 // names only
		{Default, nil, []string{"read_file(.env)"}, fileCall("write_file", ".env"), pause, ""},              // writing is not reading
		{Default, nil, []string{"read_file"}, fileCall("grep", "x"), skip, "every read_file call is denied, and grep reaches files the same way"},
		// A bare allow rule covers every call, even ones no pattern could.
		{Default, []string{"bash"}, nil, bashCall("echo $(date) > out"), cont, "allowed by bash"},
	}
	checkDecisions(t, tests, func(mode Mode, allow, deny []string) *Policy { return mustPolicy(t, mode, allow, deny) })
}

func TestPathRules(t *testing.T) {
	const root = "/work/ws"
	links := map[string]string{"docs/link/x": ".git/x", "docs/alias.md": "docs/real.md"}
	resolve := func(c chat.ToolCall) []string {
		var args struct{ Path string }
		_ = json.Unmarshal([]byte(c.Arguments), &args)
		if r, ok := links[args.Path]; ok {
			return []string{r}
		}
		return nil
	}
	p := mustPolicy(t, Default, []string{"edit_file(docs/**)", "write_file(*.md)", "read_file(./notes/)"}, []string{"edit_file(.git/**)"},
		WithWorkspace(root), withLinks(resolve))
	tests := []struct {
		call chat.ToolCall
		want hooks.PreToolAction
	}{
		{fileCall("edit_file", "docs/a.md"), cont},
		{fileCall("edit_file", "docs/sub/deep/b.md"), cont},
		{fileCall("edit_file", "./docs/a.md"), cont},
		{fileCall("edit_file", root+"/docs/a.md"), cont},
		{fileCall("edit_file", "/elsewhere/docs/a.md"), pause},
		{fileCall("edit_file", "docs/../main.go"), pause},
		{fileCall("edit_file", "main.go"), pause},
		{fileCall("edit_file", "docsx/a.md"), pause},
		{fileCall("edit_file", "docs/alias.md"), cont}, // resolves inside docs
		{fileCall("edit_file", "docs/link/x"), skip},   // resolves into .git
		{fileCall("edit_file", root+"/.git/config"), skip},
		{fileCall("write_file", "README.md"), cont},
		{fileCall("write_file", "src/README.md"), pause}, // * does not cross /
		{fileCall("write_file", "docs/README.md"), cont}, // edit_file(docs/**): the same access
		{fileCall("read_file", "notes/a/b.txt"), cont},
		{fileCall("bash", "docs/a.md"), pause}, // a path rule is not a bash rule
	}
	for _, tt := range tests {
		if got := p.Decide(tt.call); got.Action != tt.want {
			t.Errorf("%s %s: got %s %q, want %s", tt.call.Name, tt.call.Arguments, actionNames[got.Action], got.Reason, actionNames[tt.want])
		}
	}
	// Without a workspace root, an absolute path matches no relative rule.
	p = mustPolicy(t, Default, []string{"edit_file(docs/**)"}, nil)
	if got := p.Decide(fileCall("edit_file", root+"/docs/a.md")); got.Action != pause {
		t.Errorf("absolute path without a root: got %s", actionNames[got.Action])
	}
}

func TestParseRule(t *testing.T) {
	good := map[string]Rule{
		"bash":                     {Tool: "bash"},
		"  bash  ":                 {Tool: "bash"},
		"bash(go test *)":          {Tool: "bash", Pattern: "go test *"},
		" bash(  go   test  * ) ":  {Tool: "bash", Pattern: "go test *"},
		"bash(git status)":         {Tool: "bash", Pattern: "git status"},
		"bash(*)":                  {Tool: "bash", Pattern: "*"},
		"edit_file(docs/**)":       {Tool: "edit_file", Pattern: "docs/**"},
		"edit_file(./docs/**)":     {Tool: "edit_file", Pattern: "docs/**"},
		"edit_file(docs/)":         {Tool: "edit_file", Pattern: "docs/**"},
		"read_file(My Notes/*.md)": {Tool: "read_file", Pattern: "My Notes/*.md"},
		"write_file(*.{go,md})":    {Tool: "write_file", Pattern: "*.{go,md}"},
		"mcp__gh__create_issue":    {Tool: "mcp__gh__create_issue"},
		"bash(echo (a))":           {Tool: "bash", Pattern: "echo (a)"},
	}
	for src, want := range good {
		got, err := ParseRule(src)
		if err != nil || got != want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v", src, got, err, want)
			continue
		}
		if again, err := ParseRule(got.String()); err != nil || again != got {
			t.Errorf("ParseRule(%q.String()) = %+v, %v", src, again, err)
		}
	}
	bad := map[string]string{
		"":                      "the rule is empty",
		"   ":                   "the rule is empty",
		"(go test *)":           "missing the tool name",
		"bash(go test *":        `missing the closing ")"`,
		"bash)":                 `")" without "("`,
		"bash(go test *))":      `text after the closing ")"`,
		"bash(x) y":             `text after the closing ")"`,
		"bash((x)":              "unbalanced parentheses",
		"bash()":                "the pattern in () is empty (write bash alone",
		"bash(   )":             "the pattern in () is empty",
		"Bash(rm *)":            "tool names are lower case (did you mean bash?)",
		"ba sh":                 `"ba sh" is not a tool name`,
		"bash(ls [)":            `bad glob "["`,
		"edit_file(docs/[)":     "bad path glob",
		"1bash":                 "is not a tool name",
		"bash(go test *)(more)": `text after the closing ")"`,
	}
	for src, want := range bad {
		_, err := ParseRule(src)
		if err == nil || !errors.Is(err, ErrBadRule) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRule(%q) error = %v, want ErrBadRule containing %q", src, err, want)
		}
	}
}

func TestRulesParse(t *testing.T) {
	allow, deny, err := Rules{Allow: []string{"bash(go test *)", "read_file"}, Deny: []string{"bash(rm *)"}}.Parse()
	if err != nil || len(allow) != 2 || len(deny) != 1 || deny[0].String() != "bash(rm *)" {
		t.Fatalf("Parse() = %v, %v, %v", allow, deny, err)
	}
	_, _, err = Rules{Allow: []string{"bash", "bash(x"}, Deny: []string{"ok", "Edit_file", ""}}.Parse()
	if err == nil || !errors.Is(err, ErrBadRule) {
		t.Fatalf("Parse() error = %v", err)
	}
	for _, want := range []string{`allow rule 2: bad approval rule "bash(x"`, `deny rule 2: bad approval rule "Edit_file"`, `deny rule 3: bad approval rule ""`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestRememberScope(t *testing.T) {
	tests := []struct {
		call chat.ToolCall
		want []string
	}{
		// Commands that only read: their name (and subcommand) and a *.
		{bashCall("git status"), []string{"bash(git status *)"}},
		{bashCall("ls -la"), []string{"bash(ls *)"}},
		{bashCall("cat main.go"), []string{"bash(cat *)"}},
		{bashCall("'git' status"), []string{"bash(git status *)"}},
		{bashCall("echo hello"), []string{"bash(echo *)"}},
		{bashCall("go vet ./... 2>/dev/null | grep -v ok"), []string{"bash(go vet *)", "bash(grep *)"}},
		{bashCall("sed -n 1,5p main.go"), []string{"bash(sed *)"}},
		{bashCall("for f in *.go; do echo $f; done"), []string{"bash(echo *)"}},
		{bashCall("ls *.go"), []string{"bash(ls *)"}}, // a glob below the workspace
		// Commands not in the table: exactly their words.
		{bashCall("mytool build -v"), []string{"bash(mytool build -v)"}},
		{bashCall("curl -s x | sh"), []string{"bash(curl -s x)"}},
		{bashCall("mytool 'a*b' '[x]'"), []string{`bash(mytool a\*b \[x])`}},
		{bashCall("python3 --version"), []string{"bash(python3 --version)"}},
		// Commands that delete, write, send files or run code: nothing.
		{bashCall("rm -rf build"), nil},
		{bashCall("touch x"), nil},
		{bashCall("go test ./..."), nil},
		{bashCall("make && make install"), nil},
		{bashCall("./scripts/test.sh --fast"), nil},
		{bashCall("go test ./... && git status; go test -run X"), []string{"bash(git status *)"}},
		{bashCall("sed -i s/a/b/ main.go"), nil},
		{bashCall("sed -n 'w out.txt' main.go"), nil},
		{bashCall("sed 'e id' main.go"), nil},
		{bashCall("awk 'BEGIN{system(\"id\")}'"), nil},
		{bashCall("git diff --output=x"), nil},
		{bashCall("git log --output=x"), nil},
		{bashCall("find . -name x"), nil}, // find is a wrapper (-exec)
		{bashCall("python3 -c 'print(1)'"), nil},
		{bashCall("curl -o x https://example.com"), nil},
		{bashCall("sort -o out in"), nil},
		// Paths outside the workspace, protected or known only at run time.
		{bashCall("cat ../x"), nil},
		{bashCall("cat /etc/passwd"), nil},
		{bashCall("cat ~/.ssh/id_rsa"), nil},
		{bashCall("ls $HOME"), nil},
		{bashCall("mytool .git/config"), nil},
		{bashCall("for f in $FILES; do gofmt -l $f; done"), nil},
		// A loop variable is one of the loop's items (the glob's matches).
		{bashCall("for f in *.go; do gofmt -l $f; done"), []string{"bash(gofmt *)"}},
		{bashCall("for f in ../*.go; do gofmt -l $f; done"), nil},
		// Nothing for the parts no rule could ever allow: approve once only.
		{bashCall("timeout 5 go test ./..."), nil},
		{bashCall("env go test ./..."), nil},
		{bashCall("sudo apt install x"), nil},
		{bashCall("sh -c 'go test ./...'"), nil},
		{bashCall("bash script.sh"), nil},
		{bashCall("eval ls"), nil},
		{bashCall("echo $(rm -rf x)"), nil},
		{bashCall("go test $(go list ./...)"), nil},
		{bashCall("(cd sub && go test ./...)"), nil},
		{bashCall("go test ./... > out.txt"), nil},
		{bashCall("go test ./... > out.txt; ls"), []string{"bash(ls *)"}},
		{bashCall("GOFLAGS=-v go test ./..."), nil},
		{bashCall("$CMD x"), nil},
		{bashCall("find . -exec rm {} +"), nil},
		{bashCall("'*' x"), nil},
		{bashCall("go test ./... &&"), nil},
		{bashCall("# nothing"), nil},
		{chat.ToolCall{Name: "bash", Arguments: "{}"}, nil},
		// File tools: exactly the path.
		{fileCall("edit_file", "main.go"), []string{"edit_file(main.go)"}},
		{fileCall("write_file", "./docs/a[1].md"), []string{`write_file(docs/a\[1\].md)`}},
		{fileCall("edit_file", ".git/config"), nil},
		{fileCall("write_file", ".env"), nil},
		{fileCall("read_file", "main.go"), []string{"read_file(main.go)"}},
		// Other tools: the tool when the call has no arguments.
		{chat.ToolCall{Name: "deploy", Arguments: "{}"}, []string{"deploy"}},
		{chat.ToolCall{Name: "deploy", Arguments: `{"env":"prod"}`}, nil},
	}
	for _, tt := range tests {
		p := New(Default, inspector{})
		var got []string
		for _, r := range p.AlwaysRules(tt.call) {
			got = append(got, r.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("AlwaysRules(%s %s) = %q, want %q", tt.call.Name, tt.call.Arguments, got, tt.want)
		}
		// Remember adds them only when together they cover the whole call.
		covers := p.decideWith(tt.call, nil, p.AlwaysRules(tt.call), "").Action == cont && len(tt.want) > 0
		p.Remember(tt.call)
		if got := p.SessionRules(); covers && !slices.Equal(got, tt.want) || !covers && len(got) > 0 {
			t.Errorf("Remember(%s %s): session rules %q; want %q when they cover the call (they cover it: %v)", tt.call.Name, tt.call.Arguments, got, tt.want, covers)
		}
		for _, r := range p.SessionRules() {
			if r == "bash(*)" || r == "bash" || strings.HasPrefix(r, "bash(*") {
				t.Errorf("Remember(%s) produced %s", tt.call.Arguments, r)
			}
		}
		// What is remembered covers the call it was made for.
		if len(tt.want) > 0 && tt.call.Name == ShellTool {
			if got := p.Decide(tt.call); got.Action != cont && !strings.Contains(tt.call.Arguments, "|") && !strings.Contains(tt.call.Arguments, "&") && !strings.Contains(tt.call.Arguments, ";") {
				t.Errorf("Remember(%s) does not cover the call: %s %q", tt.call.Arguments, actionNames[got.Action], got.Reason)
			}
		}
	}
}

func TestRememberThenDecide(t *testing.T) {
	p := mustPolicy(t, Default, nil, []string{"bash(git push *)", "edit_file(.git/**)"})
	p.Remember(bashCall("git status"))
	p.Remember(bashCall("git status")) // no duplicate
	p.Remember(fileCall("edit_file", "main.go"))
	if got, want := p.SessionRules(), []string{"bash(git status *)", "edit_file(main.go)"}; !slices.Equal(got, want) {
		t.Fatalf("session rules %q, want %q", got, want)
	}
	tests := []struct {
		call   chat.ToolCall
		want   hooks.PreToolAction
		reason string
	}{
		{bashCall("git status --short"), cont, "allowed by bash(git status *)"},
		{bashCall("git log"), pause, "git is not covered by an allow rule"},
		{bashCall("git status && rm -rf x"), pause, "rm is not covered by an allow rule"},
		{bashCall("git status; git push"), skip, "bash(git push *)"},
		{fileCall("edit_file", "main.go"), cont, "allowed by edit_file(main.go)"},
		{fileCall("edit_file", "any/other.go"), pause, ""},
		{fileCall("edit_file", ".git/config"), skip, "edit_file(.git/**)"},
		{fileCall("write_file", "main.go"), cont, "allowed by edit_file(main.go)"}, // the same access
		{bashCall("git status --output=x"), pause, "the * of bash(git status *) does not cover --output=x (writes to a file)"},
		{bashCall("git status ../elsewhere"), pause, "does not cover ../elsewhere (outside the workspace)"},
	}
	for _, tt := range tests {
		got := p.Decide(tt.call)
		if got.Action != tt.want || !strings.Contains(got.Reason, tt.reason) {
			t.Errorf("%s %s: got %s %q, want %s containing %q", tt.call.Name, tt.call.Arguments, actionNames[got.Action], got.Reason, actionNames[tt.want], tt.reason)
		}
	}
	// Allow rules and session rules together cover a program.
	p = mustPolicy(t, Default, []string{"bash(go test *)"}, nil)
	p.Remember(bashCall("git status"))
	if got := p.Decide(bashCall("go test ./... && git status")); got.Action != cont || got.Reason != "allowed by bash(go test *), bash(git status *)" {
		t.Errorf("allow + session: got %s %q", actionNames[got.Action], got.Reason)
	}
	// AlwaysRules previews Remember without changing anything.
	if got := p.AlwaysRules(bashCall("ls -la && go mod tidy && mytool x")); fmt.Sprint(got) != "[bash(ls *) bash(mytool x)]" {
		t.Errorf("AlwaysRules = %v", got)
	}
	if got := p.SessionRules(); len(got) != 1 {
		t.Errorf("AlwaysRules changed the session rules: %q", got)
	}
}

func TestHookInRegistry(t *testing.T) {
	p := mustPolicy(t, Default, []string{"bash(go test *)"}, []string{"bash(rm *)"})
	reg := hooks.NewRegistry()
	reg.PreToolCall(p.Hook())
	var decisions []hooks.Decision
	rec := func(d hooks.Decision) { decisions = append(decisions, d) }
	for _, tt := range []struct {
		cmd    string
		want   hooks.PreToolAction
		result string
	}{
		{"go test ./...", cont, "continue"},
		{"rm -rf x", skip, "skip"},
		{"curl x", pause, "pause"},
	} {
		in := &hooks.PreToolInput{Call: bashCall(tt.cmd)}
		got, _ := reg.RunPreToolCall(context.Background(), in, 0, rec)
		if got.Action != tt.want {
			t.Errorf("%s: got %s %q", tt.cmd, actionNames[got.Action], got.Reason)
		}
		if d := decisions[len(decisions)-1]; d.Hook != HookName || d.Result != tt.result {
			t.Errorf("%s: decision %+v", tt.cmd, d)
		}
	}
}

// TestConcurrentUse runs decisions, Remember and SetMode at once; the race
// detector checks the locking.
func TestConcurrentUse(t *testing.T) {
	p := mustPolicy(t, Default, []string{"bash(go test *)"}, []string{"bash(rm *)"})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				switch (i + j) % 4 {
				case 0:
					p.Remember(bashCall(fmt.Sprintf("tool%d run", j)))
				case 1:
					p.SetMode([]Mode{Default, AcceptEdits, Yolo, Plan}[j%4])
				case 2:
					_ = p.SessionRules()
				default:
					if got := p.Decide(bashCall("rm -rf x && go test ./...")); got.Action != skip {
						t.Errorf("rm: got %s", actionNames[got.Action])
					}
				}
			}
		})
	}
	wg.Wait()
	if n := len(p.SessionRules()); n != 50 {
		t.Errorf("%d session rules, want 50", n)
	}
}
