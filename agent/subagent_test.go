package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// taskTools is the parent's toolbox: testTools and "task", which runs a
// subagent with testTools, the prompt and model its call names.
type taskTools struct {
	*testTools
	// child are the subagents' tools: testTools unless set.
	child agent.Toolbox
	// ran is each subagent's error, by task call.
	mu  sync.Mutex
	ran map[string]error
}

func (tt *taskTools) Specs() []chat.ToolSpec {
	obj := json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string"},"model":{"type":"string"}}}`)
	return append(tt.testTools.Specs(), chat.ToolSpec{Name: "task", Description: "Start a subagent.", Parameters: obj})
}

func (tt *taskTools) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	if call.Name != "task" {
		return tt.testTools.Run(ctx, call)
	}
	var args struct{ Prompt, Model string }
	json.Unmarshal([]byte(call.Arguments), &args)
	var child agent.Toolbox = tt.testTools
	if tt.child != nil {
		child = tt.child
	}
	out, err := agent.RunSubagent(ctx, agent.Subagent{Type: "helper", Model: args.Model, System: "You are a subagent.", Tools: child, Prompt: args.Prompt, MaxRequests: 5})
	tt.mu.Lock()
	tt.ran[call.ID] = err
	tt.mu.Unlock()
	if err != nil {
		return chat.ToolResult{Status: chat.StatusError, Content: "subagent: " + err.Error()}, nil
	}
	return chat.ToolResult{Status: chat.StatusOK, Content: "answer: " + out.Text}, nil
}

func newTaskHarness(t *testing.T, script llmtest.Script, tweak func(*agent.Config)) (*harness, *taskTools) {
	t.Helper()
	tt := &taskTools{ran: map[string]error{}}
	h := newHarness(t, script, func(c *agent.Config) {
		tt.testTools = c.Tools.(*testTools)
		c.Tools = tt
		if tweak != nil {
			tweak(c)
		}
	})
	return h, tt
}

// subagentEvents are the events of the subagent who.
func (e *events) of(who string) []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agent.Event
	for _, ev := range e.all {
		if s, ok := ev.(agent.SubagentEvent); ok && s.Agent.ID == who {
			out = append(out, s.Event)
		}
	}
	return out
}

// requestOf is the server's request whose first user message is prompt.
func requestOf(t *testing.T, srv *llmtest.Server, prompt string) []llmtest.Request {
	t.Helper()
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == chat.RoleUser {
				if m.Content == prompt {
					out = append(out, r)
				}
				break
			}
		}
	}
	return out
}

// TestSubagentRunsItsOwnConversation: the task call's subagent has its
// own system prompt, prompt and tools, uses the model the call names,
// reports its events wrapped with its identity, and the parent sees only
// its final answer.
func TestSubagentRunsItsOwnConversation(t *testing.T) {
	h, _ := newTaskHarness(t, llmtest.Script{
		Rules: []llmtest.Rule{{FirstUserContains: "CHILD", Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("c_up", "upper", `{"text":"quiet"}`)),
			llmtest.Text("The child found QUIET."),
		}}},
		Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("call_task", "task", `{"prompt":"CHILD: shout quiet","model":"small-model"}`)),
			llmtest.Text("Parent done."),
		},
	}, nil)
	out, err := h.worker.Run(t.Context(), "delegate")
	if err != nil || out.Status != agent.StatusFinished || out.Text != "Parent done." {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	child := requestOf(t, h.srv, "CHILD: shout quiet")
	if len(child) != 2 {
		t.Fatalf("the subagent made %d requests", len(child))
	}
	if c := child[0]; c.Model != "small-model" || c.Messages[0].Content != "You are a subagent." || !slices.Contains(c.Tools, "upper") || slices.Contains(c.Tools, "task") {
		t.Errorf("the subagent's first request: model %s, system %q, tools %v", c.Model, c.Messages[0].Content, c.Tools)
	}
	if m := toolMessage(t, h.srv.Requests()[3].Messages, "call_task"); m.Content != "answer: The child found QUIET." {
		t.Errorf("the parent read %q", m.Content)
	}
	for _, m := range h.srv.Requests()[3].Messages {
		if strings.Contains(m.Content, "QUIET") && m.Role != chat.RoleTool {
			t.Errorf("the parent's conversation holds the subagent's %s message %q", m.Role, m.Content)
		}
	}

	var types []string
	for _, e := range h.events.of("call_task") {
		if e.EventType() != "text_delta" {
			types = append(types, e.EventType())
		}
	}
	want := []string{"usage", "assistant_message", "tool_call_started", "tool_call_finished", "usage", "assistant_message", "turn_finished"}
	if !slices.Equal(types, want) {
		t.Errorf("the subagent's events %v, want %v", types, want)
	}
	for _, e := range h.events.all {
		if s, ok := e.(agent.SubagentEvent); ok && (s.Agent != hooks.Agent{ID: "call_task", Parent: hooks.MainAgent, Type: "helper"}) {
			t.Errorf("a subagent event names %+v", s.Agent)
		}
	}
	b, err := agent.MarshalEvent(h.events.all[slices.IndexFunc(h.events.all, func(e agent.Event) bool { _, ok := e.(agent.SubagentEvent); return ok })])
	if err != nil || !strings.Contains(string(b), `"agent":{"id":"call_task","parent":"main","type":"helper"}`) {
		t.Errorf("a subagent event's JSON: %s %v", b, err)
	}
	b, _ = agent.MarshalEvent(agent.Warning{Message: "x"})
	if string(b) != `{"type":"warning","agent":{"id":"main"},"message":"x"}` {
		t.Errorf("the main agent's event: %s", b)
	}
}

