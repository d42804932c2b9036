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

	"github.com/tackle-dev/tackle/tools/sandbox"
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

// Bash is the name of the bash tool.
const Bash = "bash"

//go:embed descriptions/bash.md
var bashDescription string

// BashArgs are the arguments of bash.
type BashArgs struct {
	Command   string `json:"command" jsonschema:"The command to run with bash -c in the workspace root."`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"How long the command may run, in milliseconds, at most 600000 (10 minutes). Default 120000 (2 minutes)."`
	// The ways out of the sandbox: each is asked of the user, in every
	// mode (see approval's escapes).
	Network        bool `json:"network,omitempty" jsonschema:"Give the command network access, which tackle's sandbox does not give by default. Set it only when the command needs the network (downloading dependencies, calling a service); the user is asked."`
	OutsideSandbox bool `json:"outside_sandbox,omitempty" jsonschema:"Run the command outside tackle's sandbox. Set it only after the command failed because the sandbox refused it something it needs (a write outside the workspace, a protected file); the user is asked."`
}

// Summary gives the command, and the way out of the sandbox it asks for.
func (a BashArgs) Summary() string {
	switch {
	case a.OutsideSandbox:
		return a.Command + "  [outside the sandbox]"
	case a.Network:
		return a.Command + "  [with network]"
	}
	return a.Command
}

// run is how the call runs in the sandbox.
func (a BashArgs) run() Run { return Run{Network: a.Network} }

type bashConfig struct {
	env            []string // nil: the process environment
	envAllow       []string // additions to DefaultEnvAllow
	killGrace      time.Duration
	defaultTimeout time.Duration
	maxTimeout     time.Duration
}

// bashTool is bash: it runs a command in the workspace root, inside the
// sandbox when there is one.
type bashTool struct {
	dir     string // where commands run: the workspace root
	cfg     bashConfig
	sandbox *Sandbox
}

func (t bashTool) tool() *Tool {
	return New(Bash, bashDescription, KindExec, t.run, t.preview)
}

// How a command ended, when it did not end by itself.
const (
	endedTimeout  = "timeout"
	endedCanceled = "canceled"
)

func (t bashTool) run(ctx context.Context, a BashArgs) (Result, error) {
	cfg := t.cfg
	timeout, note, why := cfg.timeout(a)
	if why != "" {
		return Fail("%s", why), nil
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		return Result{}, fmt.Errorf("find shell: %w", err)
	}
	base := cfg.env
	if base == nil {
		base = os.Environ()
	}
	env, secrets := bashEnv(base, cfg.envAllow)

	// One pipe for stdout and stderr keeps them in the order written.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("output pipe: %w", err)
	}
	defer pr.Close()
	cmd := t.command(shell, a.Command, env, pw)
	sb := t.sandbox
	if a.OutsideSandbox {
		sb = nil // approved as such: the user was asked
	}
	changes, err := sb.Start(cmd, a.run())
	pw.Close()
	if errors.Is(err, sandbox.ErrLaunch) {
		return launchFailed(err), nil
	}
	if err != nil {
		return Fail("Could not start the command: %v.", err), nil
	}
	p := cfg.watch(cmd, pr)
	if report, ok := ProgressReporter(ctx); ok {
		stop := make(chan struct{})
		reported := p.live.report(report, newScrubber(secrets), stop)
		defer func() {
			close(stop)
			<-reported // no report after the result
		}()
	}
	ended := p.wait(ctx, timeout)
	leftovers := cfg.stop(cmd.Process.Pid, p.exited, p.drained, pr)

	text := p.output(secrets) + note
	if res, done := endedEarly(text, ended, timeout); done {
		return res, nil
	}
	if leftovers {
		text += "[The command left processes running in the background; they were stopped. Run servers and watchers in the foreground with a timeout instead.]\n"
	}
	if changed := changes(); len(changed) > 0 {
		text += fmt.Sprintf("[The command changed protected paths, which it may not: %s. The user has been told.]\n", strings.Join(changed, ", "))
	}
	if sb != nil && p.waitErr != nil && sandbox.Blocked(text, p.waitErr) {
		text += sb.blockedNote(a.run())
	}
	return exitResult(text, p.waitErr)
}

// preview is the command a call would run, and how long it may run.
func (t bashTool) preview(a BashArgs) Preview {
	timeout, _, why := t.cfg.timeout(a)
	p := Preview{
		Summary: a.Summary(),
		Command: &CommandRun{Line: a.Command, Timeout: timeout, Asked: time.Duration(a.TimeoutMS) * time.Millisecond, Network: a.Network, OutsideSandbox: a.OutsideSandbox},
	}
	if why != "" {
		p.refuse("command", Fail("%s", why))
	}
	return p
}

// timeout returns how long a call may run and a note for the model when
// its timeout was cut to the limit, or why the call is invalid.
func (c bashConfig) timeout(a BashArgs) (d time.Duration, note, why string) {
	if strings.TrimSpace(a.Command) == "" {
		return 0, "", "command is empty."
	}
	if a.TimeoutMS < 0 {
		return 0, "", fmt.Sprintf("timeout_ms must be positive (got %d); leave it out for the default of %s.", a.TimeoutMS, c.defaultTimeout)
	}
	if a.TimeoutMS == 0 {
		return c.defaultTimeout, "", ""
	}
	d = time.Duration(a.TimeoutMS) * time.Millisecond
	if d > c.maxTimeout {
		d = c.maxTimeout
		note = fmt.Sprintf("[timeout_ms %d is over the limit; the command ran with a timeout of %s.]\n", a.TimeoutMS, d)
	}
	return d, note, ""
}

// command prepares bash -c program in the workspace root, writing its
// output to out.
func (t bashTool) command(shell, program string, env []string, out *os.File) *exec.Cmd {
	cmd := exec.Command(shell, "-c", program)
	cmd.Dir = t.dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out // Stdin nil: /dev/null
	// A new session: its own process group, to be killed as a whole, and
	// no controlling terminal, so nothing can prompt on (or draw over)
	// the user's terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// process is a started command being watched: its output is read into
// out (through live, which can be read while it grows) until drained is
// closed, and exited is closed once it was reaped, with waitErr set.
type process struct {
	out     *headTail
	live    *liveOutput
	drained chan struct{}
	exited  chan struct{}
	waitErr error
}

// watch reads the output of the started cmd from pr and waits for it.
func (c bashConfig) watch(cmd *exec.Cmd, pr *os.File) *process {
	p := &process{
		out:     newHeadTail(bashHeadBytes, bashTailBytes),
		drained: make(chan struct{}),
		exited:  make(chan struct{}),
	}
	p.live = newLiveOutput(p.out)
	go func() {
		defer close(p.drained)
		io.Copy(p.live, pr)
	}()
	go func() {
		defer close(p.exited)
		p.waitErr = cmd.Wait()
	}()
	return p
}

// wait waits for the command to exit, time out or be cancelled, and says
// which of the last two ended it ("" when it exited by itself).
func (p *process) wait(ctx context.Context, timeout time.Duration) string {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
		return ""
	case <-timer.C:
		return endedTimeout
	case <-ctx.Done():
		return endedCanceled
	}
}

// output is the command's output as the model reads it, secrets
// scrubbed, ending with a newline. Call it once the output is drained.
func (p *process) output(secrets []string) string {
	text, changed := p.out.text(newScrubber(secrets))
	switch {
	case changed.binary():
		return fmt.Sprintf("[The output looks binary (%d bytes, over 30%% of them control characters or invalid UTF-8), so it is not shown. "+
			"Pipe it through `xxd | head -n 40` or `od -c | head` to inspect it, or `file -` to identify it.]\n", p.out.total)
	case text == "":
		return "(no output)\n"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + changed.note()
}

// endedEarly is the result of a command that timed out or was cancelled.
func endedEarly(text, ended string, timeout time.Duration) (Result, bool) {
	switch ended {
	case endedTimeout:
		return Fail("%s[Timed out after %s: the command and every process it started were killed.]", text, timeout), true
	case endedCanceled:
		return Fail("%s[Cancelled: the command and every process it started were killed.]", text), true
	}
	return Result{}, false
}

// exitResult is the result of a command that ended by itself with
// waitErr, whose output is text.
func exitResult(text string, waitErr error) (Result, error) {
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
