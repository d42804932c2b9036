package process

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tackle-dev/tackle/tools/child"
)

// Limits of a connection to a server.
const (
	// maxQueued and maxQueuedBytes bound the hook.event notifications
	// waiting to be written to a server; more are dropped and counted.
	maxQueued      = 1024
	maxQueuedBytes = 8 << 20
	// maxLine bounds one line a server writes.
	maxLine = 32 << 20
	// pipeGrace bounds the wait for a server's output pipes after its
	// process group is gone: a process that left the group (setsid) may
	// still hold them.
	pipeGrace = time.Second
	// reportEvery spaces the warnings about dropped notifications.
	reportEvery = 10 * time.Second
)

// conn is one run of a server's process: tackle's ends of its pipes, the
// requests waiting for their answers and the messages waiting to be
// written, which one writer goroutine writes in order.
type conn struct {
	srv    *server
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	// errTail is the end of its stderr, for the message of a crash.
	errTail child.Tail
	// grant is what the hello granted; set before the conn is used.
	grant grant

	mu      sync.Mutex
	pending map[uint64]chan reply // requests waiting for an answer, by id
	queue   []outgoing            // messages to write, in order
	notes   int                   // notifications in queue
	noteLen int                   // their bytes
	dropped int                   // notifications dropped, not yet reported
	closing bool                  // nothing more is queued; the writer closes stdin
	wake    chan struct{}         // tells the writer that queue or closing changed

	// written is closed when the writer has returned.
	written chan struct{}
	// answered is set once the server answered a request (not the hello).
	answered atomic.Bool
	// junk counts the lines of its stdout that were not JSON-RPC; only
	// the first maxJunkReports are reported one by one. Read and written
	// by the reader goroutine alone.
	junk int
	// exited is closed when the process has exited, its output is read
	// and the writer has returned; exitErr (guarded by mu, set before
	// exited is closed) says how it ended.
	exited  chan struct{}
	exitErr error
}

// outgoing is a message to write; id is 0 for a notification.
type outgoing struct {
	id   uint64
	line []byte
}

// reply is the answer to a request, or why there is none.
type reply struct {
	result json.RawMessage
	err    error
}

// start starts the server's process in a process group of its own. The
// pipes are made here, not by os/exec, so that Wait returns as soon as
// the server's own process exits, whoever still holds them.
func start(s *server) (*conn, error) {
	if g := s.opts.Guard; g != nil {
		if err := g(); err != nil {
			return nil, err
		}
	}
	var ends [6]*os.File // inR, inW, outR, outW, errR, errW
	for i := 0; i < len(ends); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends[:i]...)
			return nil, fmt.Errorf("cannot start: %w", err)
		}
		ends[i], ends[i+1] = r, w
	}
	cmd := exec.Command(s.cfg.argv[0], s.cfg.argv[1:]...)
	cmd.Dir, cmd.Env = s.cfg.dir, s.cfg.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends[0], ends[3], ends[5]
	child.SetGroup(cmd)
	err := cmd.Start()
	closeAll(ends[0], ends[3], ends[5]) // the child has its copies
	if err != nil {
		closeAll(ends[1], ends[2], ends[4])
		return nil, fmt.Errorf("cannot start %s: %w", s.cfg.argv[0], err)
	}
	c := &conn{
		srv: s, cmd: cmd, stdin: ends[1], stdout: ends[2], stderr: ends[4],
		pending: map[uint64]chan reply{},
		wake:    make(chan struct{}, 1),
		written: make(chan struct{}),
		exited:  make(chan struct{}),
	}
	s.log.Note("started %q (pid %d)", s.cfg.argv, cmd.Process.Pid)
	var output sync.WaitGroup
	output.Go(c.read)
	output.Go(func() { io.Copy(io.MultiWriter(s.log, &c.errTail), c.stderr) })
	go c.write()
	go c.wait(&output)
	return c, nil
}

// call sends a request and waits for its answer, at most until ctx is
// done. Requests may be answered in any order.
func (c *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.srv.nextID.Add(1)
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil, c.gone()
	}
	c.pending[id] = ch
	c.queue = append(c.queue, outgoing{id, line})
	c.mu.Unlock()
	c.signal()

	select {
	case r := <-ch:
		if r.err == nil && method != methodHello {
			c.answered.Store(true)
		}
		return r.result, r.err
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, fmt.Errorf("no answer to %s (request %d): %w", method, id, context.Cause(ctx))
	}
}

