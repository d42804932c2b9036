package session

import (
	"fmt"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/agent"
)

// Recorder writes a Worker's run to a session: give it the Worker's
// messages (Message, the Worker's Config.OnMessage) and events (Event,
// from its Config.OnEvent). It syncs the file at the end of every turn
// and on Close.
//
// Recording never stops a run. A record that cannot be written (a full
// disk) is kept, in order, and written before the next one; the first
// failure is reported to warn, once; Close reports the records still not
// written.
type Recorder struct {
	mu     sync.Mutex
	w      *Writer
	create func() (*Writer, error) // makes w at the first record; nil once it did
	warn   func(error)
	redact func(string) string
	queue  []Record // records not written yet, oldest first
	warned bool
	closed bool
}

// NewRecorder returns a Recorder that appends to w (a session being
// continued). warn is told about the first record that could not be
// written.
func NewRecorder(w *Writer, warn func(error)) *Recorder {
	return &Recorder{w: w, warn: warn}
}

// Recorder returns a Recorder of a new session of h.Workspace, whose file
// is created with the first record (a session that records nothing
// leaves no file).
func (s *Store) Recorder(h Header, warn func(error)) *Recorder {
	return &Recorder{create: func() (*Writer, error) { return s.Create(h) }, warn: warn}
}

// SetRedact sets the redaction of every record (Writer.SetRedact).
func (r *Recorder) SetRedact(redact func(string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redact = redact
	if r.w != nil {
		r.w.SetRedact(redact)
	}
}

// ID returns the session's id, "" while its file does not exist.
func (r *Recorder) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return ""
	}
	return r.w.ID()
}

// Message records a message as it entered the conversation.
func (r *Recorder) Message(m agent.AddedMessage) {
	msg := m.Message
	r.Append(Record{Kind: KindMessage, Message: &msg, Prompt: m.Prompt, Status: m.Status})
}

// Event records what the session keeps of an event (see recordEvent).
// The end of a turn — a Run or Resume that did not pause — syncs the
// file. (A pause is answered at once by a piped run, or waits for a
// person, and is synced when the turn ends or the session closes.)
func (r *Recorder) Event(e agent.Event) {
	if rec, ok := recordEvent(e); ok {
		r.Append(rec)
	}
	if f, ok := e.(agent.TurnFinished); ok && f.Outcome.Status != agent.StatusPaused {
		r.Sync()
	}
}

// recordEvent is the record an event becomes, if any: the one place that
// says which events a session keeps. Text deltas, tool starts and
// finishes (their results are messages), warnings and retries (their
// feedback is a message) are not kept.
func recordEvent(e agent.Event) (Record, bool) {
	switch e := e.(type) {
	case agent.HookDecision:
		d := e.Decision
		return Record{Kind: KindDecision, Decision: &d}, true
	case agent.UsageReport:
		u := e.Request
		return Record{Kind: KindUsage, Usage: &u, Context: e.Context, Window: e.Window}, true
	case agent.PausedEvent:
		// The pending calls are those of the state (Load finds them
		// there): a paused call's arguments are written once.
		return Record{Kind: KindPaused, Paused: e.State}, true
	case agent.ToolCallDecided:
		return Record{Kind: KindAnswered, Answers: []Answer{{CallID: e.Call.ID, Verdict: e.Verdict.String(), Reason: e.Reason, By: e.By}}}, true
	case agent.NoteAdded:
		return Record{Kind: KindNote, Note: e.Text}, true
	case agent.ModelChanged:
		return Record{Kind: KindModel, Model: e.Model}, true
	case agent.CheckFinished:
		c := e
		return Record{Kind: KindCheck, Check: &c}, true
	case agent.Compacted:
		// The whole conversation after the compaction: on load it replaces
		// every message before it (Loaded.Messages).
		return Record{Kind: KindCompaction, Compaction: &Compaction{
			Messages: e.Messages, Summary: e.Summary, Replaced: e.Replaced, Pruned: e.Pruned, Focus: e.Focus,
		}}, true
	case agent.TodoUpdated:
		return Record{Kind: KindTodos, Todos: e.Todos}, true
	case agent.TurnFinished:
		o := e.Outcome
		return Record{Kind: KindOutcome, Outcome: &Outcome{Status: string(o.Status), Reason: o.Reason, Usage: o.Usage}}, true
	}
	return Record{}, false
}

// Append records rec after the records before it. Its time is now when
// it has none.
func (r *Recorder) Append(rec Record) {
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.queue = append(r.queue, rec)
	r.flush()
}

// flush writes the queued records in order, stopping at the first that
// fails; r.mu is held.
func (r *Recorder) flush() {
	if r.w == nil {
		w, err := r.create()
		if err != nil {
			r.failed(err)
			return
		}
		r.w, r.create = w, nil
		if r.redact != nil {
			w.SetRedact(r.redact)
		}
	}
	for len(r.queue) > 0 {
		if err := r.w.Append(r.queue[0]); err != nil {
			r.failed(err)
			return
		}
		r.queue[0] = Record{}
		r.queue = r.queue[1:]
	}
}

func (r *Recorder) failed(err error) {
	if !r.warned && r.warn != nil {
		r.warned = true
		r.warn(fmt.Errorf("the session is not being saved (tackle goes on and tries again with every record): %w", err))
	}
}

// Sync writes what is queued and flushes the file to disk.
func (r *Recorder) Sync() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.w == nil {
		return
	}
	r.flush()
	if err := r.w.Sync(); err != nil {
		r.failed(err)
	}
}

// Close writes what is queued, syncs and closes the file, which releases
// the session to other processes. It returns an error naming the records
// that could not be written.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.w == nil && len(r.queue) == 0 {
		return nil
	}
	r.flush()
	var err error
	if r.w != nil {
		err = r.w.Close()
	}
	if n := len(r.queue); n > 0 {
		return fmt.Errorf("the session lost its last %d records: they could not be written", n)
	}
	return err
}
