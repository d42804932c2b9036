package hooks_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// BenchmarkPreToolChain10 measures one tool call through ten in-process
// pre_tool_call hooks that all say Continue, with a recorder.
func BenchmarkPreToolChain10(b *testing.B) {
	r := hooks.NewRegistry()
	for i := range 10 {
		r.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
			Name:     "h" + strconv.Itoa(i),
			Priority: i % 3,
			Run: func(context.Context, *hooks.PreToolInput) (hooks.PreToolResult, error) {
				return hooks.PreToolResult{}, nil
			},
		})
	}
	decisions := make([]hooks.Decision, 0, 16)
	rec := func(d hooks.Decision) { decisions = append(decisions, d) }
	in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`}}
	ctx := context.Background()

	b.ReportAllocs()
	for b.Loop() {
		decisions = decisions[:0]
		if res, n := r.RunPreToolCall(ctx, in, 0, rec); res.Action != hooks.ToolContinue || n != 10 {
			b.Fatalf("got %+v at %d", res, n)
		}
	}
	if len(decisions) != 10 {
		b.Fatalf("recorded %d decisions, want 10", len(decisions))
	}
}
