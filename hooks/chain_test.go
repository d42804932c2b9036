package hooks_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// ---- every result of every event ----

type resultCase[Out any] struct {
	res   Out
	stops bool   // the result ends the chain: hook "b" must not run
	trace string // of hook "a" (returning res) and hook "b" (going on)
}

// testResults registers a hook "a" returning each case's result and a hook
// "b" after it, and checks the chain's result, the trace and whether b ran.
func testResults[In, Out any](t *testing.T, h harness[In, Out], cases []resultCase[Out]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.trace, func(t *testing.T) {
			r := hooks.NewRegistry()
			h.register(r, hooks.Hook[In, Out]{Name: "a", Run: func(context.Context, *In) (Out, error) { return c.res, nil }})
			var b counter
			h.register(r, counting[In, Out]("b", &b))
			var tr hooktest.Trace

			got := h.run(t.Context(), r, h.newIn(), tr.Record)

			var want Out
			wantB := 1
			if c.stops {
				want, wantB = c.res, 0
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("result = %+v, want %+v", got, want)
			}
			if tr.String() != c.trace {
				t.Errorf("trace = %q, want %q", tr.String(), c.trace)
			}
			if b.get() != wantB {
				t.Errorf("hook b ran %d times, want %d", b.get(), wantB)
			}
		})
	}
}

func TestResults(t *testing.T) {
	t.Run("on_prompt_submit", func(t *testing.T) {
		testResults(t, promptH, []resultCase[hooks.PromptResult]{
			{hooks.PromptResult{}, false, "on_prompt_submit/a:continue on_prompt_submit/b:continue"},
			{hooks.PromptResult{Reason: "looks fine"}, false, "on_prompt_submit/a:continue(looks fine) on_prompt_submit/b:continue"},
			{hooks.PromptResult{Action: hooks.PromptCancel, Reason: "empty"}, true, "on_prompt_submit/a:cancel(empty)"},
		})
	})
	t.Run("pre_llm_request", func(t *testing.T) {
		testResults(t, requestH, []resultCase[hooks.RequestResult]{
			{hooks.RequestResult{}, false, "pre_llm_request/a:continue pre_llm_request/b:continue"},
			{hooks.RequestResult{Action: hooks.RequestCancel, Reason: "too many tokens"}, true, "pre_llm_request/a:cancel(too many tokens)"},
		})
	})
	t.Run("pre_tool_call", func(t *testing.T) {
		testResults(t, preToolH, []resultCase[hooks.PreToolResult]{
			{hooks.PreToolResult{}, false, "pre_tool_call/a:continue pre_tool_call/b:continue"},
			{hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "plan mode"}, true, "pre_tool_call/a:skip(plan mode)"},
			{hooks.PreToolResult{Action: hooks.ToolAbort, Reason: "rm -rf /"}, true, "pre_tool_call/a:abort(rm -rf /)"},
			{hooks.PreToolResult{Action: hooks.ToolPause, Reason: "edits need approval"}, true, "pre_tool_call/a:pause(edits need approval)"},
			{hooks.PreToolResult{Action: hooks.ToolRespond, Reason: "cached", Response: chat.ToolResult{Content: "a.go"}}, true, "pre_tool_call/a:respond(cached)"},
			{hooks.PreToolResult{Action: hooks.ToolRespond, Response: chat.ToolResult{Status: chat.StatusError, Content: "no such file"}}, true, "pre_tool_call/a:respond"},
		})
	})
	t.Run("post_tool_call", func(t *testing.T) {
		testResults(t, postToolH, []resultCase[hooks.PostToolResult]{
			{hooks.PostToolResult{}, false, "post_tool_call/a:continue post_tool_call/b:continue"},
			{hooks.PostToolResult{Action: hooks.PostAbort, Reason: "secret in output"}, true, "post_tool_call/a:abort(secret in output)"},
		})
	})
	t.Run("on_turn_end", func(t *testing.T) {
		msgs := []chat.Message{chat.UserMessage("a.go:3: missing return")}
		testResults(t, turnEndH, []resultCase[hooks.TurnEndResult]{
			{hooks.TurnEndResult{}, false, "on_turn_end/a:finish on_turn_end/b:finish"},
			{hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: msgs, Reason: "go vet"}, true, "on_turn_end/a:continue_with_messages(go vet)"},
			{hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "review"}, true, "on_turn_end/a:paused(review)"},
		})
	})
	t.Run("on_abort", func(t *testing.T) {
		testResults(t, abortH, []resultCase[struct{}]{
			{struct{}{}, false, "on_abort/a:done on_abort/b:done"},
		})
	})
	t.Run("pre_compact", func(t *testing.T) {
		testResults(t, compactH, []resultCase[hooks.CompactResult]{
			{hooks.CompactResult{}, false, "pre_compact/a:continue pre_compact/b:continue"},
			{hooks.CompactResult{Action: hooks.CompactCancel, Reason: "not now"}, true, "pre_compact/a:cancel(not now)"},
		})
	})
}

// ---- failures and error policy, for every event ----

