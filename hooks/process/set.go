package process

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

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

	// turns counts the turns that finished (turn_finished events), for
	// the turn ids picoclaw hooks get; eventSeq numbers their events.
	turns    atomic.Int64
	eventSeq atomic.Uint64
}

// Start checks specs (see Check; a problem is returned and nothing is
// started), then starts every server and shakes hands with each, all at
// once, waiting at most each server's timeout (and ctx). A server whose
// handshake fails is reported through opts.Warn, by name, and not used;
// the others keep running, restarted when they crash, until Close.
func Start(ctx context.Context, specs []Spec, opts Options) (*Set, error) {
	return StartAll(ctx, specs, nil, opts)
}

// StartAll is Start with picoclaw's process hooks too, from the
// picoclaw_hooks blocks pico (see CheckPicoclaw; a problem is returned
// and nothing is started). A picoclaw hook whose handshake fails is
// reported and started again, as after a crash: meanwhile its
// interceptors let calls through and its approve_tool denies them, as
// picoclaw's error policy has it.
func StartAll(ctx context.Context, specs []Spec, pico []PicoclawSource, opts Options) (*Set, error) {
	opts.fill()
	cfgs, err := prepare(specs, opts)
	if err != nil {
		return nil, err
	}
	picoCfgs, warnings, err := preparePicoclaw(pico, opts)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		opts.Warn(w)
	}
	cfgs = append(cfgs, picoCfgs...)
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
		what := cfgs[i].describe()
		if r.err != nil && r.srv != nil && cfgs[i].pico != nil {
			opts.Warn(fmt.Sprintf("%s did not start: %v; tackle starts it again, and meanwhile its hooks fail as picoclaw's do (approve_tool denies the call, the others let it through)", what, r.err))
			r.srv.registered = cfgs[i].pico.events()
			r.srv.startErr = r.err
			set.servers = append(set.servers, r.srv)
			go r.srv.supervise(nil)
			continue
		}
		if r.err != nil {
			if r.srv != nil {
				r.srv.log.Close()
			}
			opts.Warn(fmt.Sprintf("%s is not used: %v", what, r.err))
			continue
		}
		for _, w := range r.warnings {
			opts.Warn(fmt.Sprintf("%s: %s", what, w))
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
		for ev, names := range srv.hookNames() {
			for _, name := range names {
				if slices.Contains(reg.Names(ev), name) {
					errs = append(errs, fmt.Errorf("%s: %q is already the name of a %s hook (one of tackle's own, or a command hook): the hooks of an event need names of their own", srv.cfg.describe(), name, ev))
				}
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, srv := range s.servers {
		if srv.cfg.pico != nil {
			srv.registerPico(reg)
			continue
		}
		for _, ev := range srv.registered {
			eventOf(ev).register(reg, srv)
		}
	}
	return nil
}

// hookNames are the names of the server's hooks by event.
func (s *server) hookNames() map[hooks.Event][]string {
	if s.cfg.pico != nil {
		return s.picoHookNames()
	}
	out := map[hooks.Event][]string{}
	for _, ev := range s.registered {
		out[ev] = []string{s.cfg.name}
	}
	return out
}

// Observe sends an event to the servers that observe events of type typ,
// as a hook.event notification whose params are encode's JSON object (the
// event as --output stream-json prints it), and to the picoclaw hooks that
// observe its kind as a hook.runtime_event (picoclaw_events.go). It
// counts the turns (turn_finished) for picoclaw's turn ids. It never waits: encode runs at most once, on the caller's goroutine,
// and only if a server wants the event; a server that is down (being
// restarted) misses it, and one that reads too slowly has it dropped
// (counted, and reported through Warn).
func (s *Set) Observe(typ string, encode func() ([]byte, error)) {
	if s == nil {
		return
	}
	if typ == "turn_finished" {
		defer s.turns.Add(1)
	}
	var event, line, picoLine []byte
	var picoKind string // of picoLine; "" before it is made, or when there is none
	picoDone := false
	encoded := func() []byte {
		if event == nil {
			event, _ = encode()
		}
		return event
	}
	for _, srv := range s.servers {
		c := srv.current()
		if c == nil {
			continue
		}
		if p := srv.cfg.pico; p != nil {
			if !slices.ContainsFunc(picoKindsOf[typ], p.observes) {
				continue
			}
			if !picoDone {
				picoDone = true
				if ev, ok := s.picoEventOf(typ, encoded()); ok {
					if b, err := encodeRequest(0, picoMethodRuntimeEvent, ev); err == nil {
						picoLine, picoKind = b, ev.Kind
					}
				}
			}
			if picoLine != nil && p.observes(picoKind) {
				c.notify(picoLine, false)
			}
			continue
		}
		if !c.grant.observes(typ) {
			continue
		}
		if line == nil {
			if encoded() == nil {
				return
			}
			line = eventLine(event)
		}
		c.notify(line, false)
	}
}

// turnID is the id of the turn going on, for picoclaw hooks.
func (s *Set) turnID() string {
	return fmt.Sprintf("%s-turn-%d", picoAgentID, s.turns.Load()+1)
}

// sessionKey is the session's id, for picoclaw hooks.
func (s *Set) sessionKey() string {
	if s.opts.SessionID == nil {
		return ""
	}
	return s.opts.SessionID()
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
