package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Limits of the bash tool.
const (
	// DefaultBashTimeout is how long a command may run when the model
	// does not say.
	DefaultBashTimeout = 2 * time.Minute
	// MaxBashTimeout is the longest timeout the model may ask for.
	MaxBashTimeout = 10 * time.Minute
	// DefaultKillGrace is how long a process group has between SIGTERM
	// and SIGKILL.
	DefaultKillGrace = 2 * time.Second

	bashHeadBytes = 15 << 10 // output kept from the start
	bashTailBytes = 15 << 10 // output kept from the end
)

//go:embed descriptions/bash.md
var bashDescription string

// BashArgs are the arguments of bash.
type BashArgs struct {
	Command   string `json:"command" jsonschema:"The command to run with bash -c in the workspace root."`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"How long the command may run, in milliseconds, at most 600000 (10 minutes). Default 120000 (2 minutes)."`
}

type bashConfig struct {
	env            []string // nil: the process environment
	killGrace      time.Duration
	defaultTimeout time.Duration
	maxTimeout     time.Duration
}

func (r *Registry) bashTool() *Tool {
	return New("bash", bashDescription, false, r.runBash)
}

// How a command ended, when it did not end by itself.
const (
	endedTimeout  = "timeout"
	endedCanceled = "canceled"
)

func (r *Registry) runBash(ctx context.Context, a BashArgs) (Result, error) {
	cfg := r.bash
	if strings.TrimSpace(a.Command) == "" {
		return Fail("command is empty."), nil
	}
	if a.TimeoutMS < 0 {
		return Fail("timeout_ms must be positive (got %d); leave it out for the default of %s.", a.TimeoutMS, cfg.defaultTimeout), nil
	}
	timeout, note := cfg.defaultTimeout, ""
	if a.TimeoutMS > 0 {
		timeout = time.Duration(a.TimeoutMS) * time.Millisecond
		if timeout > cfg.maxTimeout {
			timeout = cfg.maxTimeout
			note = fmt.Sprintf("[timeout_ms %d is over the limit; the command ran with a timeout of %s.]\n", a.TimeoutMS, timeout)
		}
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		return Result{}, fmt.Errorf("find shell: %w", err)
	}
	base := cfg.env
	if base == nil {
		base = os.Environ()
	}
	env, secrets := bashEnv(base)

	// One pipe for stdout and stderr keeps them in the order written.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("output pipe: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command(shell, "-c", a.Command)
	cmd.Dir = r.ws.Dir()
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = pw, pw // Stdin nil: /dev/null
	// A new session: its own process group, to be killed as a whole, and
	// no controlling terminal, so nothing can prompt on (or draw over)
	// the user's terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return Fail("Could not start the command: %v.", err), nil
	}
	pgid := cmd.Process.Pid

	out := newHeadTail(bashHeadBytes, bashTailBytes)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(out, pr)
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		defer close(exited)
		waitErr = cmd.Wait()
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	ended := ""
	select {
	case <-exited:
	case <-timer.C:
		ended = endedTimeout
	case <-ctx.Done():
		ended = endedCanceled
	}
	leftovers := cfg.stop(pgid, exited, drained, pr)

	text, changed := out.text(newScrubber(secrets))
	switch {
	case changed.binary():
		text = fmt.Sprintf("[The output looks binary (%d bytes, over 30%% of them control characters or invalid UTF-8), so it is not shown. "+
			"Pipe it through `xxd | head -n 40` or `od -c | head` to inspect it, or `file -` to identify it.]\n", out.total)
	case text == "":
		text = "(no output)\n"
	default:
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += changed.note()
	}
	text += note
	switch ended {
	case endedTimeout:
		return Fail("%s[Timed out after %s: the command and every process it started were killed.]", text, timeout), nil
	case endedCanceled:
		return Fail("%s[Cancelled: the command and every process it started were killed.]", text), nil
	}
	if leftovers {
		text += "[The command left processes running in the background; they were stopped. Run servers and watchers in the foreground with a timeout instead.]\n"
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		if st, ok := exitErr.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return Fail("%s[killed by signal: %v]", text, st.Signal()), nil
		}
		return Fail("%s[exit code %d]", text, exitErr.ExitCode()), nil
	case waitErr != nil:
		return Result{}, fmt.Errorf("wait for command: %w", waitErr)
	}
	return OK(strings.TrimSuffix(text, "\n")), nil
}

// stop ends what is left of the process group pgid once its leader has
// exited, or it timed out or was cancelled: SIGTERM to the group, then,
// once the leader has exited and the output pipe is closed by every
// process holding it (or after the grace period), SIGKILL to the group.
// It returns once the leader has been reaped and the output read to its
// end; a process that escaped the group (setsid) and still holds the
// pipe after another grace period is cut off by closing the pipe. It
// reports whether any process of the group was still there for SIGTERM
// after the leader had exited.
func (c bashConfig) stop(pgid int, exited, drained <-chan struct{}, pr *os.File) (leftovers bool) {
	leaderDone := false
	select {
	case <-exited:
		leaderDone = true
	default:
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err == nil && leaderDone {
		leftovers = true
	}
	syscall.Kill(-pgid, syscall.SIGCONT) // a stopped process cannot act on SIGTERM

	grace := time.NewTimer(c.killGrace)
	defer grace.Stop()
	for e, d := exited, drained; e != nil || d != nil; {
		select {
		case <-e:
			e = nil
		case <-d:
			d = nil
		case <-grace.C:
			e, d = nil, nil
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-exited

	cut := time.NewTimer(c.killGrace)
	defer cut.Stop()
	select {
	case <-drained:
	case <-cut.C:
		pr.Close()
		<-drained
	}
	return leftovers
}
