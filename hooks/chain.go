package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Sentinel errors wrapped by the failures reported in Decision.Error.
var (
	errTimedOut      = errors.New("timed out")
	errPanicked      = errors.New("panic")
	errInvalidResult = errors.New("invalid result")
)

// RunPromptSubmit runs the on_prompt_submit chain. Hooks may rewrite
// in.Message.
func (r *Registry) RunPromptSubmit(ctx context.Context, in *PromptInput, rec Recorder) PromptResult {
	out, _, _ := runChain(ctx, r, r.prompt.load(), &promptSpec, in, 0, rec)
	return out
}

// RunPreLLMRequest runs the pre_llm_request chain. Hooks may rewrite
// in.Messages.
func (r *Registry) RunPreLLMRequest(ctx context.Context, in *LLMRequestInput, rec Recorder) RequestResult {
	out, _, _ := runChain(ctx, r, r.request.load(), &requestSpec, in, 0, rec)
	return out
}

// RunPreToolCall runs the pre_tool_call chain for one call, starting at the
// hook with index from (0 for a new call). It returns the decision and the
// index of the hook that made it; when every hook says Continue it returns
// the zero result and the number of hooks. After the user approves a Pause
// made by hook i, call again with from = i+1 to go on with the hooks after
// it — on the same registry: indices are only stable while no hook is
// registered, so a caller that waits for the user between the two calls
// runs both on one Snapshot. Hooks may change in.Call.Arguments.
func (r *Registry) RunPreToolCall(ctx context.Context, in *PreToolInput, from int, rec Recorder) (PreToolResult, int) {
	out, at, _ := runChain(ctx, r, r.preTool.load(), &preToolSpec, in, from, rec)
	return out, at
}

// RunPostToolCall runs the post_tool_call chain for one result. Hooks may
// rewrite in.Result. When the chain ends early — a hook aborts or fails
// closed, or ctx is cancelled — the Protect hooks it did not reach still
// run on the result (see Hook.Protect), so what leaves this call has been
// through every one of them.
func (r *Registry) RunPostToolCall(ctx context.Context, in *PostToolInput, rec Recorder) PostToolResult {
	hs := r.postTool.load()
	out, at, done := runChain(ctx, r, hs, &postToolSpec, in, 0, rec)
	if at < len(hs) {
		if done {
			at++
		}
		runProtect(ctx, r, hs[at:], in, rec)
	}
	return out
}

// RunPostToolProtect runs only the Protect post_tool_call hooks on a
// result whose chain will not run because the run was stopped (cancelled,
// or aborted by a hook on an earlier result). They run even if ctx is
// cancelled, each bounded by its own timeout; a result without content is
// left alone. Decisions are recorded with Decision.Protect set.
func (r *Registry) RunPostToolProtect(ctx context.Context, in *PostToolInput, rec Recorder) {
	runProtect(ctx, r, r.postTool.load(), in, rec)
}

// RunTurnEnd runs the on_turn_end chain from the hook with index from, with
// the same from and index semantics as RunPreToolCall: a TurnPaused made by
// hook i is resumed with from = i+1. When every hook says Finish it returns
// the zero result (TurnFinish) and the number of hooks.
func (r *Registry) RunTurnEnd(ctx context.Context, in *TurnEndInput, from int, rec Recorder) (TurnEndResult, int) {
	out, at, _ := runChain(ctx, r, r.turnEnd.load(), &turnEndSpec, in, from, rec)
	return out, at
}

// RunPreCompact runs the pre_compact chain. Hooks may rewrite
// in.Summary.
func (r *Registry) RunPreCompact(ctx context.Context, in *CompactInput, rec Recorder) CompactResult {
	out, _, _ := runChain(ctx, r, r.compact.load(), &compactSpec, in, 0, rec)
	return out
}

// RunAbort runs every on_abort hook. Failures are recorded as warnings
// (Result "done", Error set) and do not stop the others. The hooks run even
// if ctx is cancelled — each still gets its own timeout — but they see ctx's
// values.
func (r *Registry) RunAbort(ctx context.Context, in *AbortInput, rec Recorder) {
	runChain(context.WithoutCancel(ctx), r, r.abort.load(), &abortSpec, in, 0, rec)
}

// spec describes one event to the generic chain runner.
type spec[In, Out any] struct {
	event Event
	// failClosed is what PolicyDefault means for this event.
	failClosed bool
	// inspect validates a result and returns its action (0 is "go on"),
	// its name for the trace and its reason.
	inspect func(Out) (action uint8, name, reason string, err error)
	// passName names the zero ("go on") result.
	passName string
	// closed builds the restrictive result named closedName; nil means
	// the event always fails open.
	closed     func(reason string) Out
	closedName string
	// callID extracts the tool call ID for the trace; nil if none.
	callID func(*In) string
	// withhold replaces what a failed Protect hook was guarding; nil for
	// events without Protect hooks.
	withhold func(in *In, reason string)
}

