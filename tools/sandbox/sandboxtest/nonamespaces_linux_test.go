package sandboxtest_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

// A process started by StartWithoutNamespaces finds the sandbox at level
// landlock, and says why: the namespaces are refused. The process is this
// test binary again, which prints what its probe found.
func TestStartWithoutNamespaces(t *testing.T) {
	if os.Getenv("SANDBOXTEST_PROBE") == "1" {
		r := sandbox.Probe()
		fmt.Printf("level=%s reasons=%q\n", r.Level, r.Reasons)
		return
	}
	sandboxtest.Require(t, sandbox.LevelLandlock)
	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartWithoutNamespaces$")
	cmd.Env = append(os.Environ(), "SANDBOXTEST_PROBE=1")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := sandboxtest.StartWithoutNamespaces(cmd); err != nil {
		t.Skipf("cannot refuse namespaces here: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "level=landlock") || !strings.Contains(out.String(), "namespaces: ") {
		t.Errorf("want level landlock, namespaces refused:\n%s", out.String())
	}
}
