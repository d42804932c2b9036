//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/child/childtest"
)

// sessionStatus is what `tackle sessions` says of the workspace's only
// session.
func (e *e2e) sessionStatus() (status string, turns int) {
	e.t.Helper()
	r := e.run("sessions", "--output", "json")
	var list []struct {
		Status string `json:"status"`
		Turns  int    `json:"turns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		e.t.Fatalf("tackle sessions: %v\n%s", err, r.stdout)
	}
	return list[0].Status, list[0].Turns
}

// sleepGroup is the process group of the sleep the run started.
func (e *e2e) sleepGroup() int {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.workspace, "sleep.pid"))
	if err != nil {
		e.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	return pid // bash -c runs in a group of its own, which it leads
}

// SIGHUP (a closed terminal, a dropped ssh connection) and SIGQUIT stop a
// piped run as SIGINT and SIGTERM do: the running command's group is
// killed, and the session records how the run ended. Before, SIGHUP killed
// tackle at once: the sleep lived on under PID 1 and the session ended
// mid-turn with no outcome.
func TestE2EHangupStopsThePipedRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			e := newE2E(t, "hangup_sleep.json")
			r := e.signal(sig, "--yes", "-p", "wait")
			if r.code != app.ExitInterrupted {
				t.Errorf("exit %d, want %d", r.code, app.ExitInterrupted)
			}
			if alive := childtest.GroupAlive(t, e.sleepGroup()); len(alive) > 0 {
				t.Errorf("the command's processes %v outlived tackle", alive)
				syscall.Kill(-e.sleepGroup(), syscall.SIGKILL)
			}
			if status, turns := e.sessionStatus(); status == "" || turns != 1 {
				t.Errorf("the session records status %q after %d turns, want the run's outcome after 1", status, turns)
			}
		})
	}
}

// The terminal of the UI closes (tmux kills the pane: the process gets
// SIGHUP, its terminal is gone) during a command: the command's group is
// killed and the session records the outcome.
func TestE2EHangupStopsTheUI(t *testing.T) {
	e := newE2E(t, "hangup_sleep.json")
	if err := syscall.Mkfifo(filepath.Join(e.workspace, "ready.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.startTUI("--mode", "yolo")
	s.waitFor("yolo")
	s.typeText("wait")
	s.keys("Enter")
	ready, err := os.ReadFile(filepath.Join(e.workspace, "ready.fifo")) // the command runs
	if err != nil || string(ready) != "started\n" {
		t.Fatalf("ready: %q, %v", ready, err)
	}
	pane := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{pane_pid}"))
	shell, err := strconv.Atoi(pane)
	if err != nil {
		t.Fatalf("pane pid %q", pane)
	}
	children, err := os.ReadFile("/proc/" + pane + "/task/" + pane + "/children")
	if err != nil || len(strings.Fields(string(children))) != 1 {
		t.Fatalf("the pane's shell %d has children %q (%v), want tackle alone", shell, children, err)
	}
	tackle, _ := strconv.Atoi(strings.Fields(string(children))[0])
	exited := childtest.ExitWatch(t, tackle)
	s.tmux("kill-session", "-t", s.name)
	exited()
	if alive := childtest.GroupAlive(t, e.sleepGroup()); len(alive) > 0 {
		t.Errorf("the command's processes %v outlived tackle", alive)
		syscall.Kill(-e.sleepGroup(), syscall.SIGKILL)
	}
	if status, turns := e.sessionStatus(); status == "" || turns != 1 {
		t.Errorf("the session records status %q after %d turns, want the run's outcome after 1", status, turns)
	}
}