var (
	promptActions  = [...]string{PromptContinue: "continue", PromptCancel: "cancel"}
	requestActions = [...]string{RequestContinue: "continue", RequestCancel: "cancel"}
	preToolActions = [...]string{ToolContinue: "continue", ToolSkip: "skip", ToolAbort: "abort", ToolPause: "pause", ToolRespond: "respond"}
	postActions    = [...]string{PostContinue: "continue", PostAbort: "abort"}
	turnEndActions = [...]string{TurnFinish: "finish", TurnContinueWithMessages: "continue_with_messages", TurnPaused: "paused"}
	compactActions = [...]string{CompactContinue: "continue", CompactCancel: "cancel"}
)

// action validates a and returns it with its name.
func action[A ~uint8](names []string, a A) (uint8, string, error) {
	if int(a) >= len(names) {
		return 0, "", fmt.Errorf("%w: unknown action %d", errInvalidResult, a)
	}
	return uint8(a), names[a], nil
}

var promptSpec = spec[PromptInput, PromptResult]{
	event: OnPromptSubmit,
	inspect: func(o PromptResult) (uint8, string, string, error) {
		a, name, err := action(promptActions[:], o.Action)
		return a, name, o.Reason, err
	},
	passName:   promptActions[PromptContinue],
	closed:     func(reason string) PromptResult { return PromptResult{Action: PromptCancel, Reason: reason} },
	closedName: promptActions[PromptCancel],
}

var requestSpec = spec[LLMRequestInput, RequestResult]{
	event: PreLLMRequest,
	inspect: func(o RequestResult) (uint8, string, string, error) {
		a, name, err := action(requestActions[:], o.Action)
		return a, name, o.Reason, err
	},
	passName:   requestActions[RequestContinue],
	closed:     func(reason string) RequestResult { return RequestResult{Action: RequestCancel, Reason: reason} },
	closedName: requestActions[RequestCancel],
}

var preToolSpec = spec[PreToolInput, PreToolResult]{
	event:      PreToolCall,
	failClosed: true,
	inspect: func(o PreToolResult) (uint8, string, string, error) {
		a, name, err := action(preToolActions[:], o.Action)
		if st := o.Response.Status; err == nil && o.Action == ToolRespond && st != "" && st != chat.StatusOK && st != chat.StatusError {
			err = fmt.Errorf("%w: respond with status %q (want ok or error)", errInvalidResult, st)
		}
		return a, name, o.Reason, err
	},
	passName:   preToolActions[ToolContinue],
	closed:     func(reason string) PreToolResult { return PreToolResult{Action: ToolSkip, Reason: reason} },
	closedName: preToolActions[ToolSkip],
	callID:     func(in *PreToolInput) string { return in.Call.ID },
}

var postToolSpec = spec[PostToolInput, PostToolResult]{
	event: PostToolCall,
	inspect: func(o PostToolResult) (uint8, string, string, error) {
		a, name, err := action(postActions[:], o.Action)
		return a, name, o.Reason, err
	},
	passName:   postActions[PostContinue],
	closed:     func(reason string) PostToolResult { return PostToolResult{Action: PostAbort, Reason: reason} },
	closedName: postActions[PostAbort],
	callID:     func(in *PostToolInput) string { return in.Call.ID },
	withhold:   withholdResult,
}

// withholdResult replaces a result that a Protect hook failed to check.
func withholdResult(in *PostToolInput, reason string) {
	in.Result.Status = chat.StatusError
	in.Result.Content = fmt.Sprintf("[This result was withheld: %s.]", reason)
	in.Result.Attached = nil // its images too
}

var turnEndSpec = spec[TurnEndInput, TurnEndResult]{
	event: OnTurnEnd,
	inspect: func(o TurnEndResult) (uint8, string, string, error) {
		a, name, err := action(turnEndActions[:], o.Action)
		if err == nil && o.Action == TurnContinueWithMessages && len(o.Messages) == 0 {
			err = fmt.Errorf("%w: continue_with_messages without messages", errInvalidResult)
		}
		return a, name, o.Reason, err
	},
	passName:   turnEndActions[TurnFinish],
	closed:     func(reason string) TurnEndResult { return TurnEndResult{Action: TurnPaused, Reason: reason} },
	closedName: turnEndActions[TurnPaused],
}

var compactSpec = spec[CompactInput, CompactResult]{
	event: PreCompact,
	inspect: func(o CompactResult) (uint8, string, string, error) {
		a, name, err := action(compactActions[:], o.Action)
		return a, name, o.Reason, err
	},
	passName:   compactActions[CompactContinue],
	closed:     func(reason string) CompactResult { return CompactResult{Action: CompactCancel, Reason: reason} },
	closedName: compactActions[CompactCancel],
}

var abortSpec = spec[AbortInput, struct{}]{
	event:    OnAbort,
	inspect:  func(struct{}) (uint8, string, string, error) { return 0, "done", "", nil },
	passName: "done",
}

