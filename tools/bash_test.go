package tools

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// testEnv is a small environment for commands, with secrets in it.
func testEnv(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "LANG=C.UTF-8"}, extra...)
}

func TestBash(t *testing.T) {
	r, dir := newTestRegistry(t, WithEnv(testEnv()))
	tests := []struct {
		name    string
		command string
		status  chat.ResultStatus
		want    string
	}{
		{"interleaved output", "echo out; echo err >&2; echo out2", chat.StatusOK, "out\nerr\nout2"},
		{"no output", "true", chat.StatusOK, "(no output)"},
		{"exit code", "echo failing; exit 3", chat.StatusError, "failing\n[exit code 3]"},
		{"stdin is closed", "cat; echo done", chat.StatusOK, "done"},
		{"workspace root", "pwd", chat.StatusOK, dir},
		{"killed by a signal", "kill -9 $$", chat.StatusError, "(no output)\n[killed by signal: killed]"},
		{"no tty", "exec 3</dev/tty && echo has tty || echo no tty", chat.StatusOK, "no tty"},
		{"no pager or editor", `echo "$GIT_EDITOR $PAGER $GIT_PAGER $TERM"`, chat.StatusOK, "true cat cat dumb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, r, "bash", BashArgs{Command: tt.command})
			if res.Status != tt.status || !strings.Contains(res.Content, tt.want) {
				t.Errorf("got %s %q, want %s containing %q", res.Status, res.Content, tt.status, tt.want)
			}
		})
	}
}

func TestBashArgErrors(t *testing.T) {
	r, _ := newTestRegistry(t, WithEnv(testEnv()))
	wantError(t, call(t, r, "bash", `{}`), `missing required field "command" (string)`)
	wantError(t, call(t, r, "bash", `{"command": "ls", "timeout_ms": "10"}`), `field "timeout_ms" must be an integer, got a string ("10")`)
	wantError(t, call(t, r, "bash", `{"command": "ls", "timeout": 10}`), `unknown field "timeout"`)
	wantError(t, call(t, r, "bash", BashArgs{Command: "  "}), "command is empty")
	wantError(t, call(t, r, "bash", BashArgs{Command: "ls", TimeoutMS: -5}), "timeout_ms must be positive")
	got := wantOK(t, call(t, r, "bash", BashArgs{Command: "echo ok", TimeoutMS: 3_600_000}))
	wantContains(t, got, "ok\n", "over the limit; the command ran with a timeout of 10m0s")
}

func TestSecurityBashEnvironment(t *testing.T) {
	secret := "sk-proj-0123456789abcdef"
	r, dir := newTestRegistry(t, WithEnv(testEnv(
		"OPENAI_API_KEY="+secret,
		"OPENAI_BASE_URL=http://127.0.0.1:1",
		"GITHUB_TOKEN=ghp_tokentoken",
		"db_password=hunter2hunter2",
		"AWS_SECRET_ACCESS_KEY=aws-secret-value",
		"SHORT_TOKEN=abc",
		"PAGER=less",
		"KEEP_ME=yes",
		"NOT_LISTED=yes",
	)), WithEnvAllow([]string{"KEEP_ME"}))
	got := wantOK(t, call(t, r, "bash", BashArgs{Command: "env | sort"}))
	for _, gone := range []string{"OPENAI_", "GITHUB_TOKEN", "db_password", "AWS_SECRET", "SHORT_TOKEN", "PAGER=less", "NOT_LISTED"} {
		if strings.Contains(got, gone) {
			t.Errorf("environment has %s:\n%s", gone, got)
		}
	}
	wantContains(t, got, "KEEP_ME=yes", "PAGER=cat", "GIT_EDITOR=true", "GIT_TERMINAL_PROMPT=0")

	// A secret that reaches the output some other way is scrubbed.
	writeFile(t, dir, "leak.txt", "key="+secret+" pw=hunter2hunter2 short=abc\n")
	got = wantOK(t, call(t, r, "bash", BashArgs{Command: "cat leak.txt"}))
	if got != "key=[REDACTED] pw=[REDACTED] short=abc" {
		t.Errorf("got %q", got)
	}
	// Also when the head/tail cut splits it: the head ends with the first
	// 6 bytes of the secret, the tail starts with its last 10.
	writeFile(t, dir, "secret.txt", secret)
	got = wantOK(t, call(t, r, "bash", BashArgs{Command: "head -c 15350 /dev/zero | tr '\\0' x; echo -n key=; cat secret.txt; head -c 40000 /dev/zero | tr '\\0' y"}))
	wantContains(t, got, "xxkey=[REDACTED]\n[… ")
	got = wantOK(t, call(t, r, "bash", BashArgs{Command: "head -c 20000 /dev/zero | tr '\\0' z; cat secret.txt; head -c 15350 /dev/zero | tr '\\0' y"}))
	wantContains(t, got, " omitted …]\n[REDACTED]yyy")
	if strings.Contains(got, "sk-pro") || strings.Contains(got, "abcdef") {
		t.Errorf("secret fragment in output")
	}
}

