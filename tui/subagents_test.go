package tui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

func taskCall(id, description string) chat.ToolCall {
	b, _ := jsonMarshal(map[string]string{"description": description, "prompt": "look around"})
	return chat.ToolCall{ID: id, Name: tools.Task, Arguments: string(b)}
}

func readCall(id, path string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: tools.ReadFile, Arguments: `{"path":"` + path + `"}`}
}

// running starts a turn that stays in progress (its Run is held), with a
// task call started.
func running(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	if err := h.tools.Add(tools.NewTask("Start a subagent.", func(context.Context, tools.TaskArgs) (tools.Result, error) { return tools.OK(""), nil })); err != nil {
		t.Fatal(err)
	}
	h.hold = true
	h.typeText("look").keys("enter")
	task := taskCall("t1", "survey the code")
	return h.events(agent.AssistantMessage{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{task}}}, agent.ToolCallStarted{Call: task})
}

var child = hooks.Agent{ID: "t1", Parent: hooks.MainAgent, Type: "general"}

func sub(e agent.Event) agent.Event { return agent.SubagentEvent{Agent: child, Event: e} }

// TestSubagentProgressFoldsUnderTheTask: a subagent's calls show under its
// task's line — the latest few while it runs, a count once it is done —
// and all of them expanded.
func TestSubagentProgressFoldsUnderTheTask(t *testing.T) {
	h := running(t)
	calls := []chat.ToolCall{readCall("c1", "a.go"), readCall("c2", "b.go"), readCall("c3", "c.go"), readCall("c4", "d.go")}
	h.events(sub(agent.AssistantMessage{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: calls}}))
	for _, c := range calls[:3] {
		h.events(sub(agent.ToolCallStarted{Call: c}), sub(agent.ToolCallFinished{Call: c, Result: chat.ToolResult{CallID: c.ID, Status: chat.StatusOK, Content: "x"}}))
	}
	h.events(sub(agent.ToolCallStarted{Call: calls[3]}))
	s := h.screen()
	for _, want := range []string{"task  survey the code", "⎿ … 1 tool call before", "⎿ ✓ read_file  b.go", "⎿ ✓ read_file  c.go", "read_file  d.go"} {
		if !strings.Contains(s, want) {
			t.Errorf("running: no %q in\n%s", want, s)
		}
	}
	if strings.Contains(s, "a.go") {
		t.Errorf("running: the oldest call is not folded:\n%s", s)
	}

	h.events(sub(agent.ToolCallFinished{Call: calls[3], Result: chat.ToolResult{CallID: "c4", Status: chat.StatusError, Content: "no such file"}}),
		sub(agent.TurnFinished{Outcome: agent.Outcome{Status: agent.StatusFinished}}),
		agent.ToolCallFinished{Call: taskCall("t1", "survey the code"), Result: chat.ToolResult{CallID: "t1", Status: chat.StatusOK, Content: "The code is fine."}})
	s = h.screen()
	if !strings.Contains(s, "⎿ 4 tool calls (ctrl+o to expand)") || !strings.Contains(s, "The code is fine.") || strings.Contains(s, "b.go") {
		t.Errorf("done, folded:\n%s", s)
	}
	h.keys("ctrl+o")
	s = h.screen()
	for _, want := range []string{"⎿ ✓ read_file  a.go", "⎿ ✓ read_file  c.go", "⎿ ✗ read_file  d.go", "The code is fine."} {
		if !strings.Contains(s, want) {
			t.Errorf("expanded: no %q in\n%s", want, s)
		}
	}
}

// TestSubagentAsksInTheApprovalDialog: a subagent's question (through the
// bridge, as the Worker asks it) opens the approval dialog naming the
// task; the answer goes back to the subagent, not to a Resume; a question
// whose run ended is dropped with the run.
func TestSubagentAsksInTheApprovalDialog(t *testing.T) {
	h := running(t)
	b := NewBridge()
	pending := []agent.PendingCall{{Call: bashCall("c1", "make test"), Hook: "approval", Reason: "bash wants to run make test"}}
	got := make(chan []agent.Decision, 1)
	go func() {
		d, err := b.AskChild(t.Context(), child, pending)
		if err != nil {
			t.Error(err)
		}
		got <- d
	}()
	<-b.wake
	evs, _ := b.take()
	h.events(evs...)
	s := h.screen()
	if !strings.Contains(s, "Allow bash?") || !strings.Contains(s, "asked by subagent survey the code") || !strings.Contains(s, "make test") {
		t.Fatalf("no dialog for the subagent's call:\n%s", s)
	}
	if !strings.Contains(s, "? bash") && !strings.Contains(s, "make test") {
		t.Errorf("the waiting call is not on the task's line:\n%s", s)
	}
	h.keys("y")
	if d := <-got; !slices.Equal(d, []agent.Decision{{CallID: "c1", Verdict: agent.Approve}}) {
		t.Errorf("the subagent got %+v", d)
	}
	if len(h.m.dialogs) != 0 || len(h.agent.resumes) != 0 {
		t.Errorf("after the answer: %d dialogs, resumes %+v", len(h.m.dialogs), h.agent.resumes)
	}

	// Ctrl+C in the dialog aborts the subagent's calls and stops the run.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		d, _ := b.AskChild(ctx, child, pending)
		got <- d
	}()
	<-b.wake
	evs, _ = b.take()
	h.events(evs...)
	h.keys("ctrl+c")
	if d := <-got; len(d) != 1 || d[0].Verdict != agent.AbortRun {
		t.Errorf("after ctrl+c the subagent got %+v", d)
	}
	if !h.m.interrupting {
		t.Error("ctrl+c in a subagent's dialog did not stop the run")
	}

	// A question still open when the run ends goes with it.
	ctx2, cancel2 := context.WithCancel(t.Context())
	go func() { b.AskChild(ctx2, child, pending) }()
	<-b.wake
	evs, _ = b.take()
	h.events(evs...)
	if len(h.m.dialogs) != 1 {
		t.Fatalf("no dialog:\n%s", h.screen())
	}
	cancel2()
	h.release()
	if len(h.m.dialogs) != 0 {
		t.Errorf("the dialog of a subagent that stopped waiting is still open:\n%s", h.screen())
	}
}