func policyName(p hooks.ErrorPolicy) string {
	return [...]string{"default", "fail-open", "fail-closed"}[p]
}

// testFailures makes hook "bad" fail in every way under every policy and
// checks what the chain makes of it. It runs in a synctest bubble, so
// timeouts take no real time and durations are exact.
func testFailures[In, Out any](t *testing.T, h harness[In, Out]) {
	const timeout = 5 * time.Second
	type kind struct {
		name    string
		run     func(ctx context.Context, in *In) (Out, error)
		wantErr string
		wantDur time.Duration
	}
	kinds := []kind{
		{"error", func(context.Context, *In) (Out, error) {
			return h.stop, fmt.Errorf("run gofmt: %w", errors.New("exit status 2"))
		}, "run gofmt: exit status 2", 0},
		{"panic", func(context.Context, *In) (Out, error) { panic("boom") }, "panic: boom", 0},
		{"waits past its deadline", func(ctx context.Context, _ *In) (Out, error) {
			<-ctx.Done()
			return h.stop, ctx.Err()
		}, "timed out after 5s", timeout},
		{"overruns its deadline", func(context.Context, *In) (Out, error) {
			time.Sleep(timeout + time.Second) // ignores ctx; its result is discarded
			return h.stop, nil
		}, "timed out after 5s", timeout + time.Second},
	}
	if h.invalid != nil {
		kinds = append(kinds, kind{"invalid result", func(context.Context, *In) (Out, error) {
			return *h.invalid, nil
		}, h.invalidErr, 0})
	}
	for _, k := range kinds {
		for _, p := range []hooks.ErrorPolicy{hooks.PolicyDefault, hooks.FailOpen, hooks.FailClosed} {
			t.Run(k.name+"/"+policyName(p), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					r := hooks.NewRegistry()
					h.register(r, hooks.Hook[In, Out]{Name: "bad", Timeout: timeout, OnError: p, Run: k.run})
					var next counter
					h.register(r, counting[In, Out]("next", &next))
					var tr hooktest.Trace

					got := h.run(t.Context(), r, h.newIn(), tr.Record)

					reason := `hook "bad" failed: ` + k.wantErr
					closed := h.closed != nil && (p == hooks.FailClosed || p == hooks.PolicyDefault && h.closedByDefault)
					wantTrace := []hooks.Decision{{Event: h.ev, Hook: "bad", Reason: reason, Duration: k.wantDur, CallID: h.callID, Error: k.wantErr}}
					var want Out
					wantNext := 0
					if closed {
						want = h.closed(reason)
						wantTrace[0].Result = h.closedName
					} else {
						wantNext = 1
						wantTrace[0].Result = h.passName
						wantTrace = append(wantTrace, hooks.Decision{Event: h.ev, Hook: "next", Result: h.passName, CallID: h.callID})
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("result = %+v, want %+v", got, want)
					}
					if d := tr.Decisions(); !reflect.DeepEqual(d, wantTrace) {
						t.Errorf("decisions:\n got %+v\nwant %+v", d, wantTrace)
					}
					if next.get() != wantNext {
						t.Errorf("hook after the failed one ran %d times, want %d", next.get(), wantNext)
					}
				})
			})
		}
	}
}

func TestFailures(t *testing.T) {
	t.Run("on_prompt_submit", func(t *testing.T) { testFailures(t, promptH) })
	t.Run("pre_llm_request", func(t *testing.T) { testFailures(t, requestH) })
	t.Run("pre_tool_call", func(t *testing.T) { testFailures(t, preToolH) })
	t.Run("post_tool_call", func(t *testing.T) { testFailures(t, postToolH) })
	t.Run("on_turn_end", func(t *testing.T) { testFailures(t, turnEndH) })
	t.Run("on_abort", func(t *testing.T) { testFailures(t, abortH) })
	t.Run("pre_compact", func(t *testing.T) { testFailures(t, compactH) })
}

func TestPanicWithErrorValue(t *testing.T) {
	r := hooks.NewRegistry()
	h := hooktest.PreTool("p", func(*hooks.PreToolInput) hooks.PreToolResult {
		var m map[string]int
		//lint:ignore SA5000 the hook must panic with a runtime error value
		m["x"] = 1
		return hooks.PreToolResult{}
	})
	r.PreToolCall(h)
	var tr hooktest.Trace
	got, i := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, tr.Record)
	if got.Action != hooks.ToolSkip || i != 0 {
		t.Fatalf("got %+v at %d, want skip at 0", got, i)
	}
	want := "panic: assignment to entry in nil map"
	if d := tr.Decisions(); len(d) != 1 || d[0].Error != want || got.Reason != `hook "p" failed: `+want {
		t.Errorf("decisions %+v, reason %q; want error %q", d, got.Reason, want)
	}
}

// ---- cancellation by the caller, for every event ----

