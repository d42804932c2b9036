package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMentionsFollowTheApprovalPolicy: @path attaches nothing a deny rule
// keeps from being read, or a protected file (a secret, .git, tackle's
// own config), however it is named (a link to it too); other files
// attach, and so do a file a deny rule keeps from being edited (not
// read) and a protected file an allow rule names exactly.
func TestMentionsFollowTheApprovalPolicy(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		"notes.md": "notes\n", "private/plan.txt": "plan\n", ".env": "TOKEN=x\n", ".git/config": "[core]\n",
		"docs/a.md": "a\n", "keys/id.pem": "k\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, ".env"), filepath.Join(ws, "env-link")); err != nil {
		t.Fatal(err)
	}
	env := environ{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "OPENAI_API_KEY=k", "TACKLE_MODEL=m", "PATH=/usr/bin:/bin"}
	h := wiredHarness(t, env, "-w", ws, "--deny", "read_file(private/**)", "--deny", "edit_file(docs/**)", "--allow", "write_file(keys/id.pem)", "-p", "x")
	defer h.Close()
	for path, refused := range map[string]string{
		"notes.md":         "",
		"private/plan.txt": "denies reading",
		".env":             "protected",
		"env-link":         "protected",
		".git/config":      "protected",
		"docs/a.md":        "",
		"keys/id.pem":      "",
		ws + "/.env":       "protected",
	} {
		m, err := h.ws.ReadMention(path, h.refuseMention)
		switch {
		case refused == "" && (err != nil || m.Text == ""):
			t.Errorf("@%s: %v, want it attached", path, err)
		case refused != "" && (err == nil || !strings.Contains(err.Error(), refused)):
			t.Errorf("@%s: %q, %v; want it refused (%s)", path, m.Text, err, refused)
		}
	}
}