// usable reports whether the conn takes requests, and if not because its
// process exited, how it ended.
func (c *conn) usable() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closing, c.exitErr
}

// gone is why a closing conn takes no more requests.
func (c *conn) gone() error {
	if _, err := c.usable(); err != nil {
		return err
	}
	return errors.New("the server is shutting down")
}

// notify queues a notification line without waiting. Past maxQueued
// waiting notifications it is dropped and counted, unless must is set.
func (c *conn) notify(line []byte, must bool) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	if !must && (c.notes >= maxQueued || c.noteLen+len(line) > maxQueuedBytes) {
		c.dropped++
		first, notes, noteLen := c.dropped == 1, c.notes, c.noteLen
		c.mu.Unlock()
		if first {
			c.srv.log.Note("the server reads too slowly: %d notifications (%d bytes) wait; dropping %s notifications", notes, noteLen, c.srv.eventMethod())
		}
		return
	}
	c.queue = append(c.queue, outgoing{line: line})
	if !must {
		c.notes++
		c.noteLen += len(line)
	}
	c.mu.Unlock()
	c.signal()
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// waiting reports whether request id still waits for its answer.
func (c *conn) waiting(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	return ok
}

// write writes the queued messages in order until the conn closes (then
// it closes stdin, which tells the server to exit) or a write fails (the
// server is gone). A request that stopped waiting is not written.
func (c *conn) write() {
	var lastReport time.Time
	report := func(force bool) {
		c.mu.Lock()
		n := c.dropped
		if n > 0 && (force || time.Since(lastReport) >= reportEvery) {
			c.dropped = 0
		} else {
			n = 0
		}
		c.mu.Unlock()
		if n > 0 {
			lastReport = time.Now()
			c.srv.set.report(fmt.Sprintf("%s reads too slowly: %d %s notifications were dropped (at most %d, or %d MiB, wait)", c.srv.cfg.describe(), n, c.srv.eventMethod(), maxQueued, maxQueuedBytes>>20))
		}
	}
	defer close(c.written)
	defer report(true)
	defer c.stdin.Close()
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closing {
			c.mu.Unlock()
			<-c.wake
			c.mu.Lock()
		}
		batch, closing := c.queue, c.closing
		c.queue, c.notes, c.noteLen = nil, 0, 0
		c.mu.Unlock()
		report(false)
		for _, m := range batch {
			if m.id != 0 && !c.waiting(m.id) {
				continue
			}
			if _, err := c.stdin.Write(m.line); err != nil {
				c.srv.log.Note("cannot write to the server: %v", err)
				return
			}
		}
		if closing && len(batch) == 0 {
			return
		}
	}
}

