package process

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/wire"
	"github.com/tackle-dev/tackle/tools/child"
)

// errShutDown is why a server that was shut down takes no requests.
var errShutDown = errors.New("the server was shut down")

// server is one configured hook server: its current process (conn), and
// the supervisor that restarts it when it crashes.
type server struct {
	cfg    config
	opts   *Options
	set    *Set
	log    *child.Log
	nextID atomic.Uint64
	// registered are the events it has hooks for, from its first hello.
	registered []hooks.Event

	mu       sync.Mutex
	cur      *conn         // nil while it is down
	changed  chan struct{} // closed (and replaced) when cur or dead changes
	down     error         // why cur is nil
	dead     error         // set when it takes no more requests
	failures int           // starts in a row that answered no request
	// startErr is why a picoclaw hook did not start: its supervisor
	// starts it again, and meanwhile its hooks fail by their policy.
	startErr error

	ctx  context.Context // cancelled by close
	stop context.CancelFunc
	done chan struct{} // closed when supervise returns
}

func newServer(set *Set, cfg config) (*server, error) {
	log, err := child.OpenLog(set.opts.LogDir, cfg.log(), func() {
		set.report(fmt.Sprintf("%s writes more than %d MiB to stderr: its log keeps the newest output (%s and .old), older output is dropped", cfg.describe(), child.MaxLogSize>>20, filepath.Join(set.opts.LogDir, cfg.log()+".log")))
	})
	if err != nil {
		return nil, err
	}
	s := &server{cfg: cfg, opts: &set.opts, set: set, log: log, changed: make(chan struct{}), done: make(chan struct{})}
	s.ctx, s.stop = context.WithCancel(context.Background())
	return s, nil
}

// connect starts the process and shakes hands with it, within the
// server's timeout and ctx. It returns the conn and warnings about what
// the hello asked for and did not get.
func (s *server) connect(ctx context.Context) (*conn, []string, error) {
	c, err := start(s)
	if err != nil {
		return nil, nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	if s.cfg.pico != nil {
		return s.picoHello(hctx, c)
	}
	raw, err := c.call(hctx, methodHello, s.helloParams())
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer to hook.hello within %v", s.cfg.timeout)
	}
	var g grant
	var warnings []string
	if err == nil {
		g, warnings, err = readHello(raw, &s.cfg, s.opts.ObserveTypes)
	}
	if err != nil {
		c.kill()
		where := s.log.Where()
		if strings.Contains(err.Error(), where) {
			where = "" // the exit already names the log
		}
		return nil, nil, fmt.Errorf("handshake: %w%s", err, where)
	}
	c.grant = g
	s.log.Note("hello: it calls itself %q; intercepts %v; observes %v (all: %v); approves: %v", g.name, g.intercept, g.observe, g.observeAll, g.approve)
	return c, warnings, nil
}

// picoHello shakes hands with a picoclaw hook: hook.hello with its name,
// protocol version 1 and the modes its config gives it, answered with
// any JSON object. What it does comes from its config, not its answer.
func (s *server) picoHello(ctx context.Context, c *conn) (*conn, []string, error) {
	p := s.cfg.pico
	raw, err := c.call(ctx, picoMethodHello, picoHello{Name: p.name, Version: 1, Modes: p.modes()})
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer to hook.hello within %v", s.cfg.timeout)
	}
	var name string
	if err == nil {
		name, err = readPicoHello(raw)
	}
	if err != nil {
		c.kill()
		where := s.log.Where()
		if strings.Contains(err.Error(), where) {
			where = ""
		}
		return nil, nil, fmt.Errorf("handshake: %w%s", err, where)
	}
	c.grant = grant{name: name, intercept: p.events(), observeAll: p.observe && p.kinds == nil, observe: p.kinds, approve: p.approve}
	s.log.Note("hello (picoclaw): it calls itself %q; modes %v; observes %v", name, p.modes(), p.kinds)
	return c, nil, nil
}

func (s *server) helloParams() helloParams {
	evs := s.cfg.events
	if evs == nil {
		evs = allEvents()
	}
	names := make([]string, len(evs))
	for i, ev := range evs {
		names[i] = ev.String()
	}
	return helloParams{
		Version: Version, Name: s.cfg.name, Tackle: s.opts.Version, Workspace: s.cfg.dir,
		Events: names, Observe: s.opts.ObserveTypes, Approve: s.cfg.approve,
	}
}

