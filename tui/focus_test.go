package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// focusSession has two tool calls with long outputs and a reasoning.
func focusSession(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 40})
	h.hold = true
	h.typeText("go").keys("enter")
	a, b := bashCall("a", "seq 1 20"), bashCall("b", "seq 101 120")
	out := func(from int) string {
		var s []string
		for i := range 20 {
			s = append(s, "line "+itoa(from+i))
		}
		return strings.Join(s, "\n")
	}
	h.events(
		agent.ReasoningDelta{Text: "think one\nthink two\nthink three"},
		agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{a, b}, Reasoning: "think one\nthink two\nthink three"}},
		agent.ToolCallStarted{Call: a},
		agent.ToolCallFinished{Call: a, Result: chat.ToolResult{Status: chat.StatusOK, Content: out(1)}},
		agent.ToolCallStarted{Call: b},
		agent.ToolCallFinished{Call: b, Result: chat.ToolResult{Status: chat.StatusOK, Content: out(101)}},
	)
	h.send(frameMsg{})
	return h
}

// TestItemCursor: alt+up/alt+down move a cursor over the tool calls and
// the reasoning; ctrl+o then expands only the focused one (and again
// folds it); esc leaves the cursor, and ctrl+o expands everything again.
func TestItemCursor(t *testing.T) {
	h := focusSession(t)
	s := h.screen()
	if strings.Contains(s, "line 20") || strings.Contains(s, "line 120") {
		t.Fatalf("outputs expanded before any key:\n%s", s)
	}
	h.keys("alt+up") // the last tool call
	h.keys("ctrl+o")
	s = h.screen()
	if !strings.Contains(s, "line 120") || strings.Contains(s, "line 20\n") {
		t.Errorf("ctrl+o on the focused call did not expand only it:\n%s", s)
	}
	h.keys("alt+up", "ctrl+o") // the first call
	s = h.screen()
	if !strings.Contains(s, "line 20") || !strings.Contains(s, "line 120") {
		t.Errorf("the first call did not expand:\n%s", s)
	}
	h.keys("alt+up", "ctrl+o") // the reasoning
	if s = h.screen(); !strings.Contains(s, "think two") {
		t.Errorf("the focused reasoning did not expand:\n%s", s)
	}
	h.keys("alt+down", "ctrl+o") // fold the first call again
	if s = h.screen(); strings.Contains(s, "line 20\n") || strings.Contains(s, "line 19") {
		t.Errorf("ctrl+o did not fold the focused call:\n%s", s)
	}
	h.keys("esc")
	if h.m.focus != -1 {
		t.Fatal("esc did not leave the item cursor")
	}
	h.keys("ctrl+o")
	if !h.m.expanded {
		t.Error("ctrl+o without a focused item does not expand everything")
	}
}

// TestItemCursorFollowsTheWindow: moving the cursor to an item above the
// window scrolls the transcript to it.
func TestItemCursorFollowsTheWindow(t *testing.T) {
	h := focusSession(t)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 8})
	h.keys("ctrl+o") // everything long: the first items are far above
	for range 3 {
		h.keys("alt+up")
	}
	if s := h.screen(); !strings.Contains(s, "Thought") {
		t.Errorf("the window did not follow the cursor to the reasoning:\n%s", s)
	}
}

func TestGoldenItemCursor(t *testing.T) {
	h := focusSession(t)
	h.keys("alt+up", "ctrl+o")
	golden(t, "item_cursor_80x40", h.screen())
}
