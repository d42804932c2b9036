//go:build linux

// Package childtest helps tests assert that child processes are gone:
// which processes of a group still run, whether one does, and waiting
// for one to exit without polling on a timer.
package childtest

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
)

// GroupAlive lists the processes of process group pgid that still run
// (zombies do not), read from /proc. It skips the test without /proc.
func GroupAlive(t testing.TB, pgid int) []int {
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

// PidAlive reports whether pid runs (a zombie does not).
func PidAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// ExitWatch watches process pid (which need not be a child of this one)
// through a pidfd and returns the func that waits for it to exit,
// failing the test if it has not after a minute. Call it while the
// process surely runs; a pid already gone fails the test at once.
func ExitWatch(t testing.TB, pid int) func() {
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
				t.Fatalf("process %d still runs a minute later", pid)
			}
			return
		}
	}
}
