package tui

import (
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
)

// Bridge carries the Worker's events to the UI. The Worker calls Send (its
// Config.OnEvent) on its own goroutines; Send never blocks on the UI: it
// appends to a queue, merging a text (or reasoning) delta into a delta of
// the same kind just before it and a call's progress into its progress
// still queued (each says all there is to say: the latest replaces it),
// and wakes the one Cmd that waits for events. Every other event is kept,
// in order. The UI receives the whole queue as one eventsMsg and issues
// the wait again (bubbletea's examples/realtime pattern).
//
// Events are counted as they are sent. A run's result carries the count
// at the moment Run returned, so the UI can hold the result back until
// every event the run emitted has been shown, even when the result
// overtakes an eventsMsg still on its way.
type Bridge struct {
	mu    sync.Mutex
	sent  uint64 // events sent so far
	queue []agent.Event
	text  *strings.Builder // the text delta at the end of queue, still growing
	// reasoning says the growing delta is reasoning, not answer text.
	reasoning bool
	// progress is where each call's progress is in the queue.
	progress map[string]int
	wake     chan struct{} // holds a token while the queue is not empty
	done     chan struct{}
	once     sync.Once
}

// NewBridge returns an empty Bridge.
func NewBridge() *Bridge {
	return &Bridge{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Send queues an event for the UI. It is safe for concurrent use and never
// waits for the UI.
func (b *Bridge) Send(e agent.Event) {
	b.mu.Lock()
	b.sent++
	if text, reasoning, ok := deltaText(e); ok {
		if b.text != nil && b.reasoning != reasoning {
			b.seal()
		}
		if b.text == nil {
			b.text, b.reasoning = new(strings.Builder), reasoning
			b.queue = append(b.queue, nil) // filled in by take
		}
		b.text.WriteString(text)
	} else if p, ok := e.(agent.ToolCallProgress); ok && b.queuedProgress(p) {
		// Replaced in place: nothing of its call comes between a call's
		// progress reports (they come between its start and its result).
	} else {
		b.seal()
		b.queue = append(b.queue, e)
		switch e := e.(type) {
		case agent.ToolCallProgress:
			if b.progress == nil {
				b.progress = map[string]int{}
			}
			b.progress[e.Call.ID] = len(b.queue) - 1
		case agent.ToolCallStarted:
			delete(b.progress, e.Call.ID) // a call ID used again
		case agent.ToolCallFinished:
			delete(b.progress, e.Call.ID)
		}
	}
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// deltaText returns the text of a text or reasoning delta, which the
// bridge joins with the deltas of the same kind that follow it.
func deltaText(e agent.Event) (text string, reasoning, ok bool) {
	switch d := e.(type) {
	case agent.TextDelta:
		return d.Text, false, true
	case agent.ReasoningDelta:
		return d.Text, true, true
	}
	return "", false, false
}

// queuedProgress replaces the progress of p's call still queued with p
// and reports whether there was one; b.mu is held.
func (b *Bridge) queuedProgress(p agent.ToolCallProgress) bool {
	i, ok := b.progress[p.Call.ID]
	if ok {
		b.queue[i] = p
	}
	return ok
}

// seal turns the growing delta into a queued event; b.mu is held.
func (b *Bridge) seal() {
	if b.text == nil {
		return
	}
	var e agent.Event = agent.TextDelta{Text: b.text.String()}
	if b.reasoning {
		e = agent.ReasoningDelta{Text: b.text.String()}
	}
	b.queue[len(b.queue)-1] = e
	b.text = nil
}

// take empties the queue; upTo counts the events sent up to the last
// one taken.
func (b *Bridge) take() (evs []agent.Event, upTo uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seal()
	q := b.queue
	b.queue = nil
	clear(b.progress)
	return q, b.sent
}

// count is the number of events sent so far.
func (b *Bridge) count() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sent
}

// Close releases the Cmd waiting for events. Events sent after Close are
// dropped when nobody takes them.
func (b *Bridge) Close() { b.once.Do(func() { close(b.done) }) }

// eventsMsg delivers the events queued since the last one, in order;
// upTo counts every event sent up to the last of them.
type eventsMsg struct {
	events []agent.Event
	upTo   uint64
}

// waitForEvents is the Cmd that waits for the Worker's next events. The
// model issues it again after each eventsMsg. After Close it returns nil.
func waitForEvents(b *Bridge) tea.Cmd {
	return func() tea.Msg {
		for {
			select {
			case <-b.wake:
				if evs, upTo := b.take(); len(evs) > 0 {
					return eventsMsg{events: evs, upTo: upTo}
				}
			case <-b.done:
				return nil
			}
		}
	}
}
