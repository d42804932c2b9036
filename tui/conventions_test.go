package tui

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/hooks/approval"
)

// TestShiftTabCyclesTheModes: shift+tab goes default → accept-edits →
// plan → default, in the policy too, and says so in the status line; from
// yolo it goes back to default.
func TestShiftTabCyclesTheModes(t *testing.T) {
	h := newHarness(t)
	for _, want := range []approval.Mode{approval.AcceptEdits, approval.Plan, approval.Default} {
		h.keys("shift+tab")
		if h.m.mode != want || h.m.opts.Policy.Mode() != want {
			t.Fatalf("mode %s (policy %s), want %s", h.m.mode, h.m.opts.Policy.Mode(), want)
		}
		if s := h.screen(); !strings.Contains(s, "mode "+string(want)+": ") {
			t.Errorf("the status line does not say the mode:\n%s", s)
		}
	}
	h.typeText("/mode yolo").keys("enter", "shift+tab")
	if h.m.opts.Policy.Mode() != approval.Default {
		t.Errorf("from yolo: %s", h.m.opts.Policy.Mode())
	}
	if h.m.input.value() != "" {
		t.Errorf("shift+tab typed into the editor: %q", h.m.input.value())
	}
}

// TestHelpListsBangAndAt: /help says what !, @, / and a trailing \ do.
func TestHelpListsBangAndAt(t *testing.T) {
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 80})
	h.typeText("/help").keys("enter")
	s := h.screen()
	for _, want := range []string{"Typing", "!command", "run a shell command yourself", "@path", "attach a file", "\\ enter", "continues it on a new line", "[paste #1: N lines, N bytes]"} {
		if !strings.Contains(s, want) {
			t.Errorf("/help lacks %q:\n%s", want, s)
		}
	}
}

// TestTrailingBackslashContinuesTheLine: enter after a \ at the end puts
// a line break in its place instead of sending; a \ elsewhere, or with
// the cursor before it, does not.
func TestTrailingBackslashContinuesTheLine(t *testing.T) {
	h := newHarness(t)
	h.typeText(`first line \`).keys("enter")
	if got := h.m.input.value(); got != "first line \n" || len(h.agent.runs) != 0 {
		t.Fatalf("editor %q, runs %q", got, h.agent.runs)
	}
	h.typeText("second").keys("enter")
	if len(h.agent.runs) != 1 || h.agent.runs[0] != "first line \nsecond" {
		t.Fatalf("runs %q", h.agent.runs)
	}
	h = newHarness(t)
	h.typeText(`a\b`).keys("enter")
	if len(h.agent.runs) != 1 || h.agent.runs[0] != `a\b` {
		t.Fatalf("a \\ inside: runs %q", h.agent.runs)
	}
	h = newHarness(t)
	h.typeText(`x \`).keys("left", "enter")
	if len(h.agent.runs) != 1 || h.agent.runs[0] != `x \` {
		t.Fatalf("the cursor before the \\: runs %q", h.agent.runs)
	}
}

// TestLargePasteShowsAsItsPlaceholder: a large paste is the placeholder
// in the transcript too (it used to echo every line), and is sent whole.
func TestLargePasteShowsAsItsPlaceholder(t *testing.T) {
	h := newHarness(t)
	var lines []string
	for i := range 312 {
		lines = append(lines, "log line "+itoa(i))
	}
	paste := strings.Join(lines, "\n") + "\n"
	h.typeText("why does this fail? ")
	h.send(tea.PasteMsg{Content: paste})
	h.keys("enter")
	if len(h.agent.runs) != 1 || h.agent.runs[0] != "why does this fail? "+paste {
		t.Fatalf("sent %d bytes, want the paste whole", len(h.agent.runs[0]))
	}
	s := h.screen()
	if !strings.Contains(s, "why does this fail? [paste #1: 312 lines, ") || strings.Contains(s, "log line 311") || strings.Contains(s, "log line 0") {
		t.Errorf("the transcript does not show the placeholder:\n%s", s)
	}
}

// TestModelWithoutANameOpensThePicker: /model lists the server's models,
// the current one marked; typing filters; enter switches.
func TestModelWithoutANameOpensThePicker(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Models = func(context.Context) ([]string, error) {
			return []string{"llama3.2", "qwen3-coder:30b", "test-model"}, nil
		}
	})
	h.typeText("/model").keys("enter")
	s := h.screen()
	if len(h.m.dialogs) != 1 || !strings.Contains(s, "llama3.2") || !regexp.MustCompile(`test-model +\(now\)`).MatchString(s) {
		t.Fatalf("no picker:\n%s", s)
	}
	h.typeText("qwen")
	if s := h.screen(); strings.Contains(s, "llama3.2") || !strings.Contains(s, "qwen3-coder:30b") {
		t.Fatalf("the filter does not filter:\n%s", s)
	}
	h.keys("enter")
	if h.agent.model != "qwen3-coder:30b" || h.m.model != "qwen3-coder:30b" || len(h.m.dialogs) != 0 {
		t.Fatalf("model %q / %q, dialogs %d", h.agent.model, h.m.model, len(h.m.dialogs))
	}
	// A server without a list: the model is named, and how to switch.
	h = newHarness(t, func(o *Options) {
		o.Models = func(context.Context) ([]string, error) { return nil, errors.New("404 Not Found") }
	})
	h.typeText("/model").keys("enter")
	if s := h.screen(); len(h.m.dialogs) != 0 || !strings.Contains(flatten(s), "model: test-model (the server does not list its models: 404 Not Found; /model <name> switches)") {
		t.Fatalf("no list:\n%s", s)
	}
}

// TestModeWithoutANameOpensThePicker: /mode lists the modes with what
// each does; enter switches.
func TestModeWithoutANameOpensThePicker(t *testing.T) {
	h := newHarness(t)
	h.typeText("/mode").keys("enter")
	s := h.screen()
	if len(h.m.dialogs) != 1 || !regexp.MustCompile(`default +\(now\)`).MatchString(s) || !strings.Contains(s, "accept-edits  reads and edits run") || !strings.Contains(s, "yolo") {
		t.Fatalf("no picker:\n%s", s)
	}
	h.keys("down", "enter")
	if h.m.opts.Policy.Mode() != approval.AcceptEdits || len(h.m.dialogs) != 0 {
		t.Fatalf("mode %s", h.m.opts.Policy.Mode())
	}
}