// read reads the server's stdout line by line until it ends.
func (c *conn) read() {
	defer c.junkTotal()
	r := bufio.NewReaderSize(c.stdout, 64<<10)
	for {
		line, err := readLine(r)
		if errors.Is(err, errLineTooLong) {
			c.garbage(fmt.Errorf("%w; got a line longer than %d MiB", errGarbage, maxLine>>20))
			continue
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			c.handle(line)
		}
		if err != nil {
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads up to and without the next newline. A line longer than
// maxLine is skipped and gives errLineTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// handle dispatches one line from the server.
func (c *conn) handle(line []byte) {
	msg, id, err := parseLine(line)
	switch {
	case err != nil:
		c.garbage(err)
		return
	case msg.Method != "":
		c.serverRequest(msg)
		return
	}
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	switch {
	case !ok:
		c.srv.log.Note("an answer to request %d, which no longer waits (it timed out, or was never sent): ignored", id)
	case msg.Error != nil:
		ch <- reply{err: msg.Error}
	default:
		ch <- reply{result: msg.Result}
	}
}

// garbage fails every request in flight with err, a line that is not a
// JSON-RPC message: it cannot be told which request it was for. With
// none in flight it is reported as a warning.
func (c *conn) garbage(err error) {
	c.srv.log.Note("%v", err)
	c.mu.Lock()
	pending := c.pending
	c.pending = map[uint64]chan reply{}
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- reply{err: err}
	}
	c.junk++
	switch {
	case len(pending) > 0:
	case c.junk <= maxJunkReports:
		c.srv.set.report(fmt.Sprintf("%s: %v", c.srv.cfg.describe(), err))
	case c.junk == maxJunkReports+1:
		where := ""
		if p := c.srv.log.Path(); p != "" {
			where = " (each is noted in " + p + ")"
		}
		c.srv.set.report(fmt.Sprintf("%s goes on writing lines that are not JSON-RPC: they are counted, not shown%s", c.srv.cfg.describe(), where))
	}
}

// maxJunkReports is how many lines that are not JSON-RPC are reported one
// by one, per process; the rest are counted (a server writing its logs to
// stdout would bury the transcript under warnings: 200,000 lines made up
// to 400,000 warning lines).
const maxJunkReports = 3

// junkTotal reports how many lines were not JSON-RPC, when more were
// than were reported one by one.
func (c *conn) junkTotal() {
	if c.junk > maxJunkReports {
		c.srv.set.report(fmt.Sprintf("%s wrote %d lines that were not JSON-RPC in all", c.srv.cfg.describe(), c.junk))
	}
}

// serverRequest answers a request from the server, which tackle does
// not take, with a JSON-RPC error; a notification is logged.
func (c *conn) serverRequest(msg incoming) {
	c.srv.log.Note("the server sent %q, which tackle does not take: ignored", msg.Method)
	if len(msg.ID) == 0 || string(msg.ID) == "null" {
		return
	}
	line, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", msg.ID, rpcError{Code: codeMethodNotFound, Message: "tackle takes no requests from hook servers: " + msg.Method}})
	if err == nil {
		c.notify(append(line, '\n'), true)
	}
}

// wait waits for the process to exit, kills what it left in its group,
// waits for its output (at most pipeGrace once the group is gone), fails
// the requests still waiting and waits for the writer to return.
func (c *conn) wait(output *sync.WaitGroup) {
	err := c.cmd.Wait()
	child.KillGroup(c.cmd.Process)
	copied := make(chan struct{})
	go func() { output.Wait(); close(copied) }()
	t := time.NewTimer(pipeGrace)
	select {
	case <-copied:
	case <-t.C:
		closeAll(c.stdout, c.stderr) // unblocks the readers
		<-copied
	}
	t.Stop()
	closeAll(c.stdout, c.stderr)

	c.mu.Lock()
	shutdown := c.closing
	c.mu.Unlock()
	exitErr := c.describeExit(err, shutdown)
	c.mu.Lock()
	c.exitErr, c.closing = exitErr, true
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	c.srv.log.Note("%v", exitErr)
	for _, ch := range pending {
		ch <- reply{err: exitErr}
	}
	c.signal()
	c.stdin.Close() // unblocks a writer stuck on a full pipe
	<-c.written
	close(c.exited)
}

// describeExit says how the process ended, with the end of its stderr
// unless tackle ended it.
func (c *conn) describeExit(err error, shutdown bool) error {
	msg := "the server exited"
	switch {
	case shutdown:
		return errors.New("the server was shut down")
	case err != nil:
		msg += " (" + err.Error() + ")"
	}
	if t := strings.TrimSpace(c.errTail.String()); t != "" {
		msg += ": " + lastLines(t, 5)
	}
	return errors.New(msg + c.srv.log.Where())
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// shutdown sends hook.shutdown (not to a picoclaw hook), closes stdin
// once everything queued is written, and waits grace for the process to exit before it kills the
// process group.
func (c *conn) shutdown(grace time.Duration) {
	// picoclaw only closes stdin: its hooks know no hook.shutdown.
	if line, err := encodeRequest(0, methodShutdown, struct{}{}); err == nil && c.srv.cfg.pico == nil {
		c.notify(line, true)
	}
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.signal()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
		c.srv.log.Note("still running %v after hook.shutdown: killing its process group", grace)
		child.KillGroup(c.cmd.Process)
		<-c.exited
	}
}

// kill ends a conn at once, as after a failed handshake.
func (c *conn) kill() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.signal()
	child.KillGroup(c.cmd.Process)
	<-c.exited
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}