// TestSubagentCallsGoThroughTheParentsHooks: every call of a subagent
// goes through the same pre_tool_call chain, which sees whose call it is:
// a hook that skips the subagent's call blocks it, and only it.
func TestSubagentCallsGoThroughTheParentsHooks(t *testing.T) {
	h, tt := newTaskHarness(t, llmtest.Script{
		Rules: []llmtest.Rule{{FirstUserContains: "CHILD", Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("c_up", "upper", `{"text":"secret"}`)),
			llmtest.Text("blocked, giving up"),
		}}},
		Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("p_up", "upper", `{"text":"open"}`), llmtest.Call("call_task", "task", `{"prompt":"CHILD"}`)),
			llmtest.Text("done"),
		},
	}, nil)
	var mu sync.Mutex
	seen := map[string]hooks.Agent{}
	h.hooks.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "guard", Run: func(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
		a := hooks.AgentOf(ctx)
		mu.Lock()
		seen[in.Call.ID] = a
		mu.Unlock()
		if a.Child() {
			return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "no tools for subagents"}, nil
		}
		return hooks.PreToolResult{}, nil
	}})
	if out, err := h.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if ran := h.tools.executed(); !slices.Equal(ran, []string{"p_up"}) {
		t.Errorf("executed %v: the subagent's call was not blocked", ran)
	}
	if seen["c_up"] != (hooks.Agent{ID: "call_task", Parent: hooks.MainAgent, Type: "helper"}) || seen["p_up"] != (hooks.Agent{ID: hooks.MainAgent}) || seen["call_task"].ID != hooks.MainAgent {
		t.Errorf("the hook saw %+v", seen)
	}
	child := requestOf(t, h.srv, "CHILD")
	if m := toolMessage(t, child[1].Messages, "c_up"); !strings.Contains(m.Content, `Skipped by hook "guard"`) || !strings.Contains(m.Content, "no tools for subagents") {
		t.Errorf("the subagent read %q", m.Content)
	}
	if err := tt.ran["call_task"]; err != nil {
		t.Errorf("the subagent: %v", err)
	}
}

// TestSubagentAsksThroughTheParent: a subagent's call that a hook pauses
// is put to the parent's ChildAsker with the subagent's identity, and runs
// as approved; without an asker it is denied with a reason.
func TestSubagentAsksThroughTheParent(t *testing.T) {
	script := func() llmtest.Script {
		return llmtest.Script{
			Rules: []llmtest.Rule{{FirstUserContains: "CHILD", Responses: []llmtest.Response{
				llmtest.ToolCalls(llmtest.Call("c_up", "upper", `{"text":"hello"}`)),
				llmtest.Text("child done"),
			}}},
			Responses: []llmtest.Response{llmtest.ToolCalls(llmtest.Call("call_task", "task", `{"prompt":"CHILD"}`)), llmtest.Text("done")},
		}
	}
	gate := hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "gate", Run: func(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
		if in.Call.Name == "upper" {
			return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "upper asks"}, nil
		}
		return hooks.PreToolResult{}, nil
	}}

	h, _ := newTaskHarness(t, script(), nil)
	h.hooks.PreToolCall(gate)
	var asked []hooks.Agent
	h.worker.AskChildrenWith(func(ctx context.Context, who hooks.Agent, pending []agent.PendingCall) ([]agent.Decision, error) {
		asked = append(asked, who)
		if len(pending) != 1 || pending[0].Call.ID != "c_up" || pending[0].Reason != "upper asks" {
			t.Errorf("pending %+v", pending)
		}
		return []agent.Decision{{CallID: "c_up", Verdict: agent.Approve}}, nil
	})
	if out, err := h.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if len(asked) != 1 || asked[0].ID != "call_task" {
		t.Errorf("asked for %+v", asked)
	}
	if m := toolMessage(t, requestOf(t, h.srv, "CHILD")[1].Messages, "c_up"); m.Content != "HELLO" {
		t.Errorf("the approved call's result %q", m.Content)
	}
	decided := slices.ContainsFunc(h.events.of("call_task"), func(e agent.Event) bool {
		d, ok := e.(agent.ToolCallDecided)
		return ok && d.Verdict == agent.Approve
	})
	if !decided {
		t.Error("no tool_call_decided among the subagent's events")
	}

	h, _ = newTaskHarness(t, script(), nil)
	h.hooks.PreToolCall(gate)
	if out, err := h.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run without an asker = %+v, %v", out, err)
	}
	if ran := h.tools.executed(); len(ran) != 0 {
		t.Errorf("executed %v without anyone to approve", ran)
	}
	if m := toolMessage(t, requestOf(t, h.srv, "CHILD")[1].Messages, "c_up"); !strings.Contains(m.Content, "nobody can approve") {
		t.Errorf("the denied call's result %q", m.Content)
	}
}

