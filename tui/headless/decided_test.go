package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestWarningsReachStderrInEveryFormat(t *testing.T) {
	for _, f := range []Format{Text, JSON, StreamJSON} {
		var out, errw bytes.Buffer
		p := NewPrinter(f, &out, &errw)
		p.Event(agent.Warning{Message: `pre_tool_call hook "guard" failed (exit status 1); result: skip`})
		if got := errw.String(); got != "tackle: warning: pre_tool_call hook \"guard\" failed (exit status 1); result: skip\n" {
			t.Errorf("%s: stderr = %q", f, got)
		}
	}
}

func TestTextLeavesPausesToTheirAnswer(t *testing.T) {
	var out, errw bytes.Buffer
	p := NewPrinter(Text, &out, &errw)
	p.Event(agent.HookDecision{Decision: hooks.Decision{Event: hooks.PreToolCall, Hook: "approval", Result: "pause", Reason: "bash wants to run: ls"}})
	p.Event(agent.HookDecision{Decision: hooks.Decision{Event: hooks.OnTurnEnd, Hook: "review", Result: "paused", Reason: "needs a look"}})
	if got := errw.String(); got != "  hook on_turn_end/review: paused (needs a look)\n" {
		t.Errorf("stderr = %q", got)
	}
}

func TestJSONRecordsHowEachCallWasDecided(t *testing.T) {
	var out, errw bytes.Buffer
	p := NewPrinter(JSON, &out, &errw)
	first := chat.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}
	second := chat.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`}
	final := chat.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command":"ls -l"}`}
	for _, e := range []agent.Event{
		agent.AssistantMessage{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{first, second}}},
		agent.ToolCallDecided{Call: second, Verdict: agent.Approve, By: ByYes},
		agent.ToolCallFinished{Call: first, Result: chat.ToolResult{CallID: "c1", Status: chat.StatusOK, Content: "a"}},
		agent.ToolCallFinished{Call: final, Result: chat.ToolResult{CallID: "c2", Status: chat.StatusOK, Content: "total 0"}},
	} {
		p.Event(e)
	}
	if err := p.Finish(Result{Outcome: agent.Outcome{Status: agent.StatusFinished, HookFailures: 1}}, 1); err != nil {
		t.Fatal(err)
	}
	var res struct {
		HookFailures int `json:"hook_failures"`
		ToolCalls    []struct {
			ID, Decision string
			DecidedBy    string `json:"decided_by"`
			Arguments    map[string]string
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.HookFailures != 1 || len(res.ToolCalls) != 2 || res.ToolCalls[0].ID != "c1" || res.ToolCalls[0].Decision != "" ||
		res.ToolCalls[1].Decision != "approve" || res.ToolCalls[1].DecidedBy != "--yes" || res.ToolCalls[1].Arguments["command"] != "ls -l" {
		t.Errorf("json = %s", out.String())
	}
	if strings.Contains(errw.String(), "warning") {
		t.Errorf("stderr = %q", errw.String())
	}
}
