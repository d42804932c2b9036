package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestBridgeMergesDeltasAndKeepsOrder(t *testing.T) {
	b := NewBridge()
	b.Send(agent.TextDelta{Text: "Hel"})
	b.Send(agent.TextDelta{Text: "lo"})
	b.Send(agent.Warning{Message: "w"})
	b.Send(agent.TextDelta{Text: " again"})
	b.Send(agent.TurnFinished{})
	msg := waitForEvents(b)().(eventsMsg)
	want := []agent.Event{agent.TextDelta{Text: "Hello"}, agent.Warning{Message: "w"}, agent.TextDelta{Text: " again"}, agent.TurnFinished{}}
	if fmt.Sprint(msg.events) != fmt.Sprint(want) {
		t.Fatalf("events = %v\nwant %v", msg.events, want)
	}
	if msg.upTo != 5 || b.count() != 5 {
		t.Errorf("upTo = %d, count = %d, want 5", msg.upTo, b.count())
	}
}

func TestBridgeCloseReleasesTheWait(t *testing.T) {
	b := NewBridge()
	done := make(chan any)
	go func() { done <- waitForEvents(b)() }()
	b.Close()
	if msg := <-done; msg != nil {
		t.Fatalf("wait after Close = %v", msg)
	}
}

// TestBridgeConcurrentSenders sends from many goroutines while the UI
// side takes; every non-delta event arrives once, each sender's events in
// its order, and all the text arrives.
func TestBridgeConcurrentSenders(t *testing.T) {
	b := NewBridge()
	const senders, per = 8, 500
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				b.Send(agent.TextDelta{Text: "x"})
				b.Send(agent.Warning{Message: fmt.Sprintf("%d/%d", s, i)})
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	next := make([]int, senders)
	text := 0
	warnings := 0
	for warnings < senders*per {
		msg := waitForEvents(b)().(eventsMsg)
		for _, e := range msg.events {
			switch e := e.(type) {
			case agent.TextDelta:
				text += len(e.Text)
			case agent.Warning:
				var s, i int
				fmt.Sscanf(e.Message, "%d/%d", &s, &i)
				if i != next[s] {
					t.Fatalf("sender %d: event %d arrived, want %d", s, i, next[s])
				}
				next[s]++
				warnings++
			}
		}
	}
	<-finished
	if evs, _ := b.take(); len(evs) > 0 {
		for _, e := range evs {
			if d, ok := e.(agent.TextDelta); ok {
				text += len(d.Text)
			}
		}
	}
	if text != senders*per {
		t.Errorf("text = %d bytes, want %d", text, senders*per)
	}
}

func TestBridgeNeverBlocksTheWorker(t *testing.T) {
	b := NewBridge()
	// Nobody takes: Send must still return at once, and deltas stay one
	// event.
	for range 100000 {
		b.Send(agent.TextDelta{Text: "y"})
	}
	evs, _ := b.take()
	if len(evs) != 1 || len(evs[0].(agent.TextDelta).Text) != 100000 {
		t.Fatalf("queued %d events", len(evs))
	}
}

func TestVisible(t *testing.T) {
	plain := noStyleForTest()
	cases := map[string]string{
		"ls -la":                   "ls -la",
		"echo \x1b[31mred":         `echo \x1b[31mred`,
		"a\rb":                     `a\rb`,
		"tab\there":                `tab\there`,
		"del\x7f":                  `del\x7f`,
		"bell\a":                   `bell\x07`,
		"c1\u009bx":                `c1\u009bx`,
		"rtl \u202eexe.txt":        `rtl \u202eexe.txt`,
		"isolate \u2066x\u2069":    `isolate \u2066x\u2069`,
		"zero\u200bwidth":          `zero\u200bwidth`,
		"nb\u00a0sp":               `nb\u00a0sp`,
		"bom\ufeff":                `bom\ufeff`,
		"bad \xff utf8":            `bad \xff utf8`,
		"two\nlines":               "two\nlines",
		"ünïcödé 日本 ✓":             "ünïcödé 日本 ✓",
		"line sep\u2028para\u2029": `line sep\u2028para\u2029`,
	}
	for in, want := range cases {
		if got := visible(in, plain); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
		if got := visibleStyled(in, plain, plain); got != want {
			t.Errorf("visibleStyled(%q) = %q, want %q", in, got, want)
		}
	}
	if got := plainText("\x1b[32mok\x1b[0m\tdone\r\n", plain); got != "ok    done\n" {
		t.Errorf("plainText = %q", got)
	}
	if !strings.Contains(plainText("a\x07b", plain), `\x07`) {
		t.Errorf("plainText keeps a bell")
	}
}

// A call's progress replaces its progress still queued, where that was;
// another call's, and the same ID's after its result, are kept.
func TestBridgeMergesACallsProgress(t *testing.T) {
	a, c := chat.ToolCall{ID: "a"}, chat.ToolCall{ID: "c"}
	b := NewBridge()
	b.Send(agent.ToolCallStarted{Call: a})
	b.Send(agent.ToolCallProgress{Call: a, Output: "1\n"})
	b.Send(agent.ToolCallProgress{Call: c, Output: "c\n"})
	b.Send(agent.TextDelta{Text: "x"})
	b.Send(agent.ToolCallProgress{Call: a, Output: "1\n2\n"})
	b.Send(agent.ToolCallFinished{Call: a})
	b.Send(agent.ToolCallStarted{Call: a}) // the ID again, in a later reply
	b.Send(agent.ToolCallProgress{Call: a, Output: "again\n"})
	msg := waitForEvents(b)().(eventsMsg)
	want := []agent.Event{
		agent.ToolCallStarted{Call: a},
		agent.ToolCallProgress{Call: a, Output: "1\n2\n"},
		agent.ToolCallProgress{Call: c, Output: "c\n"},
		agent.TextDelta{Text: "x"},
		agent.ToolCallFinished{Call: a},
		agent.ToolCallStarted{Call: a},
		agent.ToolCallProgress{Call: a, Output: "again\n"},
	}
	if fmt.Sprint(msg.events) != fmt.Sprint(want) {
		t.Fatalf("events = %v\nwant %v", msg.events, want)
	}
	if msg.upTo != 8 {
		t.Errorf("upTo = %d, want 8", msg.upTo)
	}
	// Taken: the next progress is queued anew.
	b.Send(agent.ToolCallProgress{Call: c, Output: "c2\n"})
	if msg := waitForEvents(b)().(eventsMsg); len(msg.events) != 1 || msg.events[0].(agent.ToolCallProgress).Output != "c2\n" {
		t.Errorf("after the take: %v", msg.events)
	}
}