func testCancel[In, Out any](t *testing.T, h harness[In, Out]) {
	esc := errors.New("user pressed esc")

	t.Run("before the chain", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(esc)
		r := hooks.NewRegistry()
		var a, b counter
		h.register(r, counting[In, Out]("a", &a))
		h.register(r, counting[In, Out]("b", &b))
		var tr hooktest.Trace

		got := h.run(ctx, r, h.newIn(), tr.Record)

		if h.closed == nil { // on_abort hooks run because of cancellation
			if a.get() != 1 || b.get() != 1 {
				t.Errorf("on_abort hooks ran %d and %d times, want 1 each", a.get(), b.get())
			}
			if want := "on_abort/a:done on_abort/b:done"; tr.String() != want {
				t.Errorf("trace = %q, want %q", tr.String(), want)
			}
			return
		}
		if want := h.closed(`cancelled before hook "a" ran: user pressed esc`); !reflect.DeepEqual(got, want) {
			t.Errorf("result = %+v, want %+v", got, want)
		}
		if a.get()+b.get() != 0 {
			t.Errorf("hooks ran after cancellation: a %d, b %d", a.get(), b.get())
		}
		if d := tr.Decisions(); len(d) != 0 {
			t.Errorf("decisions for hooks that did not run: %+v", d)
		}
	})

	t.Run("while a hook runs", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		clk := newFakeClock()
		r := hooks.NewRegistry(hooks.WithClock(clk.Now))
		h.register(r, hooks.Hook[In, Out]{Name: "a", OnError: hooks.FailOpen, Run: func(ctx context.Context, _ *In) (Out, error) {
			clk.Advance(3 * time.Millisecond)
			cancel(esc)
			var zero Out
			return zero, ctx.Err()
		}})
		var b counter
		h.register(r, counting[In, Out]("b", &b))
		var tr hooktest.Trace

		got := h.run(ctx, r, h.newIn(), tr.Record)

		if h.closed == nil { // on_abort hooks do not see the cancellation
			if want := "on_abort/a:done on_abort/b:done"; tr.String() != want {
				t.Errorf("trace = %q, want %q", tr.String(), want)
			}
			return
		}
		reason := `cancelled while hook "a" ran: user pressed esc`
		if want := h.closed(reason); !reflect.DeepEqual(got, want) {
			t.Errorf("result = %+v, want %+v", got, want)
		}
		want := []hooks.Decision{{Event: h.ev, Hook: "a", Result: h.closedName, Reason: reason, Duration: 3 * time.Millisecond, CallID: h.callID}}
		if d := tr.Decisions(); !reflect.DeepEqual(d, want) {
			t.Errorf("decisions:\n got %+v\nwant %+v", d, want)
		}
		if b.get() != 0 {
			t.Errorf("hook b ran after cancellation")
		}
	})
}

func TestCallerCancellation(t *testing.T) {
	t.Run("on_prompt_submit", func(t *testing.T) { testCancel(t, promptH) })
	t.Run("pre_llm_request", func(t *testing.T) { testCancel(t, requestH) })
	t.Run("pre_tool_call", func(t *testing.T) { testCancel(t, preToolH) })
	t.Run("post_tool_call", func(t *testing.T) { testCancel(t, postToolH) })
	t.Run("on_turn_end", func(t *testing.T) { testCancel(t, turnEndH) })
	t.Run("on_abort", func(t *testing.T) { testCancel(t, abortH) })
	t.Run("pre_compact", func(t *testing.T) { testCancel(t, compactH) })
}

func TestCancellationWhileHookWaitsIsNotATimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		r := hooks.NewRegistry()
		r.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
			Name: "w", Timeout: 5 * time.Second,
			Run: func(ctx context.Context, _ *hooks.PreToolInput) (hooks.PreToolResult, error) {
				<-ctx.Done()
				return hooks.PreToolResult{}, ctx.Err()
			},
		})
		var tr hooktest.Trace
		got, i := r.RunPreToolCall(ctx, preToolH.newIn(), 0, tr.Record)
		reason := `cancelled while hook "w" ran: context canceled`
		if got != (hooks.PreToolResult{Action: hooks.ToolSkip, Reason: reason}) || i != 0 {
			t.Errorf("got %+v at %d", got, i)
		}
		want := []hooks.Decision{{Event: hooks.PreToolCall, Hook: "w", Result: "skip", Reason: reason, Duration: time.Second, CallID: "call_1"}}
		if d := tr.Decisions(); !reflect.DeepEqual(d, want) {
			t.Errorf("decisions:\n got %+v\nwant %+v", d, want)
		}
	})
}

// ---- timeouts and the hook's context ----

func TestHookDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deadlineOf := func(r *hooks.Registry, h hooks.Hook[hooks.PreToolInput, hooks.PreToolResult], ctx context.Context) time.Duration {
			var got time.Time
			h.Run = func(ctx context.Context, _ *hooks.PreToolInput) (hooks.PreToolResult, error) {
				d, ok := ctx.Deadline()
				if !ok {
					t.Error("hook context has no deadline")
				}
				got = d
				return hooks.PreToolResult{}, nil
			}
			r.PreToolCall(h)
			start := time.Now()
			if res, _ := r.RunPreToolCall(ctx, preToolH.newIn(), 0, nil); res.Action != hooks.ToolContinue {
				t.Errorf("result %+v", res)
			}
			return got.Sub(start)
		}
		h := hooktest.PreTool("h", nil)
		if d := deadlineOf(hooks.NewRegistry(), h, t.Context()); d != hooks.DefaultTimeout {
			t.Errorf("deadline in %v, want the default %v", d, hooks.DefaultTimeout)
		}
		if d := deadlineOf(hooks.NewRegistry(hooks.WithDefaultTimeout(2*time.Second)), h, t.Context()); d != 2*time.Second {
			t.Errorf("deadline in %v, want the registry's 2s", d)
		}
		h.Timeout = 7 * time.Second
		if d := deadlineOf(hooks.NewRegistry(hooks.WithDefaultTimeout(2*time.Second)), h, t.Context()); d != 7*time.Second {
			t.Errorf("deadline in %v, want the hook's 7s", d)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if d := deadlineOf(hooks.NewRegistry(), h, ctx); d != time.Second {
			t.Errorf("deadline in %v, want the caller's earlier 1s", d)
		}
	})
}

func TestHookFinishingBeforeItsDeadlineSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := hooks.NewRegistry(hooks.WithDefaultTimeout(5 * time.Second))
		r.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "slow", Run: func(ctx context.Context, _ *hooks.PreToolInput) (hooks.PreToolResult, error) {
			select {
			case <-ctx.Done():
				return hooks.PreToolResult{}, ctx.Err()
			case <-time.After(4 * time.Second):
			}
			return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"}, ctx.Err()
		}})
		var tr hooktest.Trace
		got, _ := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, tr.Record)
		if got != (hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"}) {
			t.Errorf("result %+v, want the hook's pause", got)
		}
		if d := tr.Decisions(); len(d) != 1 || d[0].Duration != 4*time.Second || d[0].Error != "" {
			t.Errorf("decisions %+v, want one of 4s without error", d)
		}
	})
}

func TestHookContextEndsWithTheCall(t *testing.T) {
	for _, armed := range []bool{false, true} {
		t.Run(fmt.Sprintf("armed=%v", armed), func(t *testing.T) {
			r := hooks.NewRegistry()
			var kept context.Context
			r.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "k", Run: func(ctx context.Context, _ *hooks.PreToolInput) (hooks.PreToolResult, error) {
				kept = ctx
				if armed {
					select {
					case <-ctx.Done():
						t.Error("hook context done during the call")
					default:
					}
				}
				if err := ctx.Err(); err != nil {
					t.Errorf("Err during the call = %v", err)
				}
				return hooks.PreToolResult{}, nil
			}})
			r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, nil)
			if err := kept.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("Err after the call = %v, want context.Canceled", err)
			}
			select {
			case <-kept.Done():
			default:
				t.Error("a hook's context is not done after the call")
			}
		})
	}
}

type ctxKey struct{}

func TestHookContextCarriesValues(t *testing.T) {
	ctx := context.WithValue(t.Context(), ctxKey{}, "run-7")
	r := hooks.NewRegistry()
	var seen []any
	r.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "v", Run: func(ctx context.Context, _ *hooks.PreToolInput) (hooks.PreToolResult, error) {
		seen = append(seen, ctx.Value(ctxKey{}))
		return hooks.PreToolResult{}, nil
	}})
	r.OnAbort(hooks.Hook[hooks.AbortInput, struct{}]{Name: "v", Run: func(ctx context.Context, _ *hooks.AbortInput) (struct{}, error) {
		seen = append(seen, ctx.Value(ctxKey{}))
		return struct{}{}, ctx.Err()
	}})
	r.RunPreToolCall(ctx, preToolH.newIn(), 0, nil)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	var tr hooktest.Trace
	r.RunAbort(cctx, abortH.newIn(), tr.Record)
	if !slices.Equal(seen, []any{"run-7", "run-7"}) {
		t.Errorf("values seen by hooks: %v", seen)
	}
	if want := "on_abort/v:done"; tr.String() != want {
		t.Errorf("trace %q, want %q (the on_abort hook must not see the cancellation)", tr.String(), want)
	}
}

// ---- ordering, short-circuit, resumption ----

func TestOrderIsPriorityThenRegistration(t *testing.T) {
	r := hooks.NewRegistry()
	var order []string
	for _, h := range []struct {
		name string
		prio int
	}{{"late-1", 5}, {"early-1", -1}, {"late-2", 5}, {"mid", 0}, {"early-2", -1}, {"last", 9}} {
		hk := hooktest.PreTool(h.name, func(*hooks.PreToolInput) hooks.PreToolResult {
			order = append(order, h.name)
			return hooks.PreToolResult{}
		})
		hk.Priority = h.prio
		r.PreToolCall(hk)
	}
	want := []string{"early-1", "early-2", "mid", "late-1", "late-2", "last"}
	res, i := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, nil)
	if res != (hooks.PreToolResult{}) || i != len(want) {
		t.Errorf("got %+v, %d; want continue, %d", res, i, len(want))
	}
	if !slices.Equal(order, want) {
		t.Errorf("ran %v, want %v", order, want)
	}
	if n := r.Names(hooks.PreToolCall); !slices.Equal(n, want) {
		t.Errorf("Names = %v, want %v", n, want)
	}
	for ev, n := range map[hooks.Event]int{hooks.PreToolCall: 6, hooks.PostToolCall: 0, hooks.Event(0): 0} {
		if r.Len(ev) != n {
			t.Errorf("Len(%v) = %d, want %d", ev, r.Len(ev), n)
		}
	}
}

