package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/slash"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools/chat"
)

func gitDiff() chat.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": "git diff --stat"})
	return chat.ToolCall{ID: "c", Name: "bash", Arguments: string(args)}
}

// A custom command from the slash menu: listed with its description and
// hint, its prompt sent with the arguments, its model and allowed-tools
// in force while its turn runs and gone when it ends.
func TestCustomCommand(t *testing.T) {
	var policy *approval.Policy
	cmds := []slash.Command{{
		Name: "review", Description: "Review the change", ArgumentHint: "[focus]", Scope: "project", Path: "/p/.tackle/commands/review.md",
		Model: "big-model", Allowed: []approval.Rule{{Tool: "bash", Pattern: "git diff *"}},
		Body: "Review the diff; focus on $1 (all: $ARGUMENTS).",
	}}
	h := newHarness(t, func(o *Options) {
		policy = o.Policy.(*approval.Policy)
		o.Commands, o.TurnRules = cmds, policy
	})
	h.typeText("/rev")
	if s := h.screen(); !strings.Contains(s, "/review [focus]") || !strings.Contains(s, "Review the change (project)") {
		t.Fatalf("the menu:\n%s", s)
	}
	h.keys("enter") // completes "/review " (it takes arguments)
	h.typeText(`"error paths" tests`)
	h.hold = true
	h.keys("enter")
	if h.agent.model != "big-model" || h.m.model != "big-model" {
		t.Errorf("the turn's model: %q %q", h.agent.model, h.m.model)
	}
	if d := policy.Decide(gitDiff()); d.Action != 0 || !strings.Contains(d.Reason, "allowed-tools of /review") {
		t.Errorf("during the turn: %+v", d)
	}
	if s := h.screen(); !strings.Contains(s, `/review "error paths" tests`) || !strings.Contains(s, "runs without asking this turn: bash(git diff *)") {
		t.Errorf("the transcript:\n%s", s)
	}
	h.release()
	if got := h.agent.runs; len(got) != 1 || got[0] != `Review the diff; focus on error paths (all: "error paths" tests).` {
		t.Fatalf("runs: %q", got)
	}
	if d := policy.Decide(gitDiff()); d.Action == 0 {
		t.Errorf("after the turn: %+v", d)
	}
	if h.agent.model != "test-model" || h.m.model != "test-model" {
		t.Errorf("the model after the turn: %q %q", h.agent.model, h.m.model)
	}
	// A paused turn keeps them until it ends.
	h.agent.outcomes = []fakeOutcome{{out: agent.Outcome{Status: agent.StatusPaused, Pending: []agent.PendingCall{{Call: bashCall("c1", "make"), Reason: "asks"}}}}}
	h.typeText("/review x")
	h.keys("enter")
	if d := policy.Decide(gitDiff()); d.Action != 0 {
		t.Errorf("while paused: %+v", d)
	}
	h.keys("y")
	if d := policy.Decide(gitDiff()); d.Action == 0 {
		t.Errorf("after the paused turn ended: %+v", d)
	}
}

func TestCustomCommandsDoNotTakeBuiltinNames(t *testing.T) {
	for _, name := range []string{"help", "clear", "q", "mcp__x__y"} {
		if !Builtin(name) {
			t.Errorf("Builtin(%q) = false", name)
		}
	}
	if Builtin("review") {
		t.Error("Builtin(review)")
	}
}

// TestCustomCommandRulesEndWithAnInterruptedTurn (red team): a custom
// command's allowed-tools end with its turn however it ends — a turn that
// failed, one interrupted while running, one interrupted while paused —
// and a later plain prompt runs without them.
func TestCustomCommandRulesEndWithAnInterruptedTurn(t *testing.T) {
	var policy *approval.Policy
	cmds := []slash.Command{{Name: "review", Scope: "project", Path: "/p/.tackle/commands/review.md",
		Allowed: []approval.Rule{{Tool: "bash", Pattern: "git diff *"}}, Body: "Review."}}
	h := newHarness(t, func(o *Options) {
		policy = o.Policy.(*approval.Policy)
		o.Commands, o.TurnRules = cmds, policy
	})
	allowed := func() bool { return policy.Decide(gitDiff()).Action == 0 }

	// A failed turn.
	h.agent.outcomes = []fakeOutcome{{err: errors.New("the model's server is gone")}}
	h.typeText("/review")
	h.keys("enter")
	if allowed() {
		t.Error("after a failed turn")
	}
	// A turn interrupted while it runs.
	h.agent.outcomes = []fakeOutcome{{block: true}}
	h.hold = true
	h.typeText("/review")
	h.keys("enter")
	if !allowed() {
		t.Error("while the turn runs")
	}
	h.keys("esc")
	h.release()
	if allowed() {
		t.Error("after an interrupted turn")
	}
	// A turn interrupted while paused.
	h.agent.outcomes = []fakeOutcome{
		{out: agent.Outcome{Status: agent.StatusPaused, Pending: []agent.PendingCall{{Call: bashCall("c1", "make"), Reason: "asks"}}}},
		{err: context.Canceled},
	}
	h.typeText("/review")
	h.keys("enter")
	if !allowed() {
		t.Error("while paused")
	}
	h.keys("ctrl+c")
	if allowed() {
		t.Error("after a paused turn was interrupted")
	}
	// The next plain prompt runs without them.
	h.hold = true
	h.typeText("go on")
	h.keys("enter")
	if allowed() {
		t.Error("during a later plain turn")
	}
	h.release()
}
