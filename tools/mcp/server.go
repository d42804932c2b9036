package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/child"
)

// server is one configured server and its connection, if any.
type server struct {
	set        *Set
	name, part string
	spec       Spec
	startup    time.Duration // bound on connecting and listing tools
	callLimit  time.Duration // bound on one tool call
	log        *child.Log

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc

	mu         sync.Mutex
	state      State
	err        string
	conn       *conn         // the live connection while Ready
	connecting chan struct{} // closed when the connect in progress ends
	starting   *conn         // the connection being made, for kill
	failures   int           // failed starts in a row
	nextTry    time.Time     // no start before this, after a failure
	tools      []ToolStatus  // the tools last listed
	leftOut    []string      // the tools listed that were not taken, and why
	impl       string        // what the server calls itself
	closed     bool          // close was called
	killed     bool          // kill was called: a process started now dies at once
	// instructions are the server's own words on using it (initialize's
	// result), kept while it waits to start again.
	instructions string
	resources    []ResourceStatus                // the resources last listed
	templates    []ResourceStatus                // the resource templates last listed
	prompts      []PromptStatus                  // the prompts last listed
	dirty        lists                           // the lists the server said changed, not read since
	refreshing   chan struct{}                   // closed when the refresh under way ends; nil when none runs
	progress     map[string]func(tools.Progress) // the calls waiting for progress, by token
	tokens       int                             // progress tokens given out
	// started is closed once the first start has ended (Set.WaitStarted).
	started     chan struct{}
	startedOnce sync.Once
	// hide replaces the values ${VAR}s expanded to with their names in
	// what tackle says (a token in a URL must not reach a warning).
	hide *strings.Replacer
}

// conn is one connection to a server: the SDK's session, and for a stdio
// server its process.
type conn struct {
	sess    *mcp.ClientSession
	cmd     *exec.Cmd     // nil for a remote server
	exited  chan struct{} // closed when cmd has exited (nil for remote)
	waitErr error         // cmd.Wait's error, once exited is closed
	tail    *child.Tail   // the end of its stderr
	stdout  *os.File      // our ends of its stdout and stdin, closed by
	stdin   *os.File      // stopProcess (the SDK closes stdin first)

	// What the sniffer read of the server's messages, under server.mu:
	// the tools that require task-augmented calls, the refusals told,
	// and the refusals made (their count, the last one's method).
	taskRequired map[string]bool
	told         map[string]bool
	refusals     int
	refused      string
}

func newConn() *conn { return &conn{taskRequired: map[string]bool{}, told: map[string]bool{}} }

func newServer(set *Set, name, part string, spec Spec) (*server, error) {
	log, err := child.OpenLog(set.opts.LogDir, part, func() {
		if set.opts.Warn != nil {
			set.opts.Warn(fmt.Sprintf("MCP server %q writes more than %d MiB to stderr: its log keeps the newest output (%s and .old), older output is dropped", name, child.MaxLogSize>>20, filepath.Join(set.opts.LogDir, part+".log")))
		}
	})
	if err != nil {
		return nil, err
	}
	s := &server{set: set, name: name, part: part, spec: spec, log: log, started: make(chan struct{}), progress: map[string]func(tools.Progress){}}
	s.startup, s.callLimit = spec.timeouts()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if !spec.IsEnabled() {
		s.state = Disabled
		s.startEnded()
	} else {
		s.state = Starting
	}
	return s, nil
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked()
}

func (s *server) statusLocked() Status {
	st := Status{
		Name: s.name, Part: s.part, Transport: s.spec.transport(), Target: s.target(),
		State: s.state, Err: s.err, Log: s.log.Path(), Implementation: s.impl,
		Instructions: s.instructions,
		Tools:        slices.Clone(s.tools),
		LeftOut:      slices.Clone(s.leftOut),
		Resources:    slices.Clone(s.resources),
		Templates:    slices.Clone(s.templates),
		Prompts:      slices.Clone(s.prompts),
	}
	return st
}

// startEnded records that the server's first start has ended.
func (s *server) startEnded() { s.startedOnce.Do(func() { close(s.started) }) }

