//go:build linux

package child_test

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/child"
	"github.com/tackle-dev/tackle/tools/child/childtest"
)

// TestKillGroupReachesGrandchildren: what the child started dies with it.
func TestKillGroupReachesGrandchildren(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	child.SetGroup(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild, _ := strconv.Atoi(strings.TrimSpace(line))
	if alive := childtest.GroupAlive(t, cmd.Process.Pid); len(alive) != 2 {
		t.Fatalf("group %d before the kill: %v, want the shell and sleep %d", cmd.Process.Pid, alive, grandchild)
	}
	gone := childtest.ExitWatch(t, grandchild)
	child.KillGroup(cmd.Process)
	cmd.Wait()
	gone()
	if alive := childtest.GroupAlive(t, cmd.Process.Pid); len(alive) != 0 {
		t.Errorf("group %d after the kill: %v alive", cmd.Process.Pid, alive)
	}
}
