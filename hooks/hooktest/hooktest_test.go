package hooktest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
)

func TestConstructors(t *testing.T) {
	ctx := context.Background()
	pt := hooktest.PreTool("pt", func(in *hooks.PreToolInput) hooks.PreToolResult {
		in.Call.Arguments = "{}"
		return hooks.PreToolResult{Action: hooks.ToolSkip}
	})
	in := &hooks.PreToolInput{}
	if res, err := pt.Run(ctx, in); err != nil || res.Action != hooks.ToolSkip || in.Call.Arguments != "{}" {
		t.Errorf("PreTool run = %+v, %v; input %+v", res, err, in)
	}
	if pt.Name != "pt" || pt.Priority != 0 || pt.Timeout != 0 || pt.OnError != hooks.PolicyDefault {
		t.Errorf("PreTool defaults: %+v", pt)
	}
	if res, err := hooktest.TurnEnd("te", nil).Run(ctx, &hooks.TurnEndInput{}); err != nil || res.Action != hooks.TurnFinish {
		t.Errorf("nil TurnEnd = %+v, %v; want finish", res, err)
	}
	if res, err := hooktest.Post("p", nil).Run(ctx, &hooks.PostToolInput{}); err != nil || res.Action != hooks.PostContinue {
		t.Errorf("nil Post = %+v, %v", res, err)
	}
	if res, err := hooktest.Prompt("p", nil).Run(ctx, &hooks.PromptInput{}); err != nil || res.Action != hooks.PromptContinue {
		t.Errorf("nil Prompt = %+v, %v", res, err)
	}
	if res, err := hooktest.Request("r", nil).Run(ctx, &hooks.LLMRequestInput{}); err != nil || res.Action != hooks.RequestContinue {
		t.Errorf("nil Request = %+v, %v", res, err)
	}
	var reason string
	if _, err := hooktest.Abort("a", func(in *hooks.AbortInput) { reason = in.Reason }).Run(ctx, &hooks.AbortInput{Reason: "esc"}); err != nil || reason != "esc" {
		t.Errorf("Abort saw %q, %v", reason, err)
	}
	if _, err := hooktest.Abort("a", nil).Run(ctx, &hooks.AbortInput{}); err != nil {
		t.Errorf("nil Abort: %v", err)
	}
}

func TestTrace(t *testing.T) {
	var tr hooktest.Trace
	if tr.String() != "" || len(tr.Decisions()) != 0 {
		t.Fatalf("empty trace: %q", tr.String())
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		tr.Record(hooks.Decision{Event: hooks.PreToolCall, Hook: "a", Result: "continue", Duration: time.Millisecond, CallID: "c1"})
	})
	wg.Wait()
	tr.Record(hooks.Decision{Event: hooks.PreToolCall, Hook: "b", Result: "pause", Reason: "ask"})
	tr.Record(hooks.Decision{Event: hooks.OnTurnEnd, Hook: "vet", Result: "finish", Reason: `hook "vet" failed: boom`, Error: "boom"})
	want := `pre_tool_call/a:continue pre_tool_call/b:pause(ask) on_turn_end/vet:finish!(boom)`
	if tr.String() != want {
		t.Errorf("String() = %q\nwant       %q", tr.String(), want)
	}
	ds := tr.Decisions()
	if len(ds) != 3 || ds[0].CallID != "c1" || ds[0].Duration != time.Millisecond {
		t.Fatalf("Decisions() = %+v", ds)
	}
	ds[0].Hook = "changed"
	if tr.Decisions()[0].Hook != "a" {
		t.Error("Decisions() does not return a copy")
	}
}
