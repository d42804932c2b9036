//go:build linux

package process_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/tools/child/childtest"
)

func (f *fixture) serverPid() int {
	f.t.Helper()
	starts := f.startLines()
	if len(starts) == 0 {
		f.t.Fatal("the server did not start")
	}
	_, rest, _ := strings.Cut(starts[len(starts)-1], "pid=")
	pid, _ := strconv.Atoi(strings.Fields(rest)[0])
	return pid
}

// TestKillLeavesNoProcess: Kill (a second interrupt) kills the server and
// what it started at once, even a server that ignores hook.shutdown.
func TestKillLeavesNoProcess(t *testing.T) {
	childFile := t.TempDir() + "/child"
	f := serve(t, process.Spec{}, map[string]string{"HOOKSERVER_CHILD": childFile, "HOOKSERVER_STUBBORN": "1"})
	pid := f.serverPid()
	b, err := os.ReadFile(childFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	exited, serverExited := childtest.ExitWatch(t, child), childtest.ExitWatch(t, pid)
	f.set.Kill()
	// Kill does not wait: the group was sent SIGKILL, and both die a
	// moment later.
	exited()
	serverExited()
	if alive := childtest.GroupAlive(t, pid); len(alive) != 0 || childtest.PidAlive(child) {
		t.Errorf("after Kill, group %d has %v alive; child %d alive: %v", pid, alive, child, childtest.PidAlive(child))
	}
}

func TestShutdownLeavesNoProcess(t *testing.T) {
	for _, stubborn := range []string{"0", "1"} {
		t.Run("stubborn="+stubborn, func(t *testing.T) {
			childFile := t.TempDir() + "/child"
			f := serve(t, process.Spec{}, map[string]string{"HOOKSERVER_CHILD": childFile, "HOOKSERVER_STUBBORN": stubborn},
				func(o *process.Options) { o.Grace = 100 * time.Millisecond })
			pid := f.serverPid()
			b, err := os.ReadFile(childFile)
			if err != nil {
				t.Fatal(err)
			}
			child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if alive := childtest.GroupAlive(t, pid); !slices.Contains(alive, pid) || !slices.Contains(alive, child) {
				t.Fatalf("group %d before Close: %v (child %d)", pid, alive, child)
			}
			exited := childtest.ExitWatch(t, child)
			f.close()
			// Close returns once the server is gone and its group has
			// been sent SIGKILL; the child dies a moment later.
			exited()
			if alive := childtest.GroupAlive(t, pid); len(alive) != 0 || childtest.PidAlive(child) {
				t.Errorf("after Close, group %d has %v alive; child %d alive: %v", pid, alive, child, childtest.PidAlive(child))
			}
			if len(f.received("hook.shutdown")) != 1 {
				t.Errorf("hook.shutdown not received: %v", f.lines())
			}
			killed := strings.Contains(f.serverLog(), "killing its process group")
			if killed != (stubborn == "1") {
				t.Errorf("killed after the grace period: %v\n%s", killed, f.serverLog())
			}
		})
	}
}
