package slash

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExpand(t *testing.T) {
	c := Command{Name: "fix", Body: "Fix issue #$1 in $2 ($ARGUMENTS); $3 is empty."}
	for args, want := range map[string]string{
		`123 "src/a b.go"`: `Fix issue #123 in src/a b.go (123 "src/a b.go");  is empty.`,
		"":                 "Fix issue # in  ();  is empty.",
		// A placeholder typed as an argument is not expanded again.
		"$2 $ARGUMENTS": "Fix issue #$2 in $ARGUMENTS ($2 $ARGUMENTS);  is empty.",
	} {
		if got := c.Expand(args); got != want {
			t.Errorf("Expand(%q) = %q, want %q", args, got, want)
		}
	}
	plain := Command{Name: "review", Body: "Review the diff."}
	if got := plain.Expand("  focus on tests "); got != "Review the diff.\n\nARGUMENTS: focus on tests" {
		t.Errorf("no placeholders: %q", got)
	}
	if got := plain.Expand(""); got != "Review the diff." {
		t.Errorf("no placeholders, no args: %q", got)
	}
	if got := Words(`a 'b c' "d'e" f`); !slices.Equal(got, []string{"a", "b c", "d'e", "f"}) {
		t.Errorf("Words: %q", got)
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "review.md"), "---\ndescription: Review the change\nargument-hint: [focus]\nmodel: gpt-4.1\nallowed-tools:\n  - bash(git diff *)\n  - read_file\n---\nReview the diff. Focus: $ARGUMENTS\n")
	write(t, filepath.Join(dir, "frontend", "Component.md"), "# Make a component\nCreate the component $1.\n")
	write(t, filepath.Join(dir, "frontend", "notes.txt"), "not a command")
	write(t, filepath.Join(dir, "a", "b", "c", "d", "deep.md"), "too deep")
	write(t, filepath.Join(dir, "bad name.md"), "x")
	write(t, filepath.Join(dir, "all.md"), "---\nallowed-tools: bash, write_file(docs/**)\n---\nDo anything.\n")
	write(t, filepath.Join(dir, "empty.md"), "---\ndescription: nothing\n---\n")
	write(t, filepath.Join(dir, "huge.md"), strings.Repeat("x", MaxFile+1))
	secret := filepath.Join(t.TempDir(), "secret.md")
	write(t, secret, "the secret")
	if err := os.Symlink(secret, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	cmds, err := LoadDir(Dir{Path: dir, Format: Tackle, Scope: "user"}, "/w", "/h")
	if err == nil || !strings.Contains(err.Error(), `"bad name"`) || !strings.Contains(err.Error(), "empty.md: the prompt is empty") || !strings.Contains(err.Error(), "huge.md is larger than 64 KiB") {
		t.Errorf("errors: %v", err)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"all", "frontend:component", "review"}) {
		t.Fatalf("commands: %q", names)
	}
	r := cmds[2]
	if r.Description != "Review the change" || r.ArgumentHint != "[focus]" || r.Model != "gpt-4.1" || r.Scope != "user" ||
		len(r.Allowed) != 2 || r.Allowed[0].String() != "bash(git diff *)" || r.Allowed[1].String() != "read_file" || r.Usage() != "/review [focus]" {
		t.Errorf("review: %+v", r)
	}
	if c := cmds[1]; c.Description != "Make a component" || c.Expand("Button") != "# Make a component\nCreate the component Button." {
		t.Errorf("component: %+v", c)
	}
	// A rule letting every command run is not taken; the others are.
	if a := cmds[0]; len(a.Allowed) != 1 || a.Allowed[0].String() != "write_file(docs/**)" || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "allowing every shell command") {
		t.Errorf("all: %+v", a)
	}
	// A missing directory has none.
	if cmds, err := LoadDir(Dir{Path: filepath.Join(dir, "none")}, "/w", "/h"); err != nil || len(cmds) != 0 {
		t.Errorf("missing: %v %v", cmds, err)
	}
}

func TestClaudeCommandFile(t *testing.T) {
	c, err := Parse("/p/.claude/commands/commit.md", "commit", []byte("---\nallowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*), Read(./docs/**), WebSearch\nargument-hint: [message]\ndescription: Create a git commit\nmodel: sonnet\n---\n## Context\n\nCommit with message: $ARGUMENTS\n"), Claude, "/p", "/h")
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, r := range c.Allowed {
		rules = append(rules, r.String())
	}
	if !slices.Equal(rules, []string{"bash(git add *)", "bash(git status *)", "bash(git commit *)", "read_file(docs/**)"}) {
		t.Errorf("allowed: %q", rules)
	}
	if c.Model != "" || len(c.Notes) != 2 || !strings.Contains(c.Notes[0], `model "sonnet"`) || !strings.Contains(c.Notes[1], "WebSearch: not applied") {
		t.Errorf("notes: %q, model %q", c.Notes, c.Model)
	}
	c, err = Parse("/p/x.md", "x", []byte("---\nargument-hint: [pr-number] [priority] [assignee]\nallowed-tools: Bash\n---\nx\n"), Claude, "/p", "/h")
	if err != nil || c.ArgumentHint != "[pr-number] [priority] [assignee]" || len(c.Allowed) != 0 || len(c.Notes) != 1 {
		t.Errorf("%+v, %v", c, err)
	}
}

func TestFind(t *testing.T) {
	cmds := []Command{{Name: "review"}, {Name: "frontend:component"}}
	for line, want := range map[string][2]string{
		"/review":                         {"review", ""},
		"/Review  focus on tests ":        {"review", "focus on tests"},
		"/frontend:component Button\nnew": {"frontend:component", "Button\nnew"},
	} {
		c, args, ok := Find(cmds, line)
		if !ok || c.Name != want[0] || args != want[1] {
			t.Errorf("Find(%q) = %q %q %v", line, c.Name, args, ok)
		}
	}
	for _, line := range []string{"review", "/reviews", "/", "/etc/hosts"} {
		if _, _, ok := Find(cmds, line); ok {
			t.Errorf("Find(%q) found one", line)
		}
	}
}
