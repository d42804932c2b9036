//go:build linux

package process_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tackle-dev/tackle/hooks/process"
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
	exited := exitWatch(t, child)
	f.set.Kill()
	exited()
	if alive := groupAlive(t, pid); len(alive) != 0 || pidAlive(child) {
		t.Errorf("after Kill, group %d has %v alive; child %d alive: %v", pid, alive, child, pidAlive(child))
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
			if alive := groupAlive(t, pid); !slices.Contains(alive, pid) || !slices.Contains(alive, child) {
				t.Fatalf("group %d before Close: %v (child %d)", pid, alive, child)
			}
			exited := exitWatch(t, child)
			f.close()
			// Close returns once the server is gone and its group has
			// been sent SIGKILL; the child dies a moment later.
			exited()
			if alive := groupAlive(t, pid); len(alive) != 0 || pidAlive(child) {
				t.Errorf("after Close, group %d has %v alive; child %d alive: %v", pid, alive, child, pidAlive(child))
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

// groupAlive lists the processes of process group pgid that have not
// exited (zombies count as exited).
func groupAlive(t testing.TB, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var alive []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		fields := strings.Fields(rest)
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			alive = append(alive, pid)
		}
	}
	slices.Sort(alive)
	return alive
}

// pidAlive reports whether pid runs (a zombie does not).
func pidAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// exitWatch watches process pid (which need not be a child of this one)
// and returns the func that waits for it to exit, failing the test if it
// has not after a minute.
func exitWatch(t *testing.T, pid int) func() {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	return func() {
		t.Helper()
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int(time.Minute/time.Millisecond))
			switch {
			case err == unix.EINTR:
				continue
			case err != nil:
				t.Fatalf("poll: %v", err)
			case n == 0:
				t.Fatalf("process %d still runs a minute after Close", pid)
			}
			return
		}
	}
}
