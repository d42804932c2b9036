package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestTranslateRule: each form of Claude Code's rule syntax, as tackle's
// rules, or why it cannot be translated.
func TestTranslateRule(t *testing.T) {
	const ws, home = "/home/u/proj", "/home/u"
	for _, c := range []struct {
		claude string
		want   []string // tackle's rules; nil: not translated
		why    string
	}{
		// Bare tool names.
		{"Bash", []string{"bash"}, ""},
		{"Read", []string{"read_file"}, ""},
		{"Edit", []string{"edit_file"}, ""},
		{"MultiEdit", []string{"edit_file"}, ""},
		{"Write", []string{"write_file"}, ""},
		{"Glob", []string{"glob"}, ""},
		{"Grep", []string{"grep"}, ""},
		{"LS", []string{"list_dir"}, ""},
		{"Bash(*)", []string{"bash"}, ""},
		// Bash: the legacy prefix, a final *, exact commands.
		{"Bash(git push:*)", []string{"bash(git push *)"}, ""},
		{"Bash(cat:*)", []string{"bash(cat *)"}, ""},
		{"Bash(npm run test *)", []string{"bash(npm run test *)"}, ""},
		{"Bash(npm run test)", []string{"bash(npm run test)"}, ""},
		{"Bash(  go   test ./...  )", []string{"bash(go test ./...)"}, ""},
		{"Bash(rm -rf*)", []string{"bash(rm -rf* *)"}, ""},
		{"Bash(git push*)", []string{"bash(git push* *)"}, ""},
		{"Bash(ls [ab]?)", []string{`bash(ls \[ab\]\?)`}, ""},
		// What does not translate, and says why.
		{"Bash(git * main)", nil, "matches text across words"},
		{"Bash(* install)", nil, "matches text across words"},
		{"Bash(curl * | bash)", nil, "shell operators"},
		{"Bash(git diff && git push)", nil, "shell operators"},
		{"Bash(a*:*)", nil, "a * before :*"},
		{"Bash(command:git push)", nil, "a parameter rule"},
		{"Bash(npm run", nil, `missing the closing ")"`},
		// Paths, gitignore's way.
		{"Read(**/*secret*)", []string{"read_file(**/*secret*)"}, ""},
		{"Read(.env)", []string{"read_file(**/.env)"}, ""},
		{"Read(*.pem)", []string{"read_file(**/*.pem)"}, ""},
		{"Read(./.env)", []string{"read_file(.env)"}, ""},
		{"Read(src/**/*.ts)", []string{"read_file(src/**/*.ts)"}, ""},
		{"Edit(/src/**/*.ts)", []string{"edit_file(src/**/*.ts)"}, ""},
		{"Edit(docs/)", []string{"edit_file(**/docs/**)"}, ""}, // a trailing / alone does not anchor
		{"Edit(./docs/)", []string{"edit_file(docs/**)"}, ""},
		{"Write(secrets/**)", []string{"write_file(secrets/**)"}, ""},
		{"Read(//etc/passwd)", []string{"read_file(/etc/passwd)"}, ""},
		{"Read(~/.ssh/**)", []string{"read_file(/home/u/.ssh/**)"}, ""},
		{"Read(~/.aws/)", []string{"read_file(/home/u/.aws/**)"}, ""},
		// An absolute pattern into the workspace covers its files too.
		{"Edit(//home/u/proj/vendor/**)", []string{"edit_file(/home/u/proj/vendor/**)", "edit_file(vendor/**)"}, ""},
		{"Read(~/proj/.env)", []string{"read_file(/home/u/proj/.env)", "read_file(.env)"}, ""},
		{"Read(//home/*/proj/*.key)", []string{"read_file(/home/*/proj/*.key)", "read_file(*.key)"}, ""},
		{"Read(~/**/secret)", []string{"read_file(/home/u/**/secret)", "read_file(**/secret)"}, ""},
		{"Read(../other/x)", nil, "above the workspace"},
		// MCP tools.
		{"mcp__github__create_issue", []string{"mcp__github__create_issue"}, ""},
		{"mcp__github", []string{"mcp__github"}, ""},
		{"mcp__github__*", []string{"mcp__github__*"}, ""},
		{"mcp__github__create_issue(repo:x)", nil, "takes no pattern"},
		// WebFetch is fetch, its domains tackle's.
		{"WebFetch(domain:docs.rs)", []string{"fetch(domain:docs.rs)"}, ""},
		{"WebFetch(domain:*.Go.Dev)", []string{"fetch(domain:*.go.dev)"}, ""},
		{"WebFetch", []string{"fetch"}, ""},
		{"WebFetch(https://docs.rs/x)", nil, "a fetch rule names a host"},
		{"WebFetch(domain:*)", nil, "a host, or *. and a host"},
		// Tools tackle does not have.
		{"WebSearch", nil, "tackle has no WebSearch tool"},
		{"Task(explorer)", nil, "tackle has no Task tool"},
		{"NotebookEdit", nil, "tackle has no NotebookEdit tool"},
		{"Grep(src/**)", nil, "a Grep rule takes no pattern"},
	} {
		rules, err := TranslateRule(c.claude, ws, home)
		var got []string
		for _, r := range rules {
			got = append(got, r.String())
		}
		switch {
		case c.want == nil && (err == nil || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%s: %q, %v; want an error saying %q", c.claude, got, err, c.why)
		case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%s: %q, %v; want %q", c.claude, got, err, c.want)
		}
	}
}

// The translated rules do what the Claude rule says, through tackle's
// policy: the rules of the example among them.
func TestTranslatedRulesDecide(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"my_secret.txt", "config/secret.yaml", "main.go"} {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	src := Source{Path: "/p/.claude/settings.json", Settings: Settings{Permissions: &Permissions{
		Deny: []string{"Read(**/*secret*)", "Bash(cat:*)", "Bash(git push:*)"},
		Ask:  []string{"Bash(npm publish *)"},
	}}}
	tr := TranslatePermissions(src, ws, "/home/u")
	if len(tr.Notes) != 0 {
		t.Fatalf("notes: %q", tr.Notes)
	}
	w, err := tools.OpenWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	p := approval.New(approval.Yolo, tools.NewRegistry(w), approval.WithWorkspace(ws), approval.WithPermissions(tr.Perms))
	for cmd, want := range map[string]string{
		`{"command":"cat main.go"}`:                          "skip",
		`{"command":"git push origin main"}`:                 "skip",
		`{"command":"git -C . push"}`:                        "skip",
		`{"command":"head my_secret.txt"}`:                   "skip", // the Read rule reaches bash too
		`{"command":"npm publish --tag beta"}`:               "pause",
		`{"command":"go test ./..."}`:                        "continue",
		`{"command":"echo $(cat /etc/hostname) >/dev/null"}`: "skip",
	} {
		got := p.Decide(bashCallArgs(cmd))
		if name := actionName(got.Action); name != want {
			t.Errorf("bash %s: %s (%q), want %s", cmd, name, got.Reason, want)
		}
	}
	for path, want := range map[string]bool{"my_secret.txt": false, "config/secret.yaml": false, "main.go": true} {
		if p.ReadAllowed(path) != want {
			t.Errorf("ReadAllowed(%s) = %v", path, !want)
		}
	}
	perms := p.Permissions()
	if perms[0].Origin != "/p/.claude/settings.json: permissions.deny[0] Read(**/*secret*)" || perms[0].Source != approval.FromClaude || perms[3].Effect() != "ask" {
		t.Errorf("permissions: %v", perms)
	}
}

// defaultMode becomes tackle's mode where tackle has one;
// additionalDirectories and the modes it has not are notes.
func TestTranslateModeAndDirectories(t *testing.T) {
	for mode, want := range map[string]approval.Mode{"default": approval.Default, "acceptEdits": approval.AcceptEdits, "plan": approval.Plan, "bypassPermissions": approval.Yolo} {
		tr := TranslatePermissions(Source{Path: "s.json", Settings: Settings{Permissions: &Permissions{DefaultMode: mode}}}, "/w", "/h")
		if tr.Mode != want || len(tr.Notes) != 0 {
			t.Errorf("%s: %q %q", mode, tr.Mode, tr.Notes)
		}
	}
	tr := TranslatePermissions(Source{Path: "s.json", Settings: Settings{Permissions: &Permissions{
		DefaultMode: "dontAsk", AdditionalDirectories: []string{"../docs"}, Allow: []string{"WebSearch", "Bash(go test:*)"},
	}}}, "/w", "/h")
	want := []string{
		"s.json: permissions.allow[0] WebSearch: not applied: tackle has no WebSearch tool",
		"s.json: permissions.additionalDirectories[0] ../docs: not applied: tackle's file tools reach only the workspace",
		"s.json: permissions.defaultMode dontAsk: not applied: tackle has no mode that refuses what no rule allows",
	}
	if tr.Mode != "" || len(tr.Notes) != len(want) || len(tr.Perms) != 1 {
		t.Fatalf("%+v", tr)
	}
	for i, w := range want {
		if !strings.HasPrefix(tr.Notes[i], w) {
			t.Errorf("note %d = %q, want %q…", i, tr.Notes[i], w)
		}
	}
	if tr := TranslatePermissions(Source{Path: "s.json", Settings: Settings{Permissions: &Permissions{DefaultMode: "auto"}}}, "/w", "/h"); len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "defaultMode auto: not applied") {
		t.Errorf("auto: %q", tr.Notes)
	}
}

func bashCallArgs(args string) chat.ToolCall {
	return chat.ToolCall{ID: "c", Name: "bash", Arguments: args}
}

func actionName(a hooks.PreToolAction) string {
	return map[hooks.PreToolAction]string{hooks.ToolContinue: "continue", hooks.ToolSkip: "skip", hooks.ToolPause: "pause"}[a]
}
