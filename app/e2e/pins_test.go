package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// A configured hook that imports a package of the workspace (python3 -m
// guardlib) runs at every call: its own run writes no bytecode next to
// the package (PYTHONDONTWRITEBYTECODE), which would change what tackle
// pinned at start and stop the hooks after their first run.
func TestE2EPinnedHookRunsEveryTime(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	e := newE2E(t, "pins_two_reads.json")
	log := filepath.Join(e.home, "guard.log")
	e.file("a.txt", "a\n")
	e.file("guardlib/__init__.py", "")
	e.file("guardlib/policy.py", "def check():\n    open("+quotePy(log)+", 'a').write('ran\\n')\n")
	e.file("guardlib/__main__.py", "import sys, json\nfrom guardlib import policy\njson.load(sys.stdin)\npolicy.check()\nprint('{\"action\": \"continue\"}')\n")
	e.config(`{"hooks": {"pre_tool_call": [{"name": "guard", "command": ["python3", "-m", "guardlib"]}]}}`)
	r := e.run("-p", "read it twice")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(log)
	if got := strings.Count(string(b), "ran\n"); got != 2 || strings.Contains(r.stderr, "no longer start") {
		t.Errorf("the hook ran %d times, want 2; stderr:\n%s", got, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "guardlib", "__pycache__")); err == nil {
		t.Error("the hook wrote bytecode into the workspace's package")
	}
}

func quotePy(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
