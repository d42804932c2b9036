package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/wire"
)

// Process limits.
const (
	maxStdout  = 1 << 20  // more is a failure
	maxStderr  = 64 << 10 // only the tail is kept
	maxExcerpt = 2 << 10  // of stderr, in a failure's message
	// pipeGrace bounds the wait for the output pipes after the hook's
	// process group is gone: a process that left the group (setsid) may
	// still hold them.
	pipeGrace = time.Second
)

// runner runs one command hook's process.
type runner struct {
	name  string
	event hooks.Event
	argv  []string
	dir   string
	env   []string
	tools []string // path.Match patterns; nil means every tool
	log   io.Writer
	grace time.Duration
	guard func() error // asked before the process starts (Options.Guard)
}

// exit is what a hook's process did, when it did not fail.
type exit struct {
	// blocked is exit status 2.
	blocked bool
	stdout  []byte
	// stderr is the tail of stderr, trailing white space trimmed.
	stderr string
}

var errTooLarge = errors.New("output too large: stdout exceeds 1 MiB")

// run starts the command with input as JSON on stdin and waits for it. It
// fails on any exit status but 0 and 2, on a signal, on too much output
// and when ctx is done (which kills the process group).
func (r *runner) run(ctx context.Context, input any) (exit, error) {
	stdin, err := wire.Encode(input)
	if err != nil {
		return exit{}, fmt.Errorf("encode input: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return exit{}, fmt.Errorf("not started: %w", err)
	}
	p, err := r.start()
	if err != nil {
		return exit{}, fmt.Errorf("cannot start command: %w", err)
	}
	defer p.close()
	stdout, stderr, waitErr := p.communicate(ctx, stdin, r.grace)
	res := exit{stdout: stdout.buf.Bytes(), stderr: strings.TrimRight(stderr.String(), " \t\r\n")}
	r.logStderr(res.stderr)

	if err := ctx.Err(); err != nil {
		return exit{}, fmt.Errorf("command killed: %w%s", err, excerpt(res.stderr))
	}
	if stdout.over {
		return exit{}, errTooLarge
	}
	return exitOf(res, waitErr)
}

// hookProcess is a started hook process and tackle's ends of its pipes.
type hookProcess struct {
	cmd    *exec.Cmd
	stdin  *os.File // written
	stdout *os.File // read
	stderr *os.File // read
}

// start starts the command in a process group of its own. The pipes are
// made here, not by os/exec, so that Wait returns as soon as the hook's
// own process exits, whoever still holds them.
func (r *runner) start() (*hookProcess, error) {
	if r.guard != nil {
		if err := r.guard(); err != nil {
			return nil, err
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	setGroup(cmd)
	err = cmd.Start()
	closeAll(inR, outW, errW) // the child has its copies
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	return &hookProcess{cmd: cmd, stdin: inW, stdout: outR, stderr: errR}, nil
}

// close closes tackle's ends of the pipes.
func (p *hookProcess) close() { closeAll(p.stdin, p.stdout, p.stderr) }

// communicate writes stdin to the process, collects its output and waits
// for it to exit; ctx done, or too much output, kills its group. Then it
// kills what is left of the group and waits for the output pipes, at most
// grace. It returns the output and Wait's error.
func (p *hookProcess) communicate(ctx context.Context, stdin []byte, grace time.Duration) (*capBuffer, *tailBuffer, error) {
	proc := p.cmd.Process
	stdout := &capBuffer{max: maxStdout, full: func() { killGroup(proc) }}
	stderr := &tailBuffer{max: maxStderr}
	var wg sync.WaitGroup
	wg.Go(func() {
		// A hook need not read its input: EPIPE is not an error.
		p.stdin.Write(stdin)
		p.stdin.Close()
	})
	wg.Go(func() { io.Copy(stdout, p.stdout) })
	wg.Go(func() { io.Copy(stderr, p.stderr) })

	stop := context.AfterFunc(ctx, func() { killGroup(proc) })
	waitErr := p.cmd.Wait()
	stop()
	// A one-shot hook leaves nothing behind: what is left of its group
	// (background children) is killed now.
	killGroup(proc)
	p.drain(&wg, grace)
	return stdout, stderr, waitErr
}

// drain waits for the pipe copies of wg, at most grace: a process that
// left the group may still hold the pipes, so then it closes them, which
// ends the copies.
func (p *hookProcess) drain(wg *sync.WaitGroup, grace time.Duration) {
	copied := make(chan struct{})
	go func() { wg.Wait(); close(copied) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-copied:
	case <-t.C:
		p.close() // unblocks the copies
		<-copied
	}
}

// exitOf is what a hook that exited with waitErr did, given its output in
// res: exit status 0 and 2 (blocked) are results, anything else a failure
// with the tail of stderr.
func exitOf(res exit, waitErr error) (exit, error) {
	if waitErr == nil {
		return res, nil
	}
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) {
		return exit{}, waitErr
	}
	switch code := ee.ExitCode(); {
	case code == 2:
		res.blocked = true
		return res, nil
	case code > 0:
		return exit{}, fmt.Errorf("exit status %d%s%s", code, exitHint(code), excerpt(res.stderr))
	}
	return exit{}, fmt.Errorf("%v%s", ee.ProcessState, excerpt(res.stderr)) // e.g. "signal: killed"
}

// exitHint explains the exit statuses a shell uses for a command it could
// not run.
func exitHint(code int) string {
	switch code {
	case 126:
		return " (command not executable)"
	case 127:
		return " (command not found)"
	}
	return ""
}

// logStderr copies a hook's stderr to the log writer, if any.
func (r *runner) logStderr(s string) {
	if r.log == nil || s == "" {
		return
	}
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString("[hook " + r.name + "] ")
		b.WriteString(strings.TrimRight(line, "\n"))
		b.WriteByte('\n')
	}
	io.WriteString(r.log, b.String())
}

// excerpt formats the tail of a failed hook's stderr for its error.
func excerpt(stderr string) string {
	if stderr == "" {
		return ""
	}
	if len(stderr) > maxExcerpt {
		stderr = "…" + validTail(stderr[len(stderr)-maxExcerpt:])
	}
	return ": " + stderr
}

// validTail drops the partial rune a byte cut may leave at the start of s.
func validTail(s string) string {
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// capBuffer keeps what is written up to max bytes; a write beyond it
// fails, marks the buffer as over and calls full once.
type capBuffer struct {
	max  int
	full func()
	buf  bytes.Buffer
	over bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if b.over {
		return 0, errTooLarge
	}
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		b.full()
		return 0, errTooLarge
	}
	return b.buf.Write(p)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= b.max {
		b.dropped += int64(len(b.buf) + len(p) - b.max)
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.max; over > 0 {
		b.dropped += int64(over)
		b.buf = b.buf[:copy(b.buf, b.buf[over:])]
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// String returns the tail, marked as such if anything was dropped.
func (b *tailBuffer) String() string {
	if b.dropped == 0 {
		return string(b.buf)
	}
	return fmt.Sprintf("[… %d earlier bytes of stderr dropped]\n%s", b.dropped, validTail(string(b.buf)))
}
