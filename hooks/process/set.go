package process

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/child"
)

// Set is the running hook servers of a session.
type Set struct {
	opts    Options
	servers []*server // those whose handshake succeeded

	closeOnce sync.Once
	mu        sync.Mutex
	closed    bool        // reports is closed
	reports   chan string // to Warn, in order, from one goroutine
	reported  chan struct{}
}

// Start checks specs (see Check; a problem is returned and nothing is
// started), then starts every server and shakes hands with each, all at
// once, waiting at most each server's timeout (and ctx). A server whose
// handshake fails is reported through opts.Warn, by name, and not used;
// the others keep running, restarted when they crash, until Close.
func Start(ctx context.Context, specs []Spec, opts Options) (*Set, error) {
	opts.fill()
	cfgs, err := prepare(specs, opts)
	if err != nil {
		return nil, err
	}
	set := &Set{opts: opts, reports: make(chan string, 64), reported: make(chan struct{})}
	type started struct {
		srv      *server
		conn     *conn
		warnings []string
		err      error
	}
	results := make([]started, len(cfgs))
	var wg sync.WaitGroup
	for i := range cfgs {
		wg.Go(func() {
			r := &results[i]
			if r.srv, r.err = newServer(set, cfgs[i]); r.err == nil {
				r.conn, r.warnings, r.err = r.srv.connect(ctx)
			}
		})
	}
	wg.Wait()
	for i, r := range results {
		name := cfgs[i].name
		if r.err != nil {
			if r.srv != nil {
				r.srv.log.Close()
			}
			opts.Warn(fmt.Sprintf("process hook server %q is not used: %v", name, r.err))
			continue
		}
		for _, w := range r.warnings {
			opts.Warn(fmt.Sprintf("process hook server %q: %s", name, w))
		}
		r.srv.registered = slices.Clone(r.conn.grant.intercept)
		r.srv.setState(r.conn, nil, nil)
		set.servers = append(set.servers, r.srv)
		go r.srv.supervise(r.conn)
	}
	go set.reportLoop()
	return set, nil
}

// Register registers a hook on reg for every event each server
// intercepts, named after the server. It registers none when a name is
// already taken by another hook of the event.
func (s *Set) Register(reg *hooks.Registry) error {
	var errs []error
	for _, srv := range s.servers {
		for _, ev := range srv.registered {
			if slices.Contains(reg.Names(ev), srv.cfg.name) {
				errs = append(errs, fmt.Errorf("process hook server %q: %q is already the name of a %s hook (one of tackle's own, or a command hook): the hooks of an event need names of their own", srv.cfg.name, srv.cfg.name, ev))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, srv := range s.servers {
		for _, ev := range srv.registered {
			eventOf(ev).register(reg, srv)
		}
	}
	return nil
}

// Observe sends an event to the servers that observe events of type typ,
// as a hook.event notification whose params are encode's JSON object.
// It never waits: encode runs at most once, on the caller's goroutine,
// and only if a server wants the event; a server that is down (being
// restarted) misses it, and one that reads too slowly has it dropped
// (counted, and reported through Warn).
func (s *Set) Observe(typ string, encode func() ([]byte, error)) {
	if s == nil {
		return
	}
	var line []byte
	for _, srv := range s.servers {
		c := srv.current()
		if c == nil || !c.grant.observes(typ) {
			continue
		}
		if line == nil {
			event, err := encode()
			if err != nil {
				return
			}
			line = eventLine(event)
		}
		c.notify(line, false)
	}
}

// Servers returns the names of the servers in use, in config order.
func (s *Set) Servers() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.servers))
	for i, srv := range s.servers {
		names[i] = srv.cfg.name
	}
	return names
}

// Close shuts every server down: it sends hook.shutdown, closes the
// server's stdin and, if it has not exited after the grace period, kills
// its process group; whatever the server left running in its group is
// killed too. Requests still waiting fail. It returns once every process
// is gone and every warning was passed to Warn.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	s.closeOnce.Do(func() {
		var wg sync.WaitGroup
		for _, srv := range s.servers {
			wg.Go(srv.close)
		}
		wg.Wait()
		s.mu.Lock()
		s.closed = true
		close(s.reports)
		s.mu.Unlock()
	})
	<-s.reported
	return nil
}

// Kill kills every server's process group at once, without hook.shutdown
// or a grace period and without waiting: for a process about to exit
// (a second interrupt), so that no server outlives it. Close is still the
// way to end a session.
func (s *Set) Kill() {
	if s == nil {
		return
	}
	for _, srv := range s.servers {
		srv.mu.Lock()
		c := srv.cur
		srv.mu.Unlock()
		if c != nil {
			child.KillGroup(c.cmd.Process)
		}
	}
}

// report queues a warning for Warn; it never waits (a full queue drops
// it).
func (s *Set) report(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.reports <- msg:
	default:
	}
}

func (s *Set) reportLoop() {
	defer close(s.reported)
	for msg := range s.reports {
		s.opts.Warn(msg)
	}
}
