package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %02d\n", prefix, i)
	}
	return b.String()
}

// A running command's output shows under its line as it comes: the last
// lines, the newest replacing the older; the result then shows as ever.
func TestLiveToolOutput(t *testing.T) {
	h := newHarness(t)
	call := bashCall("c1", "make")
	h.events(
		agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{call}}},
		agent.ToolCallStarted{Call: call},
		agent.ToolCallProgress{Call: call, Output: "step 01\nstep 02\n"},
	)
	s := h.screen()
	if !strings.Contains(s, "bash  make\n  ⎿ step 01\n    step 02\n") {
		t.Fatalf("live output:\n%s", s)
	}
	h.events(agent.ToolCallProgress{Call: call, Output: numbered("step", 12) + "compiling "})
	s = h.screen()
	if strings.Contains(s, "step 05") || !strings.Contains(s, "  ⎿ step 06\n") || !strings.Contains(s, "    step 12\n    compiling") {
		t.Fatalf("the last %d lines:\n%s", liveOutput, s)
	}
	h.events(agent.ToolCallFinished{Call: call, Result: chat.ToolResult{CallID: "c1", Status: chat.StatusOK, Content: strings.TrimSpace(numbered("step", 12) + "compiling done")}})
	s = h.screen()
	if !strings.Contains(s, "✓ bash  make\n  ⎿ step 01\n") || strings.Contains(s, "step 12") || !strings.Contains(s, "9 more lines") {
		t.Fatalf("the result after the live output:\n%s", s)
	}
}

// A line rewound by carriage returns (a progress bar) shows its last
// state; what the output holds is shown, never sent to the terminal.
func TestLiveToolOutputIsText(t *testing.T) {
	h := newHarness(t)
	call := bashCall("c1", "fetch")
	h.events(
		agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{call}}},
		agent.ToolCallStarted{Call: call},
		agent.ToolCallProgress{Call: call, Output: "10%\r20%\r30%\r\nbell\a tab\tesc\x1b]0;title\a end\n"},
	)
	if s := h.screen(); !strings.Contains(s, "  ⎿ 30%\n") || strings.Contains(s, "10%") {
		t.Errorf("the rewound line:\n%s", s)
	}
	view := h.m.View().Content
	if strings.Contains(view, "\a") || strings.Contains(view, "\x1b]") || strings.Contains(view, "\t") {
		t.Errorf("the view holds the output's control characters: %q", view)
	}
	if s := h.screen(); !strings.Contains(s, `bell\x07 tab    esc end`) {
		t.Errorf("the control characters are not shown:\n%s", s)
	}
}

// The user's own command shows its output whole, not folded to a few
// lines as the model's calls are; it streams as theirs does.
func TestUserCommandOutputIsNotFolded(t *testing.T) {
	h := newHarness(t)
	h.typeText("!seq 1 20").keys("enter")
	call := bashCall("user_command_1", "seq 1 20")
	h.events(
		agent.ToolCallStarted{Call: call},
		agent.ToolCallProgress{Call: call, Output: numbered("n", 3)},
	)
	if s := h.screen(); !strings.Contains(s, "  ⎿ n 01\n    n 02\n    n 03") {
		t.Fatalf("live output of the user's command:\n%s", s)
	}
	h.events(agent.ToolCallFinished{Call: call, Result: chat.ToolResult{Status: chat.StatusOK, Content: strings.TrimSpace(numbered("n", 12))}})
	s := h.screen()
	if !strings.Contains(s, "n 12") || strings.Contains(s, "more lines") {
		t.Errorf("the user's command's output is folded:\n%s", s)
	}

	// The model's call of the same command is folded.
	h.typeText("again").keys("enter")
	mcall := bashCall("c2", "seq 1 20")
	h.events(
		agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{mcall}}},
		agent.ToolCallFinished{Call: mcall, Result: chat.ToolResult{Status: chat.StatusOK, Content: strings.TrimSpace(numbered("m", 12))}},
	)
	if s := h.screen(); strings.Contains(s, "m 12") || !strings.Contains(s, "8 more lines") {
		t.Errorf("the model's call is not folded:\n%s", s)
	}
}