// target is the command line or URL as configured.
func (s *server) target() string {
	if s.spec.transport() == Stdio {
		return strings.Join(append([]string{s.spec.Command}, s.spec.Args...), " ")
	}
	return s.spec.URL
}

// setState changes the state and reports the change.
func (s *server) setState(state State, why string) {
	s.mu.Lock()
	s.state, s.err = state, why
	st := s.statusLocked()
	s.mu.Unlock()
	s.set.report(st)
}

// ensure starts the server if it is not running and may be started now,
// and waits for that start (or one already under way) to end, or for ctx.
// It returns the live connection, or why there is none.
func (s *server) ensure(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	for {
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, errors.New("tackle is shutting down")
		case s.state == Disabled:
			s.mu.Unlock()
			return nil, errors.New("it is disabled in the config")
		case s.conn != nil:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case s.connecting != nil:
			wait := s.connecting
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, fmt.Errorf("it was still starting: %w", ctx.Err())
			}
			s.mu.Lock()
			if s.conn == nil && s.state == Failed {
				err := errors.New(s.err)
				s.mu.Unlock()
				return nil, err
			}
			continue
		case s.state == Failed && s.set.opts.Now().Before(s.nextTry):
			err := fmt.Errorf("%s; tackle will try to start it again in %v", s.err, s.nextTry.Sub(s.set.opts.Now()).Round(time.Second))
			s.mu.Unlock()
			return nil, err
		}
		done := make(chan struct{})
		s.connecting = done
		s.state, s.err = Starting, ""
		go s.start(done)
	}
}

// start connects in the background (ensure's callers wait on done) and
// records the outcome: the live connection, or why there is none.
func (s *server) start(done chan struct{}) {
	s.set.report(s.status())
	c, err := s.connect()

	s.mu.Lock()
	s.connecting, s.starting = nil, nil
	defer s.startEnded()
	defer close(done)
	if err != nil {
		s.failures++
		s.nextTry = s.set.opts.Now().Add(s.backoff())
		s.state, s.err = Failed, err.Error()
		if s.closed {
			s.state, s.err = Stopped, ""
		}
		st := s.statusLocked()
		s.mu.Unlock()
		s.log.Note("%v", err)
		s.set.report(st)
		return
	}
	if s.closed {
		s.mu.Unlock()
		s.shut(c)
		return
	}
	s.failures = 0
	s.conn = c
	s.dirty = 0 // connect has just listed everything
	s.state = Ready
	st := s.statusLocked()
	s.mu.Unlock()
	s.set.report(st)
	go s.watch(c)
}

// restart ends the live connection, if any, and starts the server again
// now.
func (s *server) restart() (*conn, error) {
	s.mu.Lock()
	if s.state == Disabled {
		s.mu.Unlock()
		return nil, errors.New("it is disabled in the config")
	}
	c := s.conn
	s.conn = nil
	s.nextTry = time.Time{}
	s.mu.Unlock()
	if c != nil {
		s.shut(c)
	}
	return s.ensure(context.Background())
}

// backoff is the wait after s.failures failed starts in a row.
func (s *server) backoff() time.Duration {
	d := s.set.opts.MinBackoff
	for i := 1; i < s.failures && d < s.set.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, s.set.opts.MaxBackoff)
}

