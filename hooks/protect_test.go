package hooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// mask is a Protect hook that replaces "SECRET" and counts its calls.
func mask(calls *counter) hooks.Hook[hooks.PostToolInput, hooks.PostToolResult] {
	h := hooktest.Post("mask", func(in *hooks.PostToolInput) hooks.PostToolResult {
		calls.inc()
		in.Result.Content = strings.ReplaceAll(in.Result.Content, "SECRET", "***")
		return hooks.PostToolResult{}
	})
	h.Protect = true
	return h
}

func secretResult() *hooks.PostToolInput {
	return &hooks.PostToolInput{
		Call: chat.ToolCall{ID: "call_1", Name: "bash"},
		Result: chat.ToolResult{CallID: "call_1", Status: chat.StatusOK, Content: "token=SECRET",
			Attached: &chat.Attachments{Images: []chat.Image{{MIMEType: "image/png", Data: []byte("a screenshot of SECRET")}}}},
	}
}

func TestProtectHookRunsAfterAnEarlierHookAborts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]
	}{
		{"abort", hooktest.Post("gate", func(*hooks.PostToolInput) hooks.PostToolResult {
			return hooks.PostToolResult{Action: hooks.PostAbort, Reason: "stop"}
		})},
		{"fails closed", hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: "gate", OnError: hooks.FailClosed,
			Run: func(context.Context, *hooks.PostToolInput) (hooks.PostToolResult, error) {
				return hooks.PostToolResult{}, errors.New("crashed")
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := hooks.NewRegistry()
			var masked, after counter
			first := tc.first
			first.Priority = -1 // runs before the Protect hook
			r.PostToolCall(first)
			r.PostToolCall(mask(&masked))
			r.PostToolCall(counting[hooks.PostToolInput, hooks.PostToolResult]("observer", &after))
			in := secretResult()
			var tr hooktest.Trace
			res := r.RunPostToolCall(t.Context(), in, tr.Record)
			if res.Action != hooks.PostAbort {
				t.Fatalf("result = %+v, want abort", res)
			}
			if in.Result.Content != "token=***" || masked.get() != 1 {
				t.Errorf("content = %q (mask ran %d times)", in.Result.Content, masked.get())
			}
			if after.get() != 0 {
				t.Errorf("a hook that does not protect ran after the abort")
			}
			ds := tr.Decisions()
			if last := ds[len(ds)-1]; last.Hook != "mask" || !last.Protect || last.Result != "continue" {
				t.Errorf("trace = %s; last decision %+v", tr.String(), last)
			}
		})
	}
}

func TestProtectHookRunsWhenCancelledWhileAnEarlierHookRuns(t *testing.T) {
	r := hooks.NewRegistry()
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	slow := hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: "slow", Priority: -1,
		Run: func(ctx context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
			close(started)
			<-ctx.Done()
			return hooks.PostToolResult{}, ctx.Err()
		}}
	r.PostToolCall(slow)
	var masked counter
	r.PostToolCall(mask(&masked))
	go func() {
		<-started
		cancel()
	}()
	in := secretResult()
	res := r.RunPostToolCall(ctx, in, nil)
	if res.Action != hooks.PostAbort {
		t.Errorf("result = %+v, want the restrictive abort", res)
	}
	if in.Result.Content != "token=***" || masked.get() != 1 {
		t.Errorf("content = %q (mask ran %d times)", in.Result.Content, masked.get())
	}
}

func TestProtectHookCancelledWhileRunningRunsAgain(t *testing.T) {
	r := hooks.NewRegistry()
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	h := hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: "mask", Protect: true,
		Run: func(ctx context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
			calls++
			if calls == 1 {
				cancel() // the caller gives up while the first call runs
				return hooks.PostToolResult{}, nil
			}
			if ctx.Err() != nil {
				return hooks.PostToolResult{}, errors.New("the second call saw the caller's cancellation")
			}
			in.Result.Content = strings.ReplaceAll(in.Result.Content, "SECRET", "***")
			return hooks.PostToolResult{}, nil
		}}
	r.PostToolCall(h)
	in := secretResult()
	var tr hooktest.Trace
	r.RunPostToolCall(ctx, in, tr.Record)
	if calls != 2 || in.Result.Content != "token=***" {
		t.Errorf("calls = %d, content = %q; trace %s", calls, in.Result.Content, tr.String())
	}
}

