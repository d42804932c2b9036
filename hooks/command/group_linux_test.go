//go:build linux

package command_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// readPID reads a pid a hook wrote to dir/name.
func readPID(t *testing.T, dir, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// assertKilled checks that pid has exited or is exiting. A killed process
// may need a moment to finish exiting (and, as an orphan, to be reaped),
// so this waits on a pidfd, which becomes readable when the process has
// exited: a process that was not killed (a sleep 100) fails the test. It
// never sleeps.
func assertKilled(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // exited and reaped
	}
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 10_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("poll pidfd: %v", err)
		}
		if n == 0 {
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) // clean up
			t.Fatalf("process %d is still running", pid)
		}
		return
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	// The background sleep keeps stdout and stderr open: the hook must
	// still return, and the sleep must die with the group.
	spec := sh(`sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; wait`)
	spec.Timeout = "300ms"
	reg, dir := setup(t, "pre_tool_call", spec)

	var tr hooktest.Trace
	res, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash"}}, 0, tr.Record)
	contains(t, failure(t, &tr), "timed out after 300ms")
	if res.Action != hooks.ToolSkip {
		t.Errorf("result = %+v, want skip", res)
	}
	assertKilled(t, readPID(t, dir, "sh.pid"))
	assertKilled(t, readPID(t, dir, "bg.pid"))
}

func TestCancelKillsProcessGroup(t *testing.T) {
	spec := sh(`sleep 100 & echo $! > fifo; wait`)
	reg, dir := setup(t, "on_turn_end", spec)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pids := make(chan int, 1)
	go func() {
		// Opening a fifo for reading blocks until the hook opens it.
		defer cancel()
		b, err := os.ReadFile(fifo)
		if err != nil {
			t.Error(err)
			pids <- 0
			return
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		pids <- pid
	}()

	var tr hooktest.Trace
	res, _ := reg.RunTurnEnd(cctx, &hooks.TurnEndInput{}, 0, tr.Record)
	if res.Action != hooks.TurnPaused || !strings.HasPrefix(res.Reason, "cancelled") {
		t.Errorf("result = %+v, want paused (cancelled)", res)
	}
	if pid := <-pids; pid > 0 {
		assertKilled(t, pid)
	}
}

func TestExitKillsLeftovers(t *testing.T) {
	spec := sh(`sleep 100 & echo $! > bg.pid; echo '{"action":"skip","reason":"done early"}'`)
	spec.Timeout = "5m"
	reg, dir := setup(t, "pre_tool_call", spec)

	var tr hooktest.Trace
	res, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash"}}, 0, tr.Record)
	if want := (hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "done early"}); res != want {
		t.Errorf("result = %+v, want %+v (trace %s)", res, want, &tr)
	}
	assertKilled(t, readPID(t, dir, "bg.pid"))
}

func TestEscapedChildDoesNotHang(t *testing.T) {
	// A child in its own session survives the group kill and holds the
	// pipes: the hook still returns, with what its own process said.
	spec := sh(`setsid sleep 100 & echo $! > bg.pid; echo '{"action":"pause"}'`)
	spec.Timeout = "5m"
	reg, dir := setup(t, "pre_tool_call", spec)

	var tr hooktest.Trace
	res, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash"}}, 0, tr.Record)
	pid := readPID(t, dir, "bg.pid")
	syscall.Kill(pid, syscall.SIGKILL) // ours to clean up
	if res.Action != hooks.ToolPause {
		t.Errorf("result = %+v, want pause (trace %s)", res, &tr)
	}
}
