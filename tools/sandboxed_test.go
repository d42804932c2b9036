package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

// sandboxedRegistry is a registry whose bash runs in the sandbox at
// level, on a workspace holding a repository, with outside (a directory
// outside the workspace) and secret (a hidden one) next to it.
func sandboxedRegistry(t *testing.T, level sandbox.Level) (r *Registry, ws, outside, secret string) {
	t.Helper()
	sandboxtest.Require(t, level)
	base := t.TempDir()
	ws, secret = filepath.Join(base, "ws"), filepath.Join(base, "secret")
	// Outside the workspace and outside /tmp, which the sandbox replaces
	// with its own: a write there is refused, not missing.
	outside, err := os.MkdirTemp("/var/tmp", "tackle-test-")
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), outside, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, ws, ".git/config", "[core]\n")
	writeFile(t, secret, "id_ed25519", "PRIVATE KEY\n")
	var w *Workspace
	s, rep := NewSandbox(sandbox.Policy{Workspace: ws, TempDir: t.TempDir(), Hidden: []string{secret}, MaxLevel: level},
		WithRepositories(NewRepositories(ws)))
	if s == nil || s.Level() != level {
		t.Fatalf("sandbox at %s: %v", level, rep)
	}
	w, err = OpenWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return NewRegistry(w, WithSandbox(s)), ws, outside, secret
}

// The bash tool's commands run in the sandbox: a write in the workspace
// works; a write outside, a read of a hidden secret and a change of
// .git/config fail, and the model is told how to ask for more; a call
// approved to run outside the sandbox writes outside.
func TestBashRunsInTheSandbox(t *testing.T) {
	for _, level := range []sandbox.Level{sandbox.LevelFull, sandbox.LevelLandlock} {
		t.Run(level.String(), func(t *testing.T) {
			t.Parallel()
			r, ws, outside, secret := sandboxedRegistry(t, level)
			wantOK(t, call(t, r, Bash, BashArgs{Command: "echo made > made.txt"}))
			if b, _ := os.ReadFile(filepath.Join(ws, "made.txt")); string(b) != "made\n" {
				t.Errorf("a write in the workspace: %q", b)
			}
			res := call(t, r, Bash, BashArgs{Command: "echo x > " + filepath.Join(outside, "out.txt")})
			wantError(t, res, `"outside_sandbox": true`, "the user is asked")
			if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
				t.Error("a write outside the workspace landed")
			}
			res = call(t, r, Bash, BashArgs{Command: "cat " + filepath.Join(secret, "id_ed25519")})
			if strings.Contains(res.Content, "PRIVATE KEY") {
				t.Errorf("a hidden secret was read: %s", res.Content)
			}
			res = call(t, r, Bash, BashArgs{Command: "echo '[core] fsmonitor = evil' >> .git/config"})
			if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); level == sandbox.LevelFull && string(b) != "[core]\n" {
				t.Errorf(".git/config changed at level full: %q (%s)", b, res.Content)
			}
			if level == sandbox.LevelLandlock && !strings.Contains(res.Content, "changed protected paths") {
				t.Errorf("a change of .git/config at level landlock is not reported: %s", res.Content)
			}
			wantOK(t, call(t, r, Bash, BashArgs{Command: "echo x > " + filepath.Join(outside, "out.txt"), OutsideSandbox: true}))
			if _, err := os.Stat(filepath.Join(outside, "out.txt")); err != nil {
				t.Errorf("a call approved to run outside the sandbox did not write: %v", err)
			}
		})
	}
}