// connect starts the server (a stdio server's process), shakes hands and
// lists its tools, resources and prompts, within the startup timeout;
// its tools then replace the server's in the registry.
func (s *server) connect() (*conn, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.startup)
	defer cancel()
	spec, hide, err := s.spec.expanded(s.set.lookupEnv)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.hide = hide
	s.mu.Unlock()
	c := newConn()
	seen := func(msg []byte) { s.observe(c, msg) }
	var transport mcp.Transport
	switch spec.transport() {
	case Stdio:
		if transport, err = s.startProcess(spec, c, seen); err != nil {
			return nil, err
		}
	case HTTP:
		transport = &mcp.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: s.httpClient(spec.Headers, seen), MaxRetries: 2}
	case SSE:
		transport = &mcp.SSEClientTransport{Endpoint: spec.URL, HTTPClient: s.httpClient(spec.Headers, seen)}
	}
	opts := &mcp.ClientOptions{
		// The sniffer starts the refreshes as the notifications arrive;
		// the SDK's handlers make it subscribe to them (and drop its
		// caches of the lists), and start one more: harmless.
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { s.changed(c, listTools) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.changed(c, listResources) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { s.changed(c, listPrompts) },
	}
	s.keepLogs(opts)
	client := mcp.NewClient(&mcp.Implementation{Name: "tackle", Version: s.set.opts.Version}, opts)
	addRoots(client, s.set.opts.Workdir)
	fail := func(err error) (*conn, error) {
		// A process that failed to start needs no grace: it is killed,
		// and so is one that did not start before tackle shut down.
		var msg string
		switch {
		case s.ctx.Err() != nil:
			msg = "tackle shut down while it started"
		case errors.Is(err, context.DeadlineExceeded):
			msg = s.failure(c, fmt.Errorf("it did not answer within %v", s.startup), false)
		default:
			msg = s.failure(c, err, true)
		}
		s.stopProcess(c, 0)
		if c.sess != nil {
			c.sess.Close()
		}
		if spec.transport() == Stdio {
			msg += s.log.Where()
		}
		return nil, errors.New(s.hidden(msg))
	}
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return fail(err)
	}
	c.sess = sess
	if r := sess.InitializeResult(); r != nil {
		s.mu.Lock()
		if r.ServerInfo != nil {
			s.impl = strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
		}
		s.instructions = r.Instructions
		s.mu.Unlock()
		s.askForLogs(ctx, sess)
	}
	if err := s.list(ctx, c, listAll); err != nil {
		return fail(fmt.Errorf("listing its tools: %w", err))
	}
	s.log.Note("ready")
	return c, nil
}

// failure words why a connection ended: err, or how the process exited
// when it has (waiting up to the grace period for that when waitExit),
// and the tail of its stderr.
func (s *server) failure(c *conn, err error, waitExit bool) string {
	msg := err.Error()
	if c.exited != nil {
		select {
		case <-c.exited:
			msg = exitMessage(c.waitErr)
		default:
			if !waitExit {
				break
			}
			select {
			case <-c.exited:
				msg = exitMessage(c.waitErr)
			case <-time.After(s.set.opts.Grace):
				// It is still running: the error stands as it is.
			}
		}
	}
	if c.tail != nil {
		if t := strings.TrimSpace(c.tail.String()); t != "" {
			msg += "; its stderr ends: " + lastLines(t, 5)
		}
	}
	return msg
}

// exitMessage says how a process ended.
func exitMessage(err error) string {
	if err == nil {
		return "it exited"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "it exited (" + ee.ProcessState.String() + ")"
	}
	return "it stopped: " + err.Error()
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startProcess starts a stdio server's process in a process group of its
// own, its stderr going to the log and the tail.
func (s *server) startProcess(spec Spec, c *conn, seen func([]byte)) (mcp.Transport, error) {
	dir := s.set.opts.Workdir
	if spec.Cwd != "" {
		dir = spec.Cwd
		if !filepath.IsAbs(spec.Cwd) {
			dir = filepath.Join(s.set.opts.Workdir, spec.Cwd)
		}
	}
	// tackle's PATH (injected), never a relative entry of it.
	path, _ := s.set.lookupEnv("PATH")
	prog, err := child.LookPath(spec.Command, path, dir)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", spec.Command, err)
	}
	if g := s.set.opts.Guard; g != nil {
		if err := g(); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(prog, spec.Args...)
	cmd.Dir = dir
	// What every child gets (tools.ChildEnv: the allow list, no
	// secrets), then the server's env.
	cmd.Env, _ = tools.ChildEnv(s.set.opts.Env, s.set.opts.EnvAllow)
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		cmd.Env = append(cmd.Env, k+"="+spec.Env[k])
	}
	c.tail = &child.Tail{}
	cmd.Stderr = io.MultiWriter(s.log, c.tail)
	cmd.WaitDelay = s.set.opts.Grace // a grandchild holding stderr open
	child.SetGroup(cmd)
	// Pipes of our own, not cmd's StdinPipe and StdoutPipe: cmd.Wait
	// (which runs as soon as the process exits) would close their read
	// end under the SDK, losing what the server wrote last.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("cannot start %s: %w", spec.Command, err)
	}
	c.stdout, c.stdin = outR, inW
	s.log.Note("started %q (pid %d)", append([]string{s.spec.Command}, s.spec.Args...), cmd.Process.Pid)
	c.cmd, c.exited = cmd, make(chan struct{})
	s.mu.Lock()
	s.starting = c
	killed := s.killed
	s.mu.Unlock()
	if killed {
		child.KillGroup(cmd.Process) // kill came while it was being started
	}
	go func() {
		c.waitErr = cmd.Wait()
		s.log.Note("%s", exitMessage(c.waitErr))
		close(c.exited)
		// The connection ends when its stdout does; a process it started
		// may hold that open: then the exit itself ends it.
		time.AfterFunc(s.set.opts.Grace, func() { s.lost(c, errors.New("the process exited")) })
	}()
	// Closing the connection closes the server's stdin only: the MCP way
	// to end a stdio server. Its stdout is read until it exits, so that
	// what it still writes (the answer to a call it was told to cancel)
	// does not kill it with SIGPIPE before it has cleaned up; stopProcess
	// closes it.
	return &mcp.IOTransport{Reader: io.NopCloser(&sniffer{r: outR, mode: sniffLines, seen: seen}), Writer: inW}, nil
}