// runChain runs the hooks hs of one event from index from; see "How a
// chain runs". It returns the chain's result, the index at of the hook
// that ended it (len(hs) when none did) and whether that hook ran to
// completion: done is false when the caller's cancellation stopped the
// chain before or while hook at ran.
func runChain[In, Out any](ctx context.Context, r *Registry, hs []Hook[In, Out], s *spec[In, Out], in *In, from int, rec Recorder) (out Out, at int, done bool) {
	var zero Out
	from = max(from, 0)
	if from >= len(hs) {
		return zero, len(hs), true
	}
	var callID string
	if s.callID != nil {
		callID = s.callID(in)
	}

	for i := from; i < len(hs); i++ {
		h := &hs[i]
		if err := ctx.Err(); err != nil {
			return s.cancelled(fmt.Sprintf("cancelled before hook %q ran: %v", h.Name, context.Cause(ctx))), i, false
		}
		out, dur, fail := callHook(ctx, r, h.Timeout, h.Run, in)
		d := Decision{Event: s.event, Hook: h.Name, Duration: dur, CallID: callID}

		if ctx.Err() != nil {
			// The caller cancelled while the hook ran: its result is
			// discarded, but it is not the hook's failure.
			d.Reason = fmt.Sprintf("cancelled while hook %q ran: %v", h.Name, context.Cause(ctx))
			d.Result = s.closedName
			rec.record(d)
			return s.cancelled(d.Reason), i, false
		}

		var act uint8
		if fail == nil {
			act, d.Result, d.Reason, fail = s.inspect(out)
		}
		if fail == nil {
			rec.record(d)
			if act != 0 {
				return out, i, true
			}
			continue
		}

		d.Error = fail.Error()
		d.Reason = fmt.Sprintf("hook %q failed: %s", h.Name, d.Error)
		if h.Protect && s.withhold != nil {
			s.withhold(in, d.Reason)
		}
		if s.closed != nil && (h.OnError == FailClosed || (h.OnError == PolicyDefault && s.failClosed)) {
			d.Result = s.closedName
			rec.record(d)
			return s.closed(d.Reason), i, true
		}
		d.Result = s.passName
		rec.record(d)
	}
	return zero, len(hs), true
}

// runProtect runs the Protect hooks among hs on a result, ignoring the
// caller's cancellation (each hook keeps its own timeout). A hook that
// fails withholds the result; actions are ignored, since the chain has
// already ended.
func runProtect(ctx context.Context, r *Registry, hs []Hook[PostToolInput, PostToolResult], in *PostToolInput, rec Recorder) {
	ctx = context.WithoutCancel(ctx)
	for i := range hs {
		h := &hs[i]
		if !h.Protect || in.Result.Content == "" {
			continue
		}
		_, dur, fail := callHook(ctx, r, h.Timeout, h.Run, in)
		d := Decision{Event: PostToolCall, Hook: h.Name, Result: postActions[PostContinue], Duration: dur, CallID: in.Call.ID, Protect: true}
		if fail != nil {
			d.Error = fail.Error()
			d.Reason = fmt.Sprintf("hook %q failed: %s", h.Name, d.Error)
			d.Result = "withheld"
			withholdResult(in, d.Reason)
		}
		rec.record(d)
	}
}

// callHook runs one hook with its own timeout (own, else the registry's)
// under ctx, and returns its result, how long it took by the trace clock
// and its failure (nil when it succeeded). The hook's context ends when it
// returns. A hook that returns at or after its deadline has timed out,
// whatever it returned; a panic is a failure too.
func callHook[In, Out any](ctx context.Context, r *Registry, own time.Duration, run func(context.Context, *In) (Out, error), in *In) (out Out, dur time.Duration, fail error) {
	timeout := r.timeoutOf(own)
	t0 := time.Now()
	start := r.stamp(t0)
	deadline := t0.Add(timeout)
	hctx, cancel := context.WithDeadline(ctx, deadline)
	out, err, panicked := call(run, hctx, in)
	cancel()
	t1 := time.Now()
	dur = r.stamp(t1).Sub(start)
	switch {
	case panicked:
		return out, dur, err
	case !t1.Before(deadline):
		return out, dur, fmt.Errorf("%w after %v", errTimedOut, timeout)
	}
	return out, dur, err
}

// timeoutOf is the timeout of a hook whose own Timeout is t.
func (r *Registry) timeoutOf(t time.Duration) time.Duration {
	switch {
	case t > 0:
		return t
	case r.timeout > 0:
		return r.timeout
	}
	return DefaultTimeout
}

// stamp reads the trace clock; t is the time package's reading, used when
// no clock was set.
func (r *Registry) stamp(t time.Time) time.Time {
	if r.now != nil {
		return r.now()
	}
	return t
}

// cancelled is the result of a chain stopped by the caller's cancellation.
func (s *spec[In, Out]) cancelled(reason string) Out {
	if s.closed == nil {
		var zero Out
		return zero
	}
	return s.closed(reason)
}

func (rec Recorder) record(d Decision) {
	if rec != nil {
		rec(d)
	}
}

// call runs one hook, turning a panic into an error.
func call[In, Out any](run func(context.Context, *In) (Out, error), ctx context.Context, in *In) (out Out, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			var zero Out
			out, err, panicked = zero, fmt.Errorf("%w: %v", errPanicked, v), true
		}
	}()
	out, err = run(ctx, in)
	return out, err, false
}