func TestLenAndNamesPerEvent(t *testing.T) {
	r := hooks.NewRegistry()
	r.OnPromptSubmit(hooktest.Prompt("p", nil))
	r.PreLLMRequest(hooktest.Request("q1", nil))
	r.PreLLMRequest(hooktest.Request("q2", nil))
	r.PreToolCall(hooktest.PreTool("t", nil))
	r.PostToolCall(hooktest.Post("o", nil))
	r.OnTurnEnd(hooktest.TurnEnd("e", nil))
	r.OnAbort(hooktest.Abort("x", nil))
	r.PreCompact(hooktest.Compact("c", nil))
	for ev, want := range map[hooks.Event][]string{
		hooks.OnPromptSubmit: {"p"}, hooks.PreLLMRequest: {"q1", "q2"}, hooks.PreToolCall: {"t"},
		hooks.PostToolCall: {"o"}, hooks.OnTurnEnd: {"e"}, hooks.OnAbort: {"x"}, hooks.PreCompact: {"c"},
	} {
		if got := r.Names(ev); !slices.Equal(got, want) || r.Len(ev) != len(want) {
			t.Errorf("%v: Names %v, Len %d; want %v", ev, got, r.Len(ev), want)
		}
		if got := r.Snapshot().Names(ev); !slices.Equal(got, want) {
			t.Errorf("%v: the snapshot has %v; want %v", ev, got, want)
		}
	}
}

func TestResumeAfterPause(t *testing.T) {
	t.Run("pre_tool_call", func(t *testing.T) {
		r := hooks.NewRegistry()
		var a, b, d counter
		r.PreToolCall(counting[hooks.PreToolInput, hooks.PreToolResult]("a", &a))
		r.PreToolCall(hooktest.PreTool("b", func(*hooks.PreToolInput) hooks.PreToolResult {
			b.inc()
			return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "bash needs approval"}
		}))
		r.PreToolCall(hooktest.PreTool("c", func(in *hooks.PreToolInput) hooks.PreToolResult {
			if strings.Contains(in.Call.Arguments, "rm") {
				return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "no rm"}
			}
			return hooks.PreToolResult{}
		}))
		r.PreToolCall(counting[hooks.PreToolInput, hooks.PreToolResult]("d", &d))

		in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}
		var tr hooktest.Trace
		res, i := r.RunPreToolCall(t.Context(), in, 0, tr.Record)
		if res.Action != hooks.ToolPause || i != 1 {
			t.Fatalf("first run: %+v at %d, want pause at 1", res, i)
		}
		res, i = r.RunPreToolCall(t.Context(), in, i+1, tr.Record)
		if res != (hooks.PreToolResult{}) || i != 4 {
			t.Errorf("resumed run: %+v at %d, want continue at 4", res, i)
		}
		if a.get() != 1 || b.get() != 1 || d.get() != 1 {
			t.Errorf("calls a=%d b=%d d=%d, want 1 each", a.get(), b.get(), d.get())
		}
		want := "pre_tool_call/a:continue pre_tool_call/b:pause(bash needs approval) pre_tool_call/c:continue pre_tool_call/d:continue"
		if tr.String() != want {
			t.Errorf("trace %q\nwant  %q", tr.String(), want)
		}

		// A later hook can still refuse after the approval.
		in.Call.Arguments = `{"command":"rm x"}`
		if res, i := r.RunPreToolCall(t.Context(), in, 2, nil); res.Action != hooks.ToolSkip || i != 2 {
			t.Errorf("resume into a skipping hook: %+v at %d, want skip at 2", res, i)
		}
		for _, from := range []int{4, 10} {
			if res, i := r.RunPreToolCall(t.Context(), in, from, nil); res != (hooks.PreToolResult{}) || i != 4 {
				t.Errorf("from %d: %+v at %d, want continue at 4", from, res, i)
			}
		}
		if res, i := r.RunPreToolCall(t.Context(), in, -1, nil); res.Action != hooks.ToolPause || i != 1 {
			t.Errorf("from -1: %+v at %d, want the chain from the start", res, i)
		}
	})

	t.Run("on_turn_end", func(t *testing.T) {
		r := hooks.NewRegistry()
		msgs := []chat.Message{chat.UserMessage("fix vet")}
		r.OnTurnEnd(hooktest.TurnEnd("a", nil))
		r.OnTurnEnd(hooktest.TurnEnd("b", func(*hooks.TurnEndInput) hooks.TurnEndResult {
			return hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "review the diff"}
		}))
		r.OnTurnEnd(hooktest.TurnEnd("c", func(*hooks.TurnEndInput) hooks.TurnEndResult {
			return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: msgs}
		}))
		var tr hooktest.Trace
		in := turnEndH.newIn()
		res, i := r.RunTurnEnd(t.Context(), in, 0, tr.Record)
		if res.Action != hooks.TurnPaused || i != 1 {
			t.Fatalf("first run: %+v at %d, want paused at 1", res, i)
		}
		res, i = r.RunTurnEnd(t.Context(), in, i+1, tr.Record)
		if !reflect.DeepEqual(res, hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: msgs}) || i != 2 {
			t.Errorf("resumed run: %+v at %d, want c's messages at 2", res, i)
		}
		want := "on_turn_end/a:finish on_turn_end/b:paused(review the diff) on_turn_end/c:continue_with_messages"
		if tr.String() != want {
			t.Errorf("trace %q\nwant  %q", tr.String(), want)
		}
		if res, i := r.RunTurnEnd(t.Context(), in, 3, nil); res.Action != hooks.TurnFinish || i != 3 {
			t.Errorf("past the end: %+v at %d, want finish at 3", res, i)
		}
	})
}

