package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/child"
)

// maxOutput bounds what is kept of one process's output.
const maxOutput = 1 << 20

// waitDelay is how long a process's output pipes may stay open after it
// was killed (a grandchild outside its group could hold them).
const waitDelay = 2 * time.Second

// proc is one process a check runs.
type proc struct {
	argv    []string
	dir     string
	env     []string
	stdin   []byte
	timeout time.Duration
	// combined sends stderr to the same buffer as stdout, keeping their
	// interleaving (for output shown as it is).
	combined bool
}

// procResult is how a process ended.
type procResult struct {
	stdout, stderr []byte
	// exit is the exit status; -1 when the process did not start or
	// was killed.
	exit int
	// err is set when the process could not run to its end: it did not
	// start, timed out or was cancelled. A non-zero exit is not an error.
	err error
}

// errTimedOut is wrapped by procResult.err when a process ran too long.
var errTimedOut = errors.New("timed out")

// run runs p in its own process group, in the checks' sandbox (the
// model's code they may run, a module a check imports from the
// workspace, stays inside it); the group is killed when ctx is done or
// the timeout passes.
func (c *Checker) run(ctx context.Context, p proc) procResult {
	return runIn(ctx, c.cfg.Sandbox, p)
}

// runIn runs p in sb (nil: no sandbox).
func runIn(ctx context.Context, sb *tools.Sandbox, p proc) procResult {
	if p.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, p.timeout, fmt.Errorf("%w after %v", errTimedOut, p.timeout))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.WaitDelay = waitDelay
	setGroup(cmd)
	if p.stdin != nil {
		cmd.Stdin = bytes.NewReader(p.stdin)
	}
	stdout := &cappedBuffer{max: maxOutput}
	stderr := stdout
	if !p.combined {
		stderr = &cappedBuffer{max: maxOutput}
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	done, err := sb.Start(cmd, tools.Run{})
	if err == nil {
		err = cmd.Wait()
		done()
	}
	res := procResult{stdout: stdout.Bytes(), exit: -1}
	if !p.combined {
		res.stderr = stderr.Bytes()
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.err = context.Cause(ctx)
	case errors.As(err, &exitErr):
		res.exit = exitErr.ExitCode()
	case err != nil:
		res.err = err
	default:
		res.exit = 0
	}
	return res
}

// cappedBuffer keeps the first max bytes written to it and counts the
// rest.
type cappedBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(b.max-b.buf.Len(), 0); room < n {
		b.dropped += n - room
		p = p[:room]
	}
	b.buf.Write(p)
	return n, nil
}

func (b *cappedBuffer) Bytes() []byte {
	if b.dropped == 0 {
		return b.buf.Bytes()
	}
	return fmt.Appendf(slices.Clip(b.buf.Bytes()), "\n[… %d more bytes of output]\n", b.dropped)
}

// getenv returns the value of name in env (the last one wins, as in
// exec), "" when it is not set.
func getenv(env []string, name string) string {
	v, _ := child.LookupEnv(env, name)
	return v
}

// withEnv returns base without the variables set in extra, followed by
// extra.
func withEnv(base []string, extra ...string) []string {
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if slices.ContainsFunc(extra, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}