// httpClient is the Set's HTTP client, sending headers with each request
// and giving what the server sends to seen as it arrives.
func (s *server) httpClient(headers map[string]string, seen func([]byte)) *http.Client {
	base := s.set.opts.HTTPClient
	c := *base
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if len(headers) > 0 {
		next = headerTransport{headers: headers, next: next}
	}
	c.Transport = sniffTransport{next: next, seen: seen}
	return &c
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.next.RoundTrip(req)
}

// hidden is msg with the values ${VAR}s expanded to replaced by their
// names.
func (s *server) hidden(msg string) string {
	s.mu.Lock()
	h := s.hide
	s.mu.Unlock()
	if h == nil {
		return msg
	}
	return h.Replace(msg)
}

// watch waits for a connection to end and, unless tackle ended it, marks
// the server failed: its tools stay, and the next call starts it again.
func (s *server) watch(c *conn) {
	c.sess.Wait()
	s.lost(c, errors.New("the connection closed"))
}

// lost records that connection c has ended without tackle ending it
// (once, whoever sees it first: watch, or a call that failed on it): the
// server is failed, its tools stay, and the next call starts it again at
// once.
func (s *server) lost(c *conn, err error) {
	s.mu.Lock()
	if s.conn != c || s.closed {
		s.mu.Unlock()
		return // closed by tackle, or already replaced
	}
	s.conn = nil
	s.nextTry = time.Time{}
	s.mu.Unlock()
	why := "it stopped: " + s.hidden(s.failure(c, err, true))
	go c.sess.Close() // may wait for calls still on it, which fail
	s.stopProcess(c, s.set.opts.Grace)
	s.log.Note("%s", why)
	where := ""
	if c.cmd != nil {
		where = s.log.Where()
	}
	s.setState(Failed, why+where)
}

// caller returns the function that calls the server's tool named tool.
func (s *server) caller(tool string) func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	return func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		c, err := s.ensure(ctx)
		if err != nil {
			return tools.Fail("The MCP server %s is not available: %v. Do not call its tools again unless the user asks.", s.name, err), nil
		}
		s.mu.Lock()
		refusals := c.refusals
		s.mu.Unlock()
		res, err := s.call(ctx, c, tool, args)
		if errors.Is(err, mcp.ErrSessionMissing) {
			// A remote server that no longer knows the session (it
			// restarted) refused the request without running it: call
			// again on a new session.
			s.lost(c, err)
			if c, err = s.ensure(ctx); err != nil {
				return tools.Fail("The MCP server %s is not available: %v. Do not call its tools again unless the user asks.", s.name, err), nil
			}
			res, err = s.call(ctx, c, tool, args)
		}
		switch {
		case err == nil:
			// The tools the call added are offered with its result.
			s.settle(ctx)
			return result(res), nil
		case ctx.Err() != nil:
			return tools.Fail("The call was cancelled; the MCP server %s was told to stop it.", s.name), nil
		case errors.Is(err, context.DeadlineExceeded):
			return tools.Fail("The MCP server %s did not answer within %v; it was told to stop the call.", s.name, s.callLimit), nil
		case dead(err):
			why := s.hidden(s.failure(c, err, true))
			s.lost(c, err)
			return tools.Fail("The MCP server %s stopped during the call: %s. tackle starts it again at the next call of one of its tools.", s.name, why), nil
		}
		s.mu.Lock()
		refused := c.refused
		if c.refusals == refusals {
			refused = ""
		}
		s.mu.Unlock()
		if refused != "" {
			return tools.Fail("The MCP server %s asked tackle for %s during the call, which tackle does not support: the call did not finish (%s).", s.name, refused, s.hidden(err.Error())), nil
		}
		return tools.Fail("The MCP server %s refused the call: %s", s.name, s.hidden(err.Error())), nil
	}
}