func TestSecurityBashTimeoutKillsEverything(t *testing.T) {
	r, dir := newTestRegistry(t, WithEnv(testEnv()), WithKillGrace(200*time.Millisecond))
	// The shell ignores SIGTERM and so do its children: SIGKILL must follow.
	res := call(t, r, "bash", BashArgs{
		Command:   "trap '' TERM; echo $$ > sh.pid; sleep 100 & echo $! > bg.pid; echo started; wait",
		TimeoutMS: 1500,
	})
	wantError(t, res, "started\n", "[Timed out after 1.5s: the command and every process it started were killed.]")
	pgid := readPID(t, filepath.Join(dir, "sh.pid"))
	waitGroupGone(t, pgid)
	waitGone(t, readPID(t, filepath.Join(dir, "bg.pid")))
}

func TestSecurityBashCancelKillsBackgroundChild(t *testing.T) {
	r, dir := newTestRegistry(t, WithEnv(testEnv()), WithKillGrace(time.Second))
	fifo := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan chat.ToolResult)
	go func() {
		res, err := r.Run(ctx, chat.ToolCall{Name: "bash", Arguments: `{"command": "sleep 100 & echo $$ $! > ready; wait"}`})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// Opening the FIFO waits for the command to open it: no sleeping.
	pids, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	res := <-done
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "[Cancelled: the command and every process it started were killed.]") {
		t.Errorf("got %s %q", res.Status, res.Content)
	}
	f := strings.Fields(string(pids))
	sh, _ := strconv.Atoi(f[0])
	bg, _ := strconv.Atoi(f[1])
	waitGroupGone(t, sh)
	waitGone(t, bg)
}

func TestSecurityBashLeavesNothingBehind(t *testing.T) {
	r, dir := newTestRegistry(t, WithEnv(testEnv()), WithKillGrace(10*time.Second))
	start := time.Now()
	// The background child holds the output pipe: Run must not wait for it.
	got := wantOK(t, call(t, r, "bash", BashArgs{Command: "(sleep 100 & echo $! > bg.pid); echo hi"}))
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v: waited for the background child", elapsed)
	}
	wantContains(t, got, "hi\n", "left processes running in the background; they were stopped")
	waitGone(t, readPID(t, filepath.Join(dir, "bg.pid")))

	// One that does not hold the pipe is stopped as well.
	wantOK(t, call(t, r, "bash", BashArgs{Command: "sleep 100 >/dev/null 2>&1 & echo $! > bg2.pid"}))
	waitGone(t, readPID(t, filepath.Join(dir, "bg2.pid")))
}

func TestBashEscapedProcessDoesNotHang(t *testing.T) {
	r, dir := newTestRegistry(t, WithEnv(testEnv()), WithKillGrace(100*time.Millisecond))
	// setsid leaves the process group; such a process cannot be tracked,
	// but holding the output pipe must not make Run hang.
	got := wantOK(t, call(t, r, "bash", BashArgs{Command: "setsid sh -c 'echo $$ > esc.pid; exec sleep 100' & until [ -s esc.pid ]; do :; done; echo hi"}))
	pid := readPID(t, filepath.Join(dir, "esc.pid"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	wantContains(t, got, "hi")
}

func TestSecurityBashOutputBoundedMemory(t *testing.T) {
	r, _ := newTestRegistry(t, WithEnv(testEnv()))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := wantOK(t, call(t, r, "bash", BashArgs{Command: "echo first; head -c 100000000 /dev/zero | tr '\\0' a; echo; echo last"}))
	runtime.ReadMemStats(&after)

	if len(got) > bashHeadBytes+bashTailBytes+100 {
		t.Errorf("output is %d bytes", len(got))
	}
	if !strings.HasPrefix(got, "first\naaaa") || !strings.HasSuffix(got, "aaaa\nlast") {
		t.Errorf("head or tail missing: %q … %q", got[:20], got[len(got)-20:])
	}
	omitted := 6 + 100_000_000 + 1 + 5 - (bashHeadBytes + bashTailBytes)
	wantContains(t, got, "\n[… "+strconv.Itoa(omitted)+" bytes omitted …]\n")
	// 100 MB went through; the tool allocated a small fraction of that.
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 4<<20 {
		t.Errorf("allocated %d bytes for 100 MB of output", alloc)
	}
	t.Logf("allocated %d bytes for 100 MB of output", alloc)
}

// readPID reads a process ID written by a command.
func readPID(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for the process pid to be dead. A killed process may
// stay a zombie until its new parent reaps it; that counts as dead. The
// process table is polled, with a deadline: reaping has no event to wait
// on.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, func() bool { return !alive(pid) }, "process %d is still running", pid)
}

// waitGroupGone waits for every process of the group pgid to be dead.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	waitFor(t, func() bool { return len(groupMembers(pgid)) == 0 }, "process group %d still has live members", pgid)
}

func waitFor(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf(format, args...)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return false
	}
	state, _, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// groupMembers lists the live processes of the group pgid.
func groupMembers(pgid int) []int {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pg, ok := procStat(pid); ok && pg == pgid && state != "Z" && state != "X" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat returns the state and process group of pid from /proc.
func procStat(pid int) (state string, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 3 {
		return "", 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	return f[0], pgrp, true
}
