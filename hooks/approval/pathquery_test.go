package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestPathQueriesAgreeWithCalls: Protected(path) and ReadAllowed(path),
// given a path as the file tools resolve it, say what the policy decides
// for a real call of a file tool naming the path (as sent, links and all):
// a write_file that asks in yolo mode for a protected path, a read_file
// a deny rule skips; and a blanket approval holds back a write_file or
// edit_file of the path when it is protected (HeldBack). An allow rule
// naming a protected path exactly lets it through in all; with
// protection off nothing is protected.
func TestPathQueriesAgreeWithCalls(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeTreeTB(t, root, map[string]string{
		"notes.md": "n\n", "private/plan.txt": "p\n", ".env": "T=x\n", ".git/config": "[core]\n",
		"keys/id.pem": "k\n", "docs/a.md": "a\n",
	})
	writeTreeTB(t, home, map[string]string{".bashrc": "\n"})
	for link, target := range map[string]string{"env-link": ".env", "docs/git": "../.git", "docs/up": "../private"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	reg := registryOn(t, root)
	a, d, err := Rules{Allow: []string{"edit_file(keys/id.pem)"}, Deny: []string{"read_file(private/**)", "edit_file(docs/a.md)"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	sent := []string{
		"notes.md", "./notes.md", "private/plan.txt", "docs/up/plan.txt", ".env", "env-link", ".git/config", "docs/git/config",
		"docs/git/hooks/pre-commit", "keys/id.pem", "docs/a.md", "new/.env.local", root + "/.env", home + "/.bashrc", "/etc/hosts",
	}
	for _, off := range []bool{false, true} {
		p := New(Yolo, reg, WithRules(a, d), WithWorkspace(root), WithProtection(Protection{Home: home, Off: off}))
		protected, readable := 0, 0
		for _, s := range sent {
			info, _ := reg.Inspect(fileCall(tools.ReadFile, s))
			if len(info.Paths) != 1 {
				t.Fatalf("%s resolves to %v", s, info.Paths)
			}
			rel := info.Paths[0]
			write := p.Decide(fileCall(tools.WriteFile, s))
			if why := p.Protected(rel); (why != "") != (write.Action == pause) {
				t.Errorf("off %v: Protected(%s) = %q, but write_file %s: %s %q", off, rel, why, s, actionNames[write.Action], write.Reason)
			} else if why != "" {
				protected++
			}
			for _, tool := range []string{tools.WriteFile, tools.EditFile} {
				if held := p.HeldBack(fileCall(tool, s)); (held != "") != (p.Protected(rel) != "") {
					t.Errorf("off %v: HeldBack(%s %s) = %q, Protected(%s) = %q", off, tool, s, held, rel, p.Protected(rel))
				}
			}
			read := p.Decide(fileCall(tools.ReadFile, s))
			if ok := p.ReadAllowed(rel); ok != (read.Action != skip) {
				t.Errorf("ReadAllowed(%s) = %v, but read_file %s: %s %q", rel, ok, s, actionNames[read.Action], read.Reason)
			} else if ok {
				readable++
			}
		}
		// .env by name, by link and absolute; .git/config, and two files
		// of .git through a link; .env.local; ~/.bashrc; not keys/id.pem.
		if want := map[bool]int{false: 8, true: 0}[off]; protected != want {
			t.Errorf("off %v: %d paths protected, want %d", off, protected, want)
		}
		if want := len(sent) - 2; readable != want {
			t.Errorf("%d paths readable, want %d (all but the two in private/)", readable, want)
		}
	}
}

// TestPolicyJudgesTheArgumentsTheToolRuns: what the policy judges is what
// the tool's own decoding gives, so arguments shaped to show the policy
// one path or command and the tool another find no gap: a duplicate key
// (the last wins for both), a key in another case (the tool refuses the
// call; the policy judges the path anyway), a command hidden behind a
// harmless first one.
func TestPolicyJudgesTheArgumentsTheToolRuns(t *testing.T) {
	root := t.TempDir()
	reg := registryOn(t, root)
	a, d, err := Rules{Allow: []string{"bash(ls *)", "write_file(notes.md)"}, Deny: []string{"bash(rm *)", "read_file(.env)"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	// Default mode: what runs without asking is what the allow rules
	// cover.
	p := New(Default, reg, WithRules(a, d), WithWorkspace(root))
	for args, want := range map[string]hooks.PreToolAction{
		`{"path":"notes.md","path":".git/config","content":"x"}`: pause,
		`{"path":"notes.md","PATH":".git/config","content":"x"}`: pause,
		`{"PATH":".git/config","content":"x"}`:                   pause,
		`{"path":".git/config","path":"notes.md","content":"x"}`: cont,
	} {
		if got := p.Decide(chat.ToolCall{ID: "c", Name: tools.WriteFile, Arguments: args}); got.Action != want {
			t.Errorf("write_file %s: %s %q, want %s", args, actionNames[got.Action], got.Reason, actionNames[want])
		}
	}
	for args, want := range map[string]hooks.PreToolAction{
		`{"command":"ls","command":"rm -rf .git"}`:   skip,
		`{"command":"ls","COMMAND":"rm -rf .git"}`:   skip,
		`{"command":"rm -rf .git","command":"ls"}`:   cont,
		`{"path":"notes.md","path":".env"}`:          skip, // as read_file below
		`{"command":"ls","timeout_ms":"x"}`:          cont, // refused by the tool; read anyway
		`{"command":"rm -rf x","timeout_ms":"soon"}`: skip,
	} {
		name := tools.Bash
		if strings.Contains(args, "path") {
			name = tools.ReadFile
		}
		if got := p.Decide(chat.ToolCall{ID: "c", Name: name, Arguments: args}); got.Action != want {
			t.Errorf("%s %s: %s %q, want %s", name, args, actionNames[got.Action], got.Reason, actionNames[want])
		}
	}
}