func TestFailedProtectHookWithholdsTheResult(t *testing.T) {
	fail := func(err error, panics bool) hooks.Hook[hooks.PostToolInput, hooks.PostToolResult] {
		return hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: "mask", Protect: true,
			Run: func(context.Context, *hooks.PostToolInput) (hooks.PostToolResult, error) {
				if panics {
					panic("boom")
				}
				return hooks.PostToolResult{}, err
			}}
	}
	check := func(t *testing.T, in *hooks.PostToolInput, tr *hooktest.Trace) {
		t.Helper()
		if strings.Contains(in.Result.Content, "SECRET") || !strings.Contains(in.Result.Content, "withheld") ||
			!strings.Contains(in.Result.Content, `"mask"`) || in.Result.Status != chat.StatusError || in.Result.Attached != nil {
			t.Errorf("result = %+v; trace %s", in.Result, tr.String())
		}
	}
	t.Run("in the chain, failing open", func(t *testing.T) {
		r := hooks.NewRegistry()
		r.PostToolCall(fail(errors.New("no pattern file"), false))
		in := secretResult()
		var tr hooktest.Trace
		if res := r.RunPostToolCall(t.Context(), in, tr.Record); res.Action != hooks.PostContinue {
			t.Errorf("result = %+v: the error policy still decides the action", res)
		}
		check(t, in, &tr)
	})
	t.Run("after the run stopped, panicking", func(t *testing.T) {
		r := hooks.NewRegistry()
		r.PostToolCall(fail(nil, true))
		in := secretResult()
		var tr hooktest.Trace
		r.RunPostToolProtect(t.Context(), in, tr.Record)
		check(t, in, &tr)
		if ds := tr.Decisions(); len(ds) != 1 || ds[0].Result != "withheld" || !ds[0].Protect || ds[0].Error == "" {
			t.Errorf("decisions = %+v", ds)
		}
	})
	t.Run("after the run stopped, timing out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := hooks.NewRegistry()
			h := fail(nil, false)
			h.Timeout = time.Second
			h.Run = func(ctx context.Context, _ *hooks.PostToolInput) (hooks.PostToolResult, error) {
				<-ctx.Done()
				return hooks.PostToolResult{}, nil
			}
			r.PostToolCall(h)
			in := secretResult()
			var tr hooktest.Trace
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // the run was cancelled: the hook still gets its timeout, no more
			r.RunPostToolProtect(ctx, in, tr.Record)
			check(t, in, &tr)
		})
	})
}

func TestRunPostToolProtectRunsOnlyProtectHooksOnContent(t *testing.T) {
	r := hooks.NewRegistry()
	var masked, other counter
	r.PostToolCall(counting[hooks.PostToolInput, hooks.PostToolResult]("observer", &other))
	r.PostToolCall(mask(&masked))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	in := secretResult()
	r.RunPostToolProtect(ctx, in, nil)
	if in.Result.Content != "token=***" || masked.get() != 1 || other.get() != 0 {
		t.Errorf("content %q, mask ran %d, observer ran %d", in.Result.Content, masked.get(), other.get())
	}
	empty := &hooks.PostToolInput{Result: chat.ToolResult{Status: chat.StatusOK}}
	r.RunPostToolProtect(ctx, empty, nil)
	if masked.get() != 1 {
		t.Errorf("the Protect hook ran on a result without content")
	}
}

func TestProtectIsOnlyForPostToolCall(t *testing.T) {
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "Protect") {
			t.Errorf("recover() = %v, want a panic about Protect", v)
		}
	}()
	h := hooktest.PreTool("guard", nil)
	h.Protect = true
	hooks.NewRegistry().PreToolCall(h)
}

func TestSnapshotKeepsChainIndicesWhileHooksAreRegistered(t *testing.T) {
	r := hooks.NewRegistry()
	var gate, after, late counter
	r.PreToolCall(hooktest.PreTool("gate", func(*hooks.PreToolInput) hooks.PreToolResult {
		gate.inc()
		return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"}
	}))
	r.PreToolCall(counting[hooks.PreToolInput, hooks.PreToolResult]("after", &after))
	snap := r.Snapshot()

	in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c", Name: "bash"}}
	res, idx := snap.RunPreToolCall(t.Context(), in, 0, nil)
	if res.Action != hooks.ToolPause || idx != 0 {
		t.Fatalf("first pass = %+v at %d", res, idx)
	}
	// While the call waits, a hook that sorts before the gate arrives.
	early := counting[hooks.PreToolInput, hooks.PreToolResult]("late", &late)
	early.Priority = -1
	r.PreToolCall(early)

	if res, _ := snap.RunPreToolCall(t.Context(), in, idx+1, nil); res.Action != hooks.ToolContinue {
		t.Fatalf("resumed = %+v", res)
	}
	if gate.get() != 1 || after.get() != 1 || late.get() != 0 {
		t.Errorf("gate ran %d, after ran %d, late ran %d; want 1, 1, 0", gate.get(), after.get(), late.get())
	}
	if got := r.Names(hooks.PreToolCall); len(got) != 3 || snap.Len(hooks.PreToolCall) != 2 {
		t.Errorf("registry has %v, snapshot %d hooks", got, snap.Len(hooks.PreToolCall))
	}
}