// ---- mutable inputs ----

func TestHooksChangeTheirInput(t *testing.T) {
	t.Run("pre_tool_call arguments", func(t *testing.T) {
		r := hooks.NewRegistry()
		r.PreToolCall(hooktest.PreTool("rewrite", func(in *hooks.PreToolInput) hooks.PreToolResult {
			in.Call.Arguments = `{"command":"ls -la"}`
			return hooks.PreToolResult{}
		}))
		var seen string
		r.PreToolCall(hooktest.PreTool("see", func(in *hooks.PreToolInput) hooks.PreToolResult {
			seen = in.Call.Arguments
			return hooks.PreToolResult{}
		}))
		in := preToolH.newIn()
		r.RunPreToolCall(t.Context(), in, 0, nil)
		if want := `{"command":"ls -la"}`; seen != want || in.Call.Arguments != want {
			t.Errorf("next hook saw %q, caller has %q; want %q", seen, in.Call.Arguments, want)
		}
	})
	t.Run("on_prompt_submit message", func(t *testing.T) {
		r := hooks.NewRegistry()
		r.OnPromptSubmit(hooktest.Prompt("expand", func(in *hooks.PromptInput) hooks.PromptResult {
			in.Message.Content += "\n\n(context: main.go)"
			return hooks.PromptResult{}
		}))
		var seen string
		r.OnPromptSubmit(hooktest.Prompt("see", func(in *hooks.PromptInput) hooks.PromptResult {
			seen = in.Message.Content
			return hooks.PromptResult{}
		}))
		in := promptH.newIn()
		r.RunPromptSubmit(t.Context(), in, nil)
		if want := "fix the test\n\n(context: main.go)"; seen != want || in.Message.Content != want {
			t.Errorf("next hook saw %q, caller has %q; want %q", seen, in.Message.Content, want)
		}
	})
	t.Run("pre_llm_request messages", func(t *testing.T) {
		r := hooks.NewRegistry()
		sys := chat.Message{Role: chat.RoleSystem, Content: "be brief"}
		r.PreLLMRequest(hooktest.Request("system", func(in *hooks.LLMRequestInput) hooks.RequestResult {
			in.Messages = append([]chat.Message{sys}, in.Messages...)
			return hooks.RequestResult{}
		}))
		var seen int
		r.PreLLMRequest(hooktest.Request("see", func(in *hooks.LLMRequestInput) hooks.RequestResult {
			seen = len(in.Messages)
			return hooks.RequestResult{}
		}))
		in := requestH.newIn()
		r.RunPreLLMRequest(t.Context(), in, nil)
		if seen != 2 || len(in.Messages) != 2 || !reflect.DeepEqual(in.Messages[0], sys) {
			t.Errorf("next hook saw %d messages, caller has %+v", seen, in.Messages)
		}
	})
	t.Run("pre_compact summary", func(t *testing.T) {
		r := hooks.NewRegistry()
		r.PreCompact(hooktest.Compact("annotate", func(in *hooks.CompactInput) hooks.CompactResult {
			in.Summary += "\nKeep the public API stable."
			return hooks.CompactResult{}
		}))
		var seen string
		r.PreCompact(hooktest.Compact("see", func(in *hooks.CompactInput) hooks.CompactResult {
			seen = in.Summary
			return hooks.CompactResult{}
		}))
		in := compactH.newIn()
		r.RunPreCompact(t.Context(), in, nil)
		if want := "The user asked for a fix.\nKeep the public API stable."; seen != want || in.Summary != want {
			t.Errorf("next hook saw %q, caller has %q; want %q", seen, in.Summary, want)
		}
	})
	t.Run("post_tool_call result", func(t *testing.T) {
		r := hooks.NewRegistry()
		r.PostToolCall(hooktest.Post("mask", func(in *hooks.PostToolInput) hooks.PostToolResult {
			in.Result.Content = strings.ReplaceAll(in.Result.Content, "package", "*******")
			return hooks.PostToolResult{}
		}))
		var seen string
		r.PostToolCall(hooktest.Post("see", func(in *hooks.PostToolInput) hooks.PostToolResult {
			seen = in.Result.Content
			return hooks.PostToolResult{}
		}))
		in := postToolH.newIn()
		r.RunPostToolCall(t.Context(), in, nil)
		if want := "******* a"; seen != want || in.Result.Content != want {
			t.Errorf("next hook saw %q, caller has %q; want %q", seen, in.Result.Content, want)
		}
	})
}

