package hooks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
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
	out, _ := runChain(ctx, r, &r.prompt, &promptSpec, in, 0, rec)
	return out
}

// RunPreLLMRequest runs the pre_llm_request chain. Hooks may rewrite
// in.Messages.
func (r *Registry) RunPreLLMRequest(ctx context.Context, in *LLMRequestInput, rec Recorder) RequestResult {
	out, _ := runChain(ctx, r, &r.request, &requestSpec, in, 0, rec)
	return out
}

// RunPreToolCall runs the pre_tool_call chain for one call, starting at the
// hook with index from (0 for a new call). It returns the decision and the
// index of the hook that made it; when every hook says Continue it returns
// the zero result and the number of hooks. After the user approves a Pause
// made by hook i, call again with from = i+1 to go on with the hooks after
// it. Registering hooks between the two calls may shift indices; that can
// make the pausing hook run again but never skips a hook. Hooks may change
// in.Call.Arguments.
func (r *Registry) RunPreToolCall(ctx context.Context, in *PreToolInput, from int, rec Recorder) (PreToolResult, int) {
	return runChain(ctx, r, &r.preTool, &preToolSpec, in, from, rec)
}

// RunPostToolCall runs the post_tool_call chain for one result. Hooks may
// rewrite in.Result.
func (r *Registry) RunPostToolCall(ctx context.Context, in *PostToolInput, rec Recorder) PostToolResult {
	out, _ := runChain(ctx, r, &r.postTool, &postToolSpec, in, 0, rec)
	return out
}

// RunTurnEnd runs the on_turn_end chain from the hook with index from, with
// the same from and index semantics as RunPreToolCall: a TurnPaused made by
// hook i is resumed with from = i+1. When every hook says Finish it returns
// the zero result (TurnFinish) and the number of hooks.
func (r *Registry) RunTurnEnd(ctx context.Context, in *TurnEndInput, from int, rec Recorder) (TurnEndResult, int) {
	return runChain(ctx, r, &r.turnEnd, &turnEndSpec, in, from, rec)
}

// RunAbort runs every on_abort hook. Failures are recorded as warnings
// (Result "done", Error set) and do not stop the others. The hooks run even
// if ctx is cancelled — each still gets its own timeout — but they see ctx's
// values.
func (r *Registry) RunAbort(ctx context.Context, in *AbortInput, rec Recorder) {
	runChain(context.WithoutCancel(ctx), r, &r.abort, &abortSpec, in, 0, rec)
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
}

var (
	promptActions  = [...]string{PromptContinue: "continue", PromptCancel: "cancel"}
	requestActions = [...]string{RequestContinue: "continue", RequestCancel: "cancel"}
	preToolActions = [...]string{ToolContinue: "continue", ToolSkip: "skip", ToolAbort: "abort", ToolPause: "pause"}
	postActions    = [...]string{PostContinue: "continue", PostAbort: "abort"}
	turnEndActions = [...]string{TurnFinish: "finish", TurnContinueWithMessages: "continue_with_messages", TurnPaused: "paused"}
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

var abortSpec = spec[AbortInput, struct{}]{
	event:    OnAbort,
	inspect:  func(struct{}) (uint8, string, string, error) { return 0, "done", "", nil },
	passName: "done",
}

// runChain runs the hooks of c from index from; see "How a chain runs".
func runChain[In, Out any](ctx context.Context, r *Registry, c *chain[In, Out], s *spec[In, Out], in *In, from int, rec Recorder) (Out, int) {
	var zero Out
	hs := c.load()
	from = max(from, 0)
	if from >= len(hs) {
		return zero, len(hs)
	}
	var callID string
	if s.callID != nil {
		callID = s.callID(in)
	}
	defTimeout := r.timeout
	if defTimeout <= 0 {
		defTimeout = DefaultTimeout
	}
	// One allocation for the contexts of the whole chain.
	ctxs := make([]hookCtx, len(hs)-from)

	for i := from; i < len(hs); i++ {
		h := &hs[i]
		if err := ctx.Err(); err != nil {
			return s.cancelled(fmt.Sprintf("cancelled before hook %q ran: %v", h.Name, context.Cause(ctx))), i
		}
		timeout := h.Timeout
		if timeout == 0 {
			timeout = defTimeout
		}

		t0 := time.Now()
		start := t0
		if r.now != nil {
			start = r.now()
		}
		hc := &ctxs[i-from]
		hc.Context, hc.deadline = ctx, t0.Add(timeout)
		out, err, panicked := call(h.Run, hc, in)
		hc.end()
		t1 := time.Now()
		end := t1
		if r.now != nil {
			end = r.now()
		}
		d := Decision{Event: s.event, Hook: h.Name, Duration: end.Sub(start), CallID: callID}

		if ctx.Err() != nil {
			// The caller cancelled while the hook ran: its result is
			// discarded, but it is not the hook's failure.
			d.Reason = fmt.Sprintf("cancelled while hook %q ran: %v", h.Name, context.Cause(ctx))
			d.Result = s.closedName
			rec.record(d)
			return s.cancelled(d.Reason), i
		}

		var fail error
		switch {
		case panicked:
			fail = err
		case !t1.Before(hc.deadline):
			fail = fmt.Errorf("%w after %v", errTimedOut, timeout)
		case err != nil:
			fail = err
		}
		var act uint8
		if fail == nil {
			act, d.Result, d.Reason, fail = s.inspect(out)
		}
		if fail == nil {
			rec.record(d)
			if act != 0 {
				return out, i
			}
			continue
		}

		d.Error = fail.Error()
		d.Reason = fmt.Sprintf("hook %q failed: %s", h.Name, d.Error)
		if s.closed != nil && (h.OnError == FailClosed || (h.OnError == PolicyDefault && s.failClosed)) {
			d.Result = s.closedName
			rec.record(d)
			return s.closed(d.Reason), i
		}
		d.Result = s.passName
		rec.record(d)
	}
	return zero, len(hs)
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

// hookCtx is the context of one hook call: the caller's ctx with the hook's
// deadline. Its timer is armed lazily, the first time the hook asks for
// Done, so a hook that never waits costs no timer and no allocation; Err
// reports context.DeadlineExceeded once the deadline has passed, armed or
// not. After the call returns the context counts as cancelled.
type hookCtx struct {
	context.Context // the caller's; supplies Value
	deadline        time.Time

	mu     sync.Mutex
	armed  context.Context // context.WithDeadline(Context, deadline), once Done was asked for
	cancel context.CancelFunc
	ended  bool
}

func (c *hookCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

func (c *hookCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed == nil {
		c.armed, c.cancel = context.WithDeadline(c.Context, c.deadline)
		if c.ended {
			c.cancel()
		}
	}
	return c.armed.Done()
}

func (c *hookCtx) Err() error {
	c.mu.Lock()
	armed, ended := c.armed, c.ended
	c.mu.Unlock()
	switch {
	case armed != nil:
		return armed.Err()
	case ended:
		return context.Canceled
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// end marks the call as returned and releases the timer, if armed.
func (c *hookCtx) end() {
	c.mu.Lock()
	c.ended = true
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
