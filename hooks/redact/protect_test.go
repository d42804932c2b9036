package redact_test

import (
	"context"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestRedactsResultsOfAStoppedRun(t *testing.T) {
	reg := hooks.NewRegistry()
	h, err := redact.Hook([]string{"sk-test-abcdefgh"}, redact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	reg.PostToolCall(h)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := hooks.PostToolInput{
		Call:   chat.ToolCall{ID: "c", Name: "bash"},
		Result: chat.ToolResult{Content: "KEY=sk-test-abcdefgh"},
	}
	reg.RunPostToolProtect(ctx, &in, nil)
	if in.Result.Content != "KEY=[REDACTED]" {
		t.Errorf("content = %q, want the key redacted after the run was cancelled", in.Result.Content)
	}
}
