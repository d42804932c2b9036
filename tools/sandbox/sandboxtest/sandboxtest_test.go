package sandboxtest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

// This test binary is another package's: it is the launcher of the
// commands it sandboxes, under -race too.
func TestAnotherPackageRunsCommandsInTheSandbox(t *testing.T) {
	r := sandboxtest.Require(t, sandbox.LevelLandlock)
	ws := t.TempDir()
	git := filepath.Join(ws, ".git")
	if err := os.MkdirAll(git, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := sandboxtest.Policy(t, ws)
	p.Protected = []string{git}
	var out bytes.Buffer
	cmd := exec.Command("bash", "-c", `echo made > made; echo x >> .git/config; cat /proc/$PPID/environ; echo done`)
	cmd.Dir = ws
	cmd.Stdout, cmd.Stderr = &out, &out
	proc, err := sandbox.Start(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if proc.Level() != r.Level {
		t.Errorf("level %s, the probe says %s", proc.Level(), r.Level)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "made")); err != nil || string(b) != "made\n" {
		t.Errorf("write in the workspace: %q, %v\n%s", b, err, out.String())
	}
	if strings.Contains(out.String(), "PATH=") || !strings.Contains(out.String(), "done") {
		t.Errorf("the test process's environment was read, or the command did not finish:\n%s", out.String())
	}
	b, _ := os.ReadFile(filepath.Join(git, "config"))
	changed := proc.Changed()
	switch r.Level {
	case sandbox.LevelFull:
		if string(b) != "[core]\n" || len(changed) > 0 {
			t.Errorf(".git/config %q, Changed %q: want it read-only", b, changed)
		}
	case sandbox.LevelLandlock:
		if !slices.Contains(changed, filepath.Join(git, "config")) {
			t.Errorf("Changed %q, want .git/config", changed)
		}
	}
}