// ---- the decision trace ----

func TestDecisionTrace(t *testing.T) {
	clk := newFakeClock()
	r := hooks.NewRegistry(hooks.WithClock(clk.Now))
	step := func(name string, d time.Duration, res hooks.PreToolResult, err error) hooks.Hook[hooks.PreToolInput, hooks.PreToolResult] {
		return hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: name, OnError: hooks.FailOpen,
			Run: func(context.Context, *hooks.PreToolInput) (hooks.PreToolResult, error) {
				clk.Advance(d)
				return res, err
			}}
	}
	r.PreToolCall(step("rules", 2*time.Millisecond, hooks.PreToolResult{Reason: "allowed by bash(ls *)"}, nil))
	r.PreToolCall(step("remote", 5*time.Millisecond, hooks.PreToolResult{}, errors.New("connection refused")))
	r.PreToolCall(step("approval", 1500*time.Microsecond, hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"}, nil))
	r.PreToolCall(step("never", time.Hour, hooks.PreToolResult{}, nil))
	r.PostToolCall(hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: "mask", Run: func(context.Context, *hooks.PostToolInput) (hooks.PostToolResult, error) {
		clk.Advance(time.Millisecond)
		return hooks.PostToolResult{Action: hooks.PostAbort, Reason: "secret"}, nil
	}})

	var tr hooktest.Trace
	r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, tr.Record)
	r.RunPostToolCall(t.Context(), postToolH.newIn(), tr.Record)

	want := []hooks.Decision{
		{Event: hooks.PreToolCall, Hook: "rules", Result: "continue", Reason: "allowed by bash(ls *)", Duration: 2 * time.Millisecond, CallID: "call_1"},
		{Event: hooks.PreToolCall, Hook: "remote", Result: "continue", Reason: `hook "remote" failed: connection refused`, Duration: 5 * time.Millisecond, CallID: "call_1", Error: "connection refused"},
		{Event: hooks.PreToolCall, Hook: "approval", Result: "pause", Reason: "ask", Duration: 1500 * time.Microsecond, CallID: "call_1"},
		{Event: hooks.PostToolCall, Hook: "mask", Result: "abort", Reason: "secret", Duration: time.Millisecond, CallID: "call_2"},
	}
	if got := tr.Decisions(); !reflect.DeepEqual(got, want) {
		t.Errorf("decisions:\n got %+v\nwant %+v", got, want)
	}
}

func TestNilRecorder(t *testing.T) {
	r := hooks.NewRegistry()
	r.PreToolCall(hooktest.PreTool("a", nil))
	r.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "bad", Run: func(context.Context, *hooks.PreToolInput) (hooks.PreToolResult, error) {
		return hooks.PreToolResult{}, errors.New("x")
	}})
	if res, i := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, nil); res.Action != hooks.ToolSkip || i != 1 {
		t.Errorf("got %+v at %d, want skip at 1", res, i)
	}
}

func TestEmptyChains(t *testing.T) {
	r := &hooks.Registry{} // the zero Registry works too
	if res := r.RunPromptSubmit(t.Context(), promptH.newIn(), nil); res != (hooks.PromptResult{}) {
		t.Errorf("prompt: %+v", res)
	}
	if res, i := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, nil); res != (hooks.PreToolResult{}) || i != 0 {
		t.Errorf("pre tool: %+v at %d", res, i)
	}
	if res, i := r.RunTurnEnd(t.Context(), turnEndH.newIn(), 0, nil); res.Action != hooks.TurnFinish || i != 0 {
		t.Errorf("turn end: %+v at %d", res, i)
	}
	r.RunAbort(t.Context(), abortH.newIn(), nil)
}

