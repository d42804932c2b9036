package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestCompactCommand(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("/compact the public API").keys("enter")
	if !h.m.running || !strings.Contains(h.screen(), "compacting the conversation 0s · esc to interrupt") {
		t.Errorf("while compacting:\n%s", h.screen())
	}
	h.typeText("next question").keys("enter") // waits in the queue
	h.events(agent.CompactStarted{Trigger: hooks.CompactManual, Tokens: 9000, Window: 10000},
		agent.Compacted{Trigger: hooks.CompactManual, Focus: "the public API", Summary: "…", Replaced: 12, Before: 9000, After: 1500, Window: 10000})
	h.release()
	if got := h.agent.compacts; len(got) != 1 || got[0] != "the public API" {
		t.Fatalf("Compact calls = %q", got)
	}
	screen := h.screen()
	for _, want := range []string{
		"⇣ conversation compacted (/compact): summarized 12 messages: ≈9000 → ≈1500",
		"  tokens (15% of the window); focus: the public API",
		"ctx 15%",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if h.m.compacting || len(h.agent.runs) != 1 || h.agent.runs[0] != "next question" {
		t.Errorf("after the compaction: compacting %v, runs %q", h.m.compacting, h.agent.runs)
	}
}

func TestCompactCommandOutcomes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{agent.ErrNothingToCompact, "· nothing to compact: the conversation has no turn before the latest"},
		{fmt.Errorf("%w by pre_compact hook %q: %s", agent.ErrCompactCancelled, "keep", "audit"), `⚠ compaction cancelled by pre_compact hook "keep": audit`},
		{fmt.Errorf("summary request: %w", &agent.APIError{Status: 503, Message: "overloaded"}), "✗ compaction failed, the conversation is unchanged: summary request: 503 Service\n  Unavailable: overloaded"},
	} {
		h := newHarness(t)
		h.agent.compactErr = tc.err
		h.typeText("/compact").keys("enter")
		if s := h.screen(); !strings.Contains(s, tc.want) || h.m.running {
			t.Errorf("%v: running %v, screen:\n%s", tc.err, h.m.running, s)
		}
	}
}

func TestCompactWhileATurnRuns(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("go").keys("enter")
	h.typeText("/compact").keys("enter")
	if len(h.agent.compacts) != 0 || !strings.Contains(h.screen(), "a turn is running: /compact when it ends") {
		t.Errorf("compacts %q, screen:\n%s", h.agent.compacts, h.screen())
	}
}

func TestContextPercentInStatusLine(t *testing.T) {
	h := newHarness(t)
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 4000, CompletionTokens: 500, TotalTokens: 4500}, Context: 4500, Window: 128000})
	if s := h.screen(); !strings.Contains(s, "4.5k tok · ctx 3%") || strings.Contains(s, "(ctx") {
		t.Errorf("known window:\n%s", s)
	}
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 110000, CompletionTokens: 800, TotalTokens: 110800}, Context: 110800, Window: 128000})
	if s := h.screen(); !strings.Contains(s, "ctx 86%") {
		t.Errorf("nearly full:\n%s", s)
	}
	if !strings.Contains(h.m.View().Content, h.m.styles.Warn.Render("ctx 86%")) {
		t.Errorf("a nearly full context is not shown as a warning")
	}
	// Another model: its window is not known until its first request.
	h.typeText("/model other").keys("enter")
	if s := h.screen(); strings.Contains(s, "ctx 86%") || !strings.Contains(s, "(ctx 110.0k)") {
		t.Errorf("after /model:\n%s", s)
	}
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 900, TotalTokens: 900}, Context: 900})
	if s := h.screen(); strings.Contains(s, "%") {
		t.Errorf("unknown window: a percentage is shown:\n%s", s)
	}
}

func TestARunInterruptedWhileCompactingDoesNotLeaveItShown(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("go").keys("enter")
	h.events(agent.CompactStarted{Trigger: hooks.CompactAuto, Tokens: 9000, Window: 10000})
	if !strings.Contains(h.screen(), "compacting the conversation") {
		t.Fatalf("an automatic compaction is not shown:\n%s", h.screen())
	}
	h.keys("esc")
	h.release()
	h.hold = true
	h.typeText("again").keys("enter")
	if s := h.screen(); strings.Contains(s, "compacting") || !strings.Contains(s, "working") {
		t.Errorf("the next turn:\n%s", s)
	}
}
