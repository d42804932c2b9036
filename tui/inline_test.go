package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// printed returns the text the model printed above the program with
// tea.Println (the terminal's scrollback in inline mode).
func (h *harness) printed() string {
	var b strings.Builder
	for _, m := range h.out {
		v := reflect.ValueOf(m)
		if v.Kind() == reflect.Struct && v.Type().Name() == "printLineMessage" {
			b.WriteString(ansi.Strip(v.Field(0).String()))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestInlinePrintsFinishedEntriesIntoScrollback(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.typeText("hello").keys("enter")
	if got := h.printed(); !strings.Contains(got, "› hello") {
		t.Fatalf("the user's message was not printed: %q", got)
	}
	// Events of a turn (the fake run already returned; the events are
	// what a real one would emit).
	h.events(agent.TextDelta{Text: "partial answer"})
	if got := h.printed(); strings.Contains(got, "partial answer") {
		t.Fatal("streaming text was printed before it finished")
	}
	if s := h.screen(); !strings.Contains(s, "partial answer") {
		t.Fatalf("streaming text is not in the live view:\n%s", s)
	}
	call := bashCall("c1", "make")
	h.events(agent.TextDelta{Text: " done."}, agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{call}}})
	if got := h.printed(); !strings.Contains(got, "partial answer done.") {
		t.Fatalf("the finished answer was not printed: %q", got)
	}
	// The tool call is live until it finishes: it stays in the view.
	if s := h.screen(); !strings.Contains(s, "bash  make") {
		t.Fatalf("the live tool call is not in the view:\n%s", s)
	}
	// Quitting prints what is left, so the whole session is in the
	// scrollback.
	h.keys("ctrl+d")
	if got := h.printed(); !strings.Contains(got, "bash  make") || !h.quit() {
		t.Fatalf("quit did not print the rest: %q", got)
	}
	if s := h.m.View().Content; strings.TrimSpace(s) != "" {
		t.Errorf("the view is not empty after quitting: %q", s)
	}
}

func TestInlineViewFitsTheTerminal(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.hold = true
	h.typeText("long").keys("enter")
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d\n\n", i)
	}
	h.events(agent.TextDelta{Text: b.String()})
	lines := strings.Split(h.m.View().Content, "\n")
	if len(lines) > 24 {
		t.Fatalf("the inline view is %d lines on a 24-line terminal", len(lines))
	}
	if s := h.screen(); !strings.Contains(s, "line 99") {
		t.Fatalf("the newest text is not shown:\n%s", s)
	}
}
