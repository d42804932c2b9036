package tui

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestContextListsThePartsWithTheirSize(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.ContextParts = []ContextPart{
			{Name: "tackle's instructions", Text: strings.Repeat("x", 4000)},           // ≈1.0k
			{Name: "instructions /src/proj/AGENTS.md", Text: strings.Repeat("y", 800)}, // ≈200
			{Name: "tool definitions (7 tools)", Text: strings.Repeat("z", 12000)},     // ≈3.0k
		}
	})
	h.typeText("/context").keys("enter")
	screen := h.screen()
	for _, want := range []string{"Context", "≈1.0k  tackle's instructions", "≈200   instructions /src/proj/AGENTS.md",
		"≈3.0k  tool definitions (7 tools)", "≈4.2k  in all, before the conversation", "no request yet"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	h.keys("esc")
	// After a request, the server's count and the conversation's share.
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 10200}, Context: 10500, Window: 128000})
	h.typeText("/context").keys("enter")
	screen = h.screen()
	for _, want := range []string{"10.2k   the last request in all (the server's count); the conversation ≈6.0k",
		"128.0k  the model's context window; the next request uses ≈10.5k (8%)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

func TestContextWithoutPartsSaysSo(t *testing.T) {
	h := newHarness(t)
	h.typeText("/context").keys("enter")
	if len(h.m.dialogs) != 0 || !strings.Contains(h.screen(), "not available") {
		t.Errorf("screen:\n%s", h.screen())
	}
}
