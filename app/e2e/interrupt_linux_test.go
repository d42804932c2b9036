//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tackle-dev/tackle/app"
)

// stubbornServer is a hook server that observes, ignores hook.shutdown
// (it says it got it on the FIFO $SHUTDOWN), SIGTERM and the end of its
// input, and writes its pid to $PIDFILE: only killing its process group
// ends it.
const stubbornServer = `import json, os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(os.environ["PIDFILE"], "w") as f:
    f.write(str(os.getpid()))
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "hook.hello":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"version": 1, "name": "stub", "modes": ["observe"]}}), flush=True)
    if m.get("method") == "hook.shutdown":
        with open(os.environ["SHUTDOWN"], "w") as f:
            f.write("got it")
while True:
    time.sleep(3600)
`

// TestE2ESecondInterruptLeavesNoHookServer: interrupted while a tool runs,
// tackle shuts its hook server down; interrupted again while the server
// ignores that (tackle would wait its grace period), tackle exits at once
// (exit 130) and the server is gone too: its group was killed first.
func TestE2ESecondInterruptLeavesNoHookServer(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed for the hook server")
	}
	e := newE2E(t, "interrupt_bash.json")
	dir := t.TempDir()
	script, pidFile, shutdown := filepath.Join(dir, "stub.py"), filepath.Join(dir, "pid"), filepath.Join(dir, "shutdown.fifo")
	if err := syscall.Mkfifo(shutdown, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(stubbornServer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(e.configPath()), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"hook_servers": [{"name": "stub", "command": ["python3", "` + script + `"], "env": {"PIDFILE": "` + pidFile + `", "SHUTDOWN": "` + shutdown + `"}}]}`
	if err := os.WriteFile(e.configPath(), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ready.fifo", "block.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(e.workspace, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.workspace, "creds.txt"), []byte("nothing\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("--yes", "-p", "print the credentials")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready, err := os.Open(filepath.Join(e.workspace, "ready.fifo")) // blocks until the tool writes it
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(ready)
	ready.Close()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook server did not start: %v\n%s", err, stderr.String())
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(pidfd)
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })

	shutdownSeen := make(chan struct{})
	go func() {
		if f, err := os.Open(shutdown); err == nil { // blocks until the server writes it
			io.ReadAll(f)
			f.Close()
		}
		close(shutdownSeen)
	}()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-shutdownSeen // tackle is in its shutdown, waiting for the server
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != app.ExitInterrupted {
		t.Fatalf("tackle ended with %v, want exit %d\n%s", err, app.ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted twice") {
		t.Errorf("tackle did not take the second interrupt:\n%s", stderr.String())
	}
	// The server's group was killed before tackle exited: its pidfd
	// reports the exit (unkilled, the server would run on for good).
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(time.Minute/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			t.Fatalf("the hook server %d still runs after tackle exited (%v)\n%s", pid, err, stderr.String())
		}
		break
	}
}
