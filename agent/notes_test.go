package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// cancelAfterText returns a tweak that cancels the run's context once the
// streamed text reaches want, and the context to run with.
func cancelAfterText(want string) (context.Context, func(*agent.Config)) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got strings.Builder
	return ctx, func(c *agent.Config) {
		next := c.OnEvent
		c.OnEvent = func(e agent.Event) {
			next(e)
			if d, ok := e.(agent.TextDelta); ok {
				mu.Lock()
				got.WriteString(d.Text)
				if got.String() == want {
					cancel()
				}
				mu.Unlock()
			}
		}
	}
}

// TestInterruptedReplyIsKeptWithAMarker: a reply the user interrupts is
// kept as far as it went, as the assistant's message, and the next user
// message says where the user stopped it; the messages the Worker reports
// (what a session records) are those of the next request.
func TestInterruptedReplyIsKeptWithAMarker(t *testing.T) {
	ctx, tweak := cancelAfterText("a long a")
	var added []agent.AddedMessage
	h := newHarness(t, llmtest.NewScript(
		llmtest.Stall(llmtest.Response{Content: "a long answer that never ends", ChunkSize: 4}, 3),
		llmtest.Text("ok"),
	), func(c *agent.Config) {
		tweak(c)
		c.OnMessage = func(m agent.AddedMessage) { added = append(added, m) }
	})
	out, err := h.worker.Run(ctx, "explain")
	if !errors.Is(err, context.Canceled) || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if _, err := h.worker.Run(context.Background(), "go on, shorter"); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 1)
	n := len(msgs)
	if n != 4 || msgs[1].Content != "explain" || msgs[2].Role != chat.RoleAssistant || msgs[2].Content != "a long a" {
		t.Fatalf("second request: %+v", msgs)
	}
	want := "[Note from tackle: the user interrupted your previous reply here: “a long a”; the rest of it was not sent.]\n\ngo on, shorter"
	if msgs[3].Role != chat.RoleUser || msgs[3].Content != want {
		t.Errorf("the next message = %q, want %q", msgs[3].Content, want)
	}
	var recorded []chat.Message
	for _, m := range added {
		recorded = append(recorded, m.Message)
	}
	if len(recorded) != 5 || recorded[2].Content != "a long a" || recorded[3].Content != want {
		t.Errorf("reported messages %+v", recorded)
	}
	var notes []string
	for _, e := range h.events.all {
		if n, ok := e.(agent.NoteAdded); ok {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "interrupted your previous reply") {
		t.Errorf("NoteAdded events %q", notes)
	}
}

// TestNoTwoUserMessagesUnmarked: a request interrupted before the reply
// began, or one that failed, leaves the user's message last; the next
// one says it got no reply.
func TestNoTwoUserMessagesUnmarked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := newHarness(t, llmtest.NewScript(
		llmtest.Stall(llmtest.Text("never sent"), 0),
		llmtest.Response{Fault: &llmtest.Fault{Status: 500}},
		llmtest.Text("ok"),
	), nil)
	go func() {
		<-h.srv.Stalled()
		cancel()
	}()
	if _, err := h.worker.Run(ctx, "first"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if _, err := h.worker.Run(context.Background(), "second"); err == nil {
		t.Fatal("the 500 did not fail the run")
	}
	if _, err := h.worker.Run(context.Background(), "third"); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 2)
	if len(msgs) != 4 {
		t.Fatalf("third request: %+v", msgs)
	}
	if got := msgs[2].Content; !strings.HasPrefix(got, "[Note from tackle: the user interrupted the request for your reply to the message above before you answered it.]\n\nsecond") {
		t.Errorf("second message = %q", got)
	}
	if got := msgs[3].Content; !strings.HasPrefix(got, "[Note from tackle: the request for your reply to the message above failed (") || !strings.Contains(got, "500") || !strings.HasSuffix(got, "]\n\nthird") {
		t.Errorf("third message = %q", got)
	}
}

// TestNotesGoWithTheNextUserMessage: a note (a /undo's) and the notes a
// resumed session left waiting go with the next message, a command the
// user ran included, once.
func TestNotesGoWithTheNextUserMessage(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("one"), llmtest.Text("two")), func(c *agent.Config) {
		c.Notes = []string{"left from before"}
	})
	h.worker.Note("the user ran /undo: a.go was restored.")
	if _, err := h.worker.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	want := "[Note from tackle: left from before]\n[Note from tackle: the user ran /undo: a.go was restored.]\n\nhi"
	if got := h.request(t, 0)[1].Content; got != want {
		t.Errorf("first message = %q, want %q", got, want)
	}
	h.worker.Note("b.go was restored.")
	if _, err := h.worker.RunCommand(context.Background(), "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.worker.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 1)
	if cmd := msgs[len(msgs)-2].Content; !strings.HasPrefix(cmd, "[Note from tackle: b.go was restored.]\n\nI ") {
		t.Errorf("the command's message = %q", cmd)
	}
	if last := msgs[len(msgs)-1].Content; last != "again" {
		t.Errorf("a note was sent twice: %q", last)
	}
}

// WithoutNotes gives back what the user wrote, for a transcript.
func TestWithoutNotes(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("one")), nil)
	h.worker.Note("the user ran /undo:\nrestored a.go [twice]")
	h.worker.Note("second")
	if _, err := h.worker.Run(context.Background(), "[Note from tackle: typed by the user]\nhi"); err != nil {
		t.Fatal(err)
	}
	sent := h.request(t, 0)[1].Content
	if got := agent.WithoutNotes(sent); got != "[Note from tackle: typed by the user]\nhi" {
		t.Errorf("WithoutNotes(%q) = %q", sent, got)
	}
	if got := agent.WithoutNotes("plain"); got != "plain" {
		t.Errorf("WithoutNotes(plain) = %q", got)
	}
}