// call calls the tool on connection c, within the tool timeout, with a
// progress token when the caller listens for progress.
func (s *server) call(ctx context.Context, c *conn, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.callLimit)
	defer cancel()
	params := &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{}}
	askForLogsWith(c.sess, params.Meta)
	if report, ok := tools.ProgressReporter(ctx); ok {
		token := s.listen(report)
		defer s.unlisten(token)
		params.SetProgressToken(token)
	}
	return c.sess.CallTool(ctx, params)
}

// listen gives out a progress token whose notifications go to report.
func (s *server) listen(report func(tools.Progress)) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens++
	token := fmt.Sprintf("tackle-%d", s.tokens)
	s.progress[token] = report
	return token
}

func (s *server) unlisten(token string) {
	s.mu.Lock()
	delete(s.progress, token)
	s.mu.Unlock()
}

// progressed passes a progress notification on to the call it is for.
func (s *server) progressed(token string, p tools.Progress) {
	s.mu.Lock()
	report := s.progress[token]
	s.mu.Unlock()
	if report != nil {
		p.Message = chat.OneLine(s.hidden(p.Message), maxProgressMessage)
		report(p)
	}
}

// maxProgressMessage bounds a progress notification's message.
const maxProgressMessage = 200

// dead reports whether a call's error err means connection c is lost.
// A server that is there refuses a call with a JSON-RPC error answer;
// any other error (the connection closed, the session is gone, the
// stream broke, the process exited) means the connection is lost.
func dead(err error) bool {
	var answer *jsonrpc.Error
	return !errors.As(err, &answer)
}

// close shuts the server down and waits for it to be gone.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	c := s.conn
	s.conn = nil
	wasUp := s.state != Disabled
	s.mu.Unlock()
	s.cancel() // stops a start under way
	if c != nil {
		s.shut(c)
	}
	// Wait for a start under way to give up.
	s.mu.Lock()
	wait := s.connecting
	s.mu.Unlock()
	if wait != nil {
		<-wait
	}
	s.startEnded()
	if wasUp {
		s.setState(Stopped, "")
	}
	s.log.Close()
}

// shut ends a connection: the session is closed (for a stdio server
// that closes its stdin), and a process still running after the grace
// period has its group killed.
func (s *server) shut(c *conn) {
	closed := make(chan struct{})
	go func() {
		c.sess.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(s.set.opts.Grace):
	}
	s.stopProcess(c, s.set.opts.Grace)
}

// stopProcess waits up to grace for a stdio server's process to exit,
// then kills its process group (what it started included).
func (s *server) stopProcess(c *conn, grace time.Duration) {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.exited:
	case <-time.After(grace):
		s.log.Note("still running %v after its stdin was closed: killing its process group", grace)
	}
	child.KillGroup(c.cmd.Process) // and anything it left behind
	<-c.exited
	c.stdout.Close() // ends the SDK's read of it, if a leftover held it open
	c.stdin.Close()  // a connection never made has not closed it
}

// kill kills the server's process group at once.
func (s *server) kill() {
	s.mu.Lock()
	s.killed = true
	cs := []*conn{s.conn, s.starting}
	s.mu.Unlock()
	for _, c := range cs {
		if c != nil && c.cmd != nil && c.cmd.Process != nil {
			child.KillGroup(c.cmd.Process)
		}
	}
}