// TestPlanIsPinnedAboveTheEditor: the plan a todo call sets shows above
// the editor and follows each update; once every step is done it goes
// when the turn ends; a plan with open steps stays.
func TestPlanIsPinnedAboveTheEditor(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		a := o.Agent
		o.NewAgent = func() Agent { return a }
	})
	h.hold = true
	h.typeText("plan").keys("enter")
	h.events(agent.TodoUpdated{Todos: []tools.TodoItem{
		{Content: "read the code", Status: tools.TodoCompleted},
		{Content: "fix the bug", Status: tools.TodoInProgress},
		{Content: "run the tests", Status: tools.TodoPending},
	}})
	s := h.screen()
	lines := strings.Split(s, "\n")
	plan := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Plan  1/3 done") })
	if plan < 0 {
		t.Fatalf("no plan:\n%s", s)
	}
	if want := []string{"  ✓ read the code", "  ▸ fix the bug", "  ○ run the tests"}; !slices.Equal(lines[plan+1:plan+4], want) {
		t.Errorf("steps %q, want %q", lines[plan+1:plan+4], want)
	}
	if !strings.HasPrefix(lines[plan+4], "───") {
		t.Errorf("the plan is not right above the editor's rule:\n%s", s)
	}

	h.events(agent.TodoUpdated{Todos: []tools.TodoItem{
		{Content: "read the code", Status: tools.TodoCompleted},
		{Content: "fix the bug", Status: tools.TodoCompleted},
		{Content: "run the tests", Status: tools.TodoCompleted},
	}})
	if s := h.screen(); !strings.Contains(s, "Plan  3/3 done") {
		t.Errorf("the update did not show:\n%s", s)
	}
	h.release()
	if s := h.screen(); strings.Contains(s, "Plan") {
		t.Errorf("a finished plan stays after the turn:\n%s", s)
	}

	h.hold = true
	h.typeText("more").keys("enter")
	h.events(agent.TodoUpdated{Todos: []tools.TodoItem{{Content: "next step", Status: tools.TodoPending}}})
	h.release()
	if s := h.screen(); !strings.Contains(s, "Plan  0/1 done") {
		t.Errorf("an open plan went with the turn:\n%s", s)
	}
	h.typeText("/new").keys("enter")
	if s := h.screen(); strings.Contains(s, "Plan") || !strings.Contains(s, "new conversation") {
		t.Errorf("/new kept the plan:\n%s", s)
	}
}

// TestResumedSessionShowsItsPlan: a resumed session's plan is its last
// todos record's.
func TestResumedSessionShowsItsPlan(t *testing.T) {
	recs := []session.Record{
		{Kind: session.KindMessage, Message: &chat.Message{Role: chat.RoleUser, Content: "plan"}, Prompt: true},
		{Kind: session.KindTodos, Todos: []tools.TodoItem{{Content: "old step", Status: tools.TodoPending}}},
		{Kind: session.KindTodos, Todos: []tools.TodoItem{{Content: "first", Status: tools.TodoCompleted}, {Content: "second", Status: tools.TodoInProgress}}},
	}
	h := newHarness(t, func(o *Options) { o.Resumed = &Resumed{ID: "s1", Agent: o.Agent, Records: recs} })
	s := h.screen()
	if !strings.Contains(s, "Plan  1/2 done") || !strings.Contains(s, "▸ second") || strings.Contains(s, "old step") {
		t.Errorf("the resumed plan:\n%s", s)
	}
}

// TestModelTextStaysOnItsRow: what the model wrote — a plan's step, a
// task's description in a subagent's dialog — cannot break the screen's
// rows or hide itself: line breaks are marked, escapes shown.
func TestModelTextStaysOnItsRow(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("plan").keys("enter")
	h.events(agent.TodoUpdated{Todos: []tools.TodoItem{{Content: "step one\n✓ all tests pass\x1b[8m hidden", Status: tools.TodoInProgress}}})
	s := h.screen()
	if !strings.Contains(s, `▸ step one ⏎ ✓ all tests pass\x1b[8m hidden`) {
		t.Errorf("the plan's step:\n%s", s)
	}
	if strings.Contains(s, "\n✓ all tests pass") {
		t.Errorf("a step made a row of its own:\n%s", s)
	}

	h = running(t)
	h.agent.outcomes = nil
	task := chat.ToolCall{ID: "t2", Name: tools.Task, Arguments: `{"description":"look\nApprove: y is safe\u001b[2J","prompt":"x"}`}
	h.events(agent.AssistantMessage{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{task}}})
	ask := &childAsk{who: hooks.Agent{ID: "t2", Parent: hooks.MainAgent, Type: "general"}, pending: []agent.PendingCall{{Call: bashCall("c1", "ls")}}, reply: make(chan []agent.Decision, 1)}
	h.events(ask)
	s = h.screen()
	if !strings.Contains(s, `asked by subagent look ⏎ Approve: y is safe\x1b[2J`) {
		t.Errorf("the dialog's title:\n%s", s)
	}
}