func (s *server) header(ctx context.Context, ev hooks.Event) wire.Header {
	return wire.Header{Event: ev.String(), Workspace: s.cfg.dir, Agent: wire.Agent(hooks.AgentOf(ctx))}
}

// eventMethod is the method of the server's notifications of events.
func (s *server) eventMethod() string {
	if s.cfg.pico != nil {
		return picoMethodRuntimeEvent
	}
	return methodEvent
}

// current is the live conn, or nil while the server is down.
func (s *server) current() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// live returns the live conn, waiting (at most until ctx is done) while
// the server restarts; it fails at once when tackle gave up on it.
func (s *server) live(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		c, changed, down, dead := s.cur, s.changed, s.down, s.dead
		s.mu.Unlock()
		if dead != nil {
			return nil, dead
		}
		if c != nil {
			ok, exitErr := c.usable()
			if ok {
				return c, nil
			}
			down = exitErr // supervise is about to restart it
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the server to restart (%v): %w", down, context.Cause(ctx))
		}
	}
}

// set records the server's state and wakes those waiting in live.
func (s *server) setState(c *conn, down, dead error) {
	s.mu.Lock()
	s.cur, s.down, s.dead = c, down, dead
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// supervise watches the live conn c: when its process exits it restarts
// the server, with a backoff, until close or until too many restarts in
// a row answered nothing.
func (s *server) supervise(c *conn) {
	defer close(s.done)
	if c == nil { // it did not start: start it again, as after a crash
		s.setState(nil, s.startErr, nil)
		if c = s.restart(s.startErr); c == nil {
			return
		}
	}
	for {
		select {
		case <-c.exited:
		case <-s.ctx.Done():
			c.shutdown(s.opts.Grace)
			s.setState(nil, nil, errShutDown)
			return
		}
		if s.ctx.Err() != nil { // it exited as tackle was closing it
			s.setState(nil, nil, errShutDown)
			return
		}
		if c.answered.Load() {
			s.failures = 0
		}
		_, exitErr := c.usable()
		s.setState(nil, exitErr, nil)
		if c = s.restart(exitErr); c == nil {
			return
		}
	}
}

// restart starts the server again after it failed with why, waiting
// longer after each failure in a row. It returns the new live conn, or
// nil when it gave up or the server is being closed.
func (s *server) restart(why error) *conn {
	for {
		s.failures++
		if s.failures > s.opts.MaxRestarts {
			dead := fmt.Errorf("tackle gave up on the server after %d restarts in a row without an answer; the last: %w", s.opts.MaxRestarts, why)
			s.setState(nil, why, dead)
			s.set.report(fmt.Sprintf("%s: %v", s.cfg.describe(), dead))
			return nil
		}
		wait := s.backoff()
		s.set.report(fmt.Sprintf("%s failed (%v); restarting it in %v", s.cfg.describe(), why, wait))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			s.setState(nil, nil, errShutDown)
			return nil
		}
		c, warnings, err := s.connect(s.ctx)
		if err != nil {
			if s.ctx.Err() != nil {
				s.setState(nil, nil, errShutDown)
				return nil
			}
			why = err
			continue
		}
		for _, w := range warnings {
			s.set.report(fmt.Sprintf("%s: %s", s.cfg.describe(), w))
		}
		for _, ev := range c.grant.intercept {
			if !slices.Contains(s.registered, ev) {
				s.set.report(fmt.Sprintf("%s asks for %s since its restart, which it did not at startup: not sent", s.cfg.describe(), ev))
			}
		}
		s.set.report(fmt.Sprintf("%s is running again", s.cfg.describe()))
		s.setState(c, nil, nil)
		return c
	}
}

// backoff is the wait before the next restart: MinBackoff, doubled for
// each failure in a row, at most MaxBackoff.
func (s *server) backoff() time.Duration {
	d := s.opts.MinBackoff
	for i := 1; i < s.failures && d < s.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, s.opts.MaxBackoff)
}

// close shuts the server down and waits until its process is gone.
func (s *server) close() {
	s.stop()
	<-s.done
	s.log.Close()
}
