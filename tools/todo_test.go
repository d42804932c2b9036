package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// TestTodoTellsItsObserver: a valid plan reaches the observer of the
// call's context, trimmed, and the model reads it back; an invalid one
// is refused with the reason and reaches nobody.
func TestTodoTellsItsObserver(t *testing.T) {
	r, _ := newTestRegistry(t)
	var got [][]TodoItem
	ctx := WithPlanObserver(context.Background(), func(items []TodoItem) { got = append(got, items) })
	run := func(args string) chat.ToolResult {
		t.Helper()
		res, err := r.Run(ctx, chat.ToolCall{ID: "c", Name: Todo, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := run(`{"todos":[{"content":" read the code ","status":"completed"},{"content":"fix the bug","status":"in_progress"},{"content":"run the tests","status":"pending"}]}`)
	if res.Status != chat.StatusOK || !strings.Contains(res.Content, "[x] read the code\n[>] fix the bug\n[ ] run the tests") {
		t.Errorf("result %+v", res)
	}
	if len(got) != 1 || len(got[0]) != 3 || got[0][0] != (TodoItem{Content: "read the code", Status: TodoCompleted}) {
		t.Fatalf("observed %+v", got)
	}

	for _, bad := range []struct{ args, why string }{
		{`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`, "2 steps are in_progress"},
		{`{"todos":[{"content":"a","status":"done"}]}`, `step 1 has status "done"`},
		{`{"todos":[{"content":"  ","status":"pending"}]}`, "step 1 says nothing"},
		{`{"todos":[{"content":"` + strings.Repeat("x", MaxTodoChars+1) + `","status":"pending"}]}`, "longer than 300"},
		{`{"todos":[` + strings.TrimSuffix(strings.Repeat(`{"content":"a","status":"pending"},`, MaxTodos+1), ",") + `]}`, "at most 50"},
	} {
		res := run(bad.args)
		if res.Status != chat.StatusError || !strings.Contains(res.Content, bad.why) {
			t.Errorf("%s: %+v", bad.args[:min(len(bad.args), 60)], res)
		}
	}
	if len(got) != 1 {
		t.Errorf("an invalid plan reached the observer: %+v", got[1:])
	}

	if res := run(`{"todos":[]}`); res.Content != "The plan is cleared." || len(got) != 2 || len(got[1]) != 0 {
		t.Errorf("clearing: %+v, observed %+v", res, got)
	}
	if s := r.Summary(chat.ToolCall{Name: Todo, Arguments: `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"},{"content":"c","status":"pending"}]}`}); s != "3 steps: 1 done, 1 in progress" {
		t.Errorf("summary %q", s)
	}
}

// TestSubsetOffersOnlyItsTools: a subset lists only its tools (the same
// slice while the registry's tools do not change) and refuses a call of
// any other, as unknown.
func TestSubsetOffersOnlyItsTools(t *testing.T) {
	r, _ := newTestRegistry(t)
	s := r.Subset([]string{ReadFile, Grep, ReadFile})
	specs := s.Specs()
	if len(specs) != 2 || specs[0].Name != Grep || specs[1].Name != ReadFile {
		t.Fatalf("specs %+v", specs)
	}
	if again := s.Specs(); &again[0] != &specs[0] {
		t.Error("Specs made a new slice while nothing changed")
	}
	res, err := s.Run(context.Background(), chat.ToolCall{ID: "c", Name: Bash, Arguments: `{"command":"true"}`})
	if err != nil || res.Status != chat.StatusError || res.Content != `Unknown tool "bash". The available tools are: grep, read_file.` {
		t.Errorf("bash through the subset: %+v %v", res, err)
	}
	extra := New("extra_read", "Extra.", KindRead, func(context.Context, struct{}) (Result, error) { return OK("x"), nil }, nil)
	if err := r.Add(extra); err != nil {
		t.Fatal(err)
	}
	if again := s.Specs(); len(again) != 2 {
		t.Errorf("a tool outside the subset joined it: %+v", again)
	}
}
