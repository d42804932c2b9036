package agent_test

import (
	"slices"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools"
)

// TestTodoCallReportsThePlan: a todo call's plan is reported as
// TodoUpdated between the call's start and its result; a plan the tool
// refuses is not.
func TestTodoCallReportsThePlan(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("p1", tools.Todo, `{"todos":[{"content":"read","status":"completed"},{"content":"fix","status":"in_progress"}]}`)),
		llmtest.ToolCalls(llmtest.Call("p2", tools.Todo, `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`)),
		llmtest.Text("done"),
	), func(c *agent.Config) { c.Tools = tools.NewRegistry(ws) })
	if out, err := h.worker.Run(t.Context(), "plan it"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	var seq []string
	var plans [][]tools.TodoItem
	for _, e := range h.events.all {
		switch e := e.(type) {
		case agent.ToolCallStarted:
			seq = append(seq, "started "+e.Call.ID)
		case agent.TodoUpdated:
			seq = append(seq, "plan")
			plans = append(plans, e.Todos)
		case agent.ToolCallFinished:
			seq = append(seq, "finished "+e.Call.ID)
		}
	}
	if want := []string{"started p1", "plan", "finished p1", "started p2", "finished p2"}; !slices.Equal(seq, want) {
		t.Errorf("events %v, want %v", seq, want)
	}
	if len(plans) != 1 || !slices.Equal(plans[0], []tools.TodoItem{{Content: "read", Status: tools.TodoCompleted}, {Content: "fix", Status: tools.TodoInProgress}}) {
		t.Errorf("plans %+v", plans)
	}
	b, _ := agent.MarshalEvent(agent.TodoUpdated{Todos: plans[0]})
	if string(b) != `{"type":"todo_updated","agent":{"id":"main"},"todos":[{"content":"read","status":"completed"},{"content":"fix","status":"in_progress"}]}` {
		t.Errorf("JSON %s", b)
	}
}
