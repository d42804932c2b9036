package tui

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// earlier prompts of the workspace, oldest first.
var earlier = []string{"explain the parser", "fix the flaky TestServe", "add a --verbose flag", "Fix the README typo"}

func TestEarlierPromptsAreRecalledWithUp(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.History = earlier })
	h.keys("up")
	if got := h.m.input.value(); got != "Fix the README typo" {
		t.Fatalf("up gives %q", got)
	}
	h.keys("up", "up")
	if got := h.m.input.value(); got != "fix the flaky TestServe" {
		t.Errorf("up ×3 gives %q", got)
	}
}

func TestNewPromptsAreSavedOnceThroughACmd(t *testing.T) {
	var mu sync.Mutex
	var saved []string
	h := newHarness(t, func(o *Options) {
		o.History = earlier
		o.SaveHistory = func(p string) error {
			mu.Lock()
			defer mu.Unlock()
			saved = append(saved, p)
			return nil
		}
	})
	h.typeText("run the tests").keys("enter")
	h.typeText("run the tests").keys("enter") // a repeat is not saved again
	h.typeText("/model gpt-5").keys("enter")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(saved, []string{"run the tests", "/model gpt-5"}) {
		t.Errorf("saved %q", saved)
	}
}

func TestHistorySaveFailureIsShown(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.SaveHistory = func(string) error { return errors.New("prompt history: disk full") }
	})
	h.typeText("hello").keys("enter")
	if !strings.Contains(h.screen(), "prompt history: disk full") {
		t.Errorf("screen:\n%s", h.screen())
	}
}

func TestCtrlRSearchesNewestFirstAndFillsTheEditor(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.History = earlier })
	h.keys("ctrl+r").typeText("fix")
	screen := h.screen()
	if !strings.Contains(screen, "Search earlier prompts") || !strings.Contains(screen, "› fix") {
		t.Fatalf("no search dialog:\n%s", screen)
	}
	// Both fixes match, the newest first and selected; the others do not.
	readme, flaky := strings.Index(screen, "▸ Fix the README typo"), strings.Index(screen, "fix the flaky TestServe")
	if readme < 0 || flaky < readme || strings.Contains(screen, "explain the parser") {
		t.Fatalf("matches:\n%s", screen)
	}
	h.keys("ctrl+r", "enter") // the next older match
	if got := h.m.input.value(); got != "fix the flaky TestServe" {
		t.Errorf("editor = %q", got)
	}
	if len(h.agent.runs) != 0 {
		t.Errorf("choosing a prompt sent it: %q", h.agent.runs)
	}
	// The search starts from the editor's text; words match in any order;
	// esc leaves the editor as it was.
	h.keys("ctrl+u").typeText("a draft").keys("ctrl+r")
	if !strings.Contains(h.screen(), "› a draft") {
		t.Errorf("the search does not start from the editor:\n%s", h.screen())
	}
	h.keys("ctrl+u").typeText("flag add")
	if !strings.Contains(h.screen(), "▸ add a --verbose flag") {
		t.Errorf("word order:\n%s", h.screen())
	}
	h.keys("esc")
	if got := h.m.input.value(); got != "a draft" {
		t.Errorf("after esc the editor = %q", got)
	}
}

func TestCtrlRWithNoHistorySaysSo(t *testing.T) {
	h := newHarness(t)
	h.keys("ctrl+r")
	if len(h.m.dialogs) != 0 || !strings.Contains(h.screen(), "no earlier prompts") {
		t.Errorf("screen:\n%s", h.screen())
	}
}

func TestInitAsksTheModelForAnAgentsFile(t *testing.T) {
	h := newHarness(t)
	h.typeText("/init mention the Makefile targets").keys("enter")
	if len(h.agent.runs) != 1 {
		t.Fatalf("runs = %q", h.agent.runs)
	}
	p := h.agent.runs[0]
	if !strings.Contains(p, "Write a starter AGENTS.md") || !strings.Contains(p, "The user adds: mention the Makefile targets") {
		t.Errorf("prompt = %q", p)
	}
}
