package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

func withAbout(o *Options) {
	o.About = About{
		Version: "1.2.3", Endpoint: "http://127.0.0.1:11434/v1",
		Instructions: []string{"AGENTS.md", "sub/CLAUDE.md"},
		Hooks:        []string{"pre_tool_call: approval, fmt-guard", "post_tool_call: redact-secrets"},
		Session:      func() string { return "20261123-0432-ab12" },
	}
	o.Prices = map[string]Price{"test-model": {Input: 3, Output: 15}}
}

// TestGoldenWelcome: the UI starts with what it runs: model, endpoint,
// mode, workspace, instruction files and hooks; at 80 and 60 columns.
func TestGoldenWelcome(t *testing.T) {
	for _, w := range []int{80, 60} {
		h := newHarness(t, withAbout)
		h.send(tea.WindowSizeMsg{Width: w, Height: 12})
		golden(t, "welcome_"+itoa(w)+"x12", h.screen())
	}
}

func dialogText(h *harness) string {
	d, ok := h.m.dialogs[len(h.m.dialogs)-1].(*tableDialog)
	if !ok {
		return ""
	}
	return ansi.Strip(strings.Join(d.lines, "\n"))
}

// TestStatusAndCost: /status names the session and how full the context
// is; /cost counts tokens per model (a /model switch starts a new row) and
// prices those with a price.
func TestStatusAndCost(t *testing.T) {
	h := newHarness(t, withAbout)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.typeText("/cost").keys("enter")
	if !strings.Contains(h.screen(), "no model request yet") {
		t.Errorf("/cost before any request:\n%s", h.screen())
	}
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 2_000_000, CompletionTokens: 100_000, TotalTokens: 2_100_000}, Context: 50_000, Window: 200_000})
	h.typeText("/status").keys("enter")
	status := dialogText(h)
	for _, want := range []string{"20261123-0432-ab12", "http://127.0.0.1:11434/v1", "AGENTS.md, sub/CLAUDE.md", "pre_tool_call: approval, fmt-guard", "50.0k of 200.0k tokens (25%)"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status lacks %q:\n%s", want, status)
		}
	}
	h.keys("esc")
	h.typeText("/model other-model").keys("enter")
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 1000, CompletionTokens: 10, TotalTokens: 1010, ReasoningTokens: 5}})
	h.typeText("/cost").keys("enter")
	cost := dialogText(h)
	for _, want := range []string{"test-model", "2.0M in, 100.0k out · $7.5000", "other-model", "1.0k in, 10 out (5 reasoning) · no price configured", "$7.5000 (models with a price)"} {
		if !strings.Contains(strings.Join(strings.Fields(cost), " "), want) {
			t.Errorf("/cost lacks %q:\n%s", want, cost)
		}
	}
}

// TestStatusLineDegrades: as the terminal narrows, the status line gives
// way by priority: the working directory shortens to its last names
// before anything is dropped, then goes; the model and mode stay longest.
func TestStatusLineDegrades(t *testing.T) {
	for _, tc := range []struct {
		width     int
		want, not []string
	}{
		{200, []string{"test-model · default · 1.2k tok (ctx 1.2k) · ~/src/github.com/acme/widget-service"}, nil},
		{60, []string{"test-model · default · 1.2k tok · …/widget-service"}, []string{"github.com"}},
		{44, []string{"test-model · default"}, []string{"widget-service"}},
	} {
		h := newHarness(t, func(o *Options) { o.Workdir = "/home/user/src/github.com/acme/widget-service" })
		h.send(tea.WindowSizeMsg{Width: tc.width, Height: 10})
		h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 1200, TotalTokens: 1200}, Context: 1200, Window: 0})
		lines := strings.Split(h.screen(), "\n")
		status := lines[len(lines)-1]
		for _, w := range tc.want {
			if !strings.Contains(status, w) {
				t.Errorf("at %d columns the status line %q lacks %q", tc.width, status, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(status, n) {
				t.Errorf("at %d columns the status line %q has %q", tc.width, status, n)
			}
		}
		golden(t, "status_"+itoa(tc.width)+"x10", status)
	}
}