// TestSubagentsRunInParallel: two task calls of one reply run at once —
// each subagent's reply awaits the other's request, so one after the
// other neither would finish — and the parent gets both answers in call
// order.
func TestSubagentsRunInParallel(t *testing.T) {
	h, _ := newTaskHarness(t, llmtest.Script{
		Rules: []llmtest.Rule{
			{FirstUserContains: "ALPHA", Responses: []llmtest.Response{{Content: "alpha answer", Await: "BETA"}}},
			{FirstUserContains: "BETA", Responses: []llmtest.Response{{Content: "beta answer", Await: "ALPHA"}}},
		},
		Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("t_a", "task", `{"prompt":"ALPHA"}`), llmtest.Call("t_b", "task", `{"prompt":"BETA"}`)),
			llmtest.Text("both done"),
		},
	}, nil)
	out, err := h.worker.Run(t.Context(), "go")
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	var results []string
	for _, m := range h.srv.Requests()[3].Messages {
		if m.Role == chat.RoleTool {
			results = append(results, m.ToolCallID+"="+m.Content)
		}
	}
	if want := []string{"t_a=answer: alpha answer", "t_b=answer: beta answer"}; !slices.Equal(results, want) {
		t.Errorf("results %v, want %v", results, want)
	}
}

// TestCancelStopsTheSubagents: cancelling the parent's run stops a
// subagent whose tool call is running; both runs end aborted.
func TestCancelStopsTheSubagents(t *testing.T) {
	h, tt := newTaskHarness(t, llmtest.Script{
		Rules: []llmtest.Rule{{FirstUserContains: "CHILD", Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("c_wait", "wait", `{"text":"forever"}`)),
		}}},
		Responses: []llmtest.Response{llmtest.ToolCalls(llmtest.Call("call_task", "task", `{"prompt":"CHILD"}`))},
	}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for id := range h.tools.started {
			if id == "c_wait" {
				cancel()
				return
			}
		}
	}()
	out, err := h.worker.Run(ctx, "go")
	if !errors.Is(err, context.Canceled) || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if err := tt.ran["call_task"]; !errors.Is(err, context.Canceled) {
		t.Errorf("the subagent ended with %v", err)
	}
	ended := slices.ContainsFunc(h.events.of("call_task"), func(e agent.Event) bool {
		f, ok := e.(agent.TurnFinished)
		return ok && f.Outcome.Status == agent.StatusAborted
	})
	if !ended {
		t.Error("the subagent's run did not end aborted")
	}
}

// TestSubagentsDoNotNest: a subagent's call cannot start another.
func TestSubagentsDoNotNest(t *testing.T) {
	h, tt := newTaskHarness(t, llmtest.Script{
		Rules: []llmtest.Rule{{FirstUserContains: "CHILD", Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("c_task", "task", `{"prompt":"GRANDCHILD"}`)),
			llmtest.Text("could not"),
		}}},
		Responses: []llmtest.Response{llmtest.ToolCalls(llmtest.Call("call_task", "task", `{"prompt":"CHILD"}`)), llmtest.Text("done")},
	}, nil)
	tt.child = tt // the subagent is offered the task tool too
	if out, err := h.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if err := tt.ran["c_task"]; !errors.Is(err, agent.ErrNested) {
		t.Errorf("the nested task: %v", err)
	}
	if len(requestOf(t, h.srv, "GRANDCHILD")) != 0 {
		t.Error("a grandchild made requests")
	}
}

// TestSubagentNeverPassesForTheMainAgent: a task call the model names
// "main" gets another ID, so its subagent's hooks never see the main
// agent's ID.
func TestSubagentNeverPassesForTheMainAgent(t *testing.T) {
	h, _ := newTaskHarness(t, llmtest.Script{
		Rules: []llmtest.Rule{{FirstUserContains: "CHILD", Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("c_up", "upper", `{"text":"x"}`)),
			llmtest.Text("done"),
		}}},
		Responses: []llmtest.Response{llmtest.ToolCalls(llmtest.Call("main", "task", `{"prompt":"CHILD"}`)), llmtest.Text("done")},
	}, nil)
	var seen hooks.Agent
	h.hooks.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "watch", Run: func(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
		if in.Call.ID == "c_up" {
			seen = hooks.AgentOf(ctx)
		}
		return hooks.PreToolResult{}, nil
	}})
	if out, err := h.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if seen.ID == hooks.MainAgent || seen.ID != "main_2" || seen.Parent != hooks.MainAgent {
		t.Errorf("the subagent's call was seen as %+v's", seen)
	}
}