func TestOnAbortRunsEveryHook(t *testing.T) {
	r := hooks.NewRegistry()
	var ran []string
	r.OnAbort(hooks.Hook[hooks.AbortInput, struct{}]{Name: "closed", OnError: hooks.FailClosed, Run: func(context.Context, *hooks.AbortInput) (struct{}, error) {
		ran = append(ran, "closed")
		return struct{}{}, errors.New("disk full")
	}})
	r.OnAbort(hooktest.Abort("panics", func(*hooks.AbortInput) {
		ran = append(ran, "panics")
		panic("oops")
	}))
	r.OnAbort(hooktest.Abort("log", func(in *hooks.AbortInput) {
		ran = append(ran, "log:"+in.Reason)
	}))
	var tr hooktest.Trace
	r.RunAbort(t.Context(), abortH.newIn(), tr.Record)
	if want := []string{"closed", "panics", "log:user cancelled"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if want := "on_abort/closed:done!(disk full) on_abort/panics:done!(panic: oops) on_abort/log:done"; tr.String() != want {
		t.Errorf("trace %q\nwant  %q", tr.String(), want)
	}
}

// ---- registration ----

func TestRegistrationPanicsOnProgrammerErrors(t *testing.T) {
	run := func(context.Context, *hooks.PreToolInput) (hooks.PreToolResult, error) {
		return hooks.PreToolResult{}, nil
	}
	for _, tc := range []struct {
		name string
		hook hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]
		want string
	}{
		{"no name", hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Run: run}, "without a name"},
		{"no run", hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "x"}, `"x" registered without a Run func`},
		{"negative timeout", hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "x", Run: run, Timeout: -1}, "negative timeout"},
		{"unknown policy", hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "x", Run: run, OnError: 3}, "unknown error policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := hooks.NewRegistry()
			defer func() {
				v := recover()
				if s, _ := v.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want one containing %q", v, tc.want)
				}
				if r.Len(hooks.PreToolCall) != 0 {
					t.Error("the bad hook was registered")
				}
			}()
			r.PreToolCall(tc.hook)
		})
	}
}

func TestRegistrationFromInsideAHook(t *testing.T) {
	r := hooks.NewRegistry()
	var added counter
	r.PreToolCall(hooktest.PreTool("adder", func(*hooks.PreToolInput) hooks.PreToolResult {
		h := counting[hooks.PreToolInput, hooks.PreToolResult]("added", &added)
		h.Priority = 10
		r.PreToolCall(h) // must not deadlock; takes effect for the next chain
		return hooks.PreToolResult{}
	}))
	if _, n := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, nil); n != 1 || added.get() != 0 {
		t.Errorf("first run saw %d hooks and ran the added one %d times; want its snapshot of 1 hook", n, added.get())
	}
	if _, n := r.RunPreToolCall(t.Context(), preToolH.newIn(), 0, nil); n != 2 || added.get() != 1 {
		t.Errorf("second run saw %d hooks, added ran %d times; want 2 and 1", n, added.get())
	}
}

func TestConcurrentRegistrationWhileRunning(t *testing.T) {
	r := hooks.NewRegistry()
	const writers, perWriter, runners, runs = 4, 40, 4, 100
	hook := func(prio int) hooks.Hook[hooks.PreToolInput, hooks.PreToolResult] {
		return hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
			Name: "p" + strconv.Itoa(prio), Priority: prio,
			Run: func(_ context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
				in.Call.Arguments += strconv.Itoa(prio) + ","
				return hooks.PreToolResult{}, nil
			},
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				r.PreToolCall(hook((w*perWriter+i)*37%41 - 20))
			}
		})
	}
	for range runners {
		wg.Go(func() {
			last := 0
			for range runs {
				in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c"}}
				_, n := r.RunPreToolCall(t.Context(), in, 0, nil)
				var prios []int
				for f := range strings.SplitSeq(strings.TrimSuffix(in.Call.Arguments, ","), ",") {
					if f != "" {
						p, _ := strconv.Atoi(f)
						prios = append(prios, p)
					}
				}
				if len(prios) != n || n < last || !slices.IsSorted(prios) {
					t.Errorf("run saw %d hooks (%v) after a run of %d; want a sorted, growing snapshot", n, prios, last)
					return
				}
				last = n
			}
		})
	}
	wg.Wait()
	if n := r.Len(hooks.PreToolCall); n != writers*perWriter {
		t.Errorf("Len = %d, want %d", n, writers*perWriter)
	}
}

// A respond may only stand for what a tool returns: ok or error, never a
// status that says the call was skipped or denied by someone else.
func TestRespondStatusIsChecked(t *testing.T) {
	t.Parallel()
	r := hooks.NewRegistry()
	r.PreToolCall(hooktest.PreTool("fake", func(*hooks.PreToolInput) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolRespond, Response: chat.ToolResult{Status: chat.StatusDenied, Content: "the user said no"}}
	}))
	var tr hooktest.Trace
	got, _ := r.RunPreToolCall(t.Context(), &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash"}}, 0, tr.Record)
	if got.Action != hooks.ToolSkip || !strings.Contains(got.Reason, `respond with status "denied"`) {
		t.Errorf("result = %+v, want a fail-closed skip naming the status", got)
	}
}

func TestApprovalHoldsOnlyForTheCallApproved(t *testing.T) {
	t.Parallel()
	call := chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}
	var none *hooks.Approval
	if none.Holds(call) {
		t.Fatal("no approval holds")
	}
	a := hooks.NewApproval("gate", call, false, "")
	if !a.Holds(call) {
		t.Fatal("an approval does not hold for its own call")
	}
	changed := call
	changed.Arguments = `{"command":"rm -rf ."}`
	if a.Holds(changed) {
		t.Error("changed arguments are still approved")
	}
	other := call
	other.Name = "write_file"
	if a.Holds(other) {
		t.Error("the same arguments to another tool are still approved")
	}
}
