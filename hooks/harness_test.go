package hooks_test

import (
	"context"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// harness drives one event's registration and chain generically, so that
// the policy, panic, cancellation and validation tests cover every event
// the same way.
type harness[In, Out any] struct {
	ev       hooks.Event
	register func(*hooks.Registry, hooks.Hook[In, Out])
	run      func(context.Context, *hooks.Registry, *In, hooks.Recorder) Out
	newIn    func() *In
	// callID is the CallID the decisions of this event carry.
	callID string
	// closed is the fail-closed result with the given reason; nil for
	// on_abort, which always fails open.
	closed     func(reason string) Out
	closedName string
	passName   string
	// closedByDefault tells whether PolicyDefault fails closed.
	closedByDefault bool
	// stop is a result that ends the chain (on_abort has none: the zero
	// value); invalid is a result the engine must reject (nil if none).
	stop       Out
	invalid    *Out
	invalidErr string
}

var promptH = harness[hooks.PromptInput, hooks.PromptResult]{
	ev:       hooks.OnPromptSubmit,
	register: (*hooks.Registry).OnPromptSubmit,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.PromptInput, rec hooks.Recorder) hooks.PromptResult {
		return r.RunPromptSubmit(ctx, in, rec)
	},
	newIn: func() *hooks.PromptInput { return &hooks.PromptInput{Message: chat.UserMessage("fix the test")} },
	closed: func(reason string) hooks.PromptResult {
		return hooks.PromptResult{Action: hooks.PromptCancel, Reason: reason}
	},
	closedName: "cancel",
	passName:   "continue",
	stop:       hooks.PromptResult{Action: hooks.PromptCancel, Reason: "empty prompt"},
	invalid:    &hooks.PromptResult{Action: 9},
	invalidErr: "invalid result: unknown action 9",
}

var requestH = harness[hooks.LLMRequestInput, hooks.RequestResult]{
	ev:       hooks.PreLLMRequest,
	register: (*hooks.Registry).PreLLMRequest,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.LLMRequestInput, rec hooks.Recorder) hooks.RequestResult {
		return r.RunPreLLMRequest(ctx, in, rec)
	},
	newIn: func() *hooks.LLMRequestInput {
		return &hooks.LLMRequestInput{Model: "m", Messages: []chat.Message{chat.UserMessage("hi")}, Request: 1}
	},
	closed: func(reason string) hooks.RequestResult {
		return hooks.RequestResult{Action: hooks.RequestCancel, Reason: reason}
	},
	closedName: "cancel",
	passName:   "continue",
	stop:       hooks.RequestResult{Action: hooks.RequestCancel, Reason: "too long"},
	invalid:    &hooks.RequestResult{Action: 7},
	invalidErr: "invalid result: unknown action 7",
}

var preToolH = harness[hooks.PreToolInput, hooks.PreToolResult]{
	ev:       hooks.PreToolCall,
	register: (*hooks.Registry).PreToolCall,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.PreToolInput, rec hooks.Recorder) hooks.PreToolResult {
		out, _ := r.RunPreToolCall(ctx, in, 0, rec)
		return out
	},
	newIn: func() *hooks.PreToolInput {
		return &hooks.PreToolInput{Call: chat.ToolCall{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`}}
	},
	callID: "call_1",
	closed: func(reason string) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: reason}
	},
	closedName:      "skip",
	passName:        "continue",
	closedByDefault: true,
	stop:            hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"},
	invalid:         &hooks.PreToolResult{Action: 9},
	invalidErr:      "invalid result: unknown action 9",
}

var postToolH = harness[hooks.PostToolInput, hooks.PostToolResult]{
	ev:       hooks.PostToolCall,
	register: (*hooks.Registry).PostToolCall,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.PostToolInput, rec hooks.Recorder) hooks.PostToolResult {
		return r.RunPostToolCall(ctx, in, rec)
	},
	newIn: func() *hooks.PostToolInput {
		return &hooks.PostToolInput{
			Call:   chat.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path":"a.go"}`},
			Result: chat.ToolResult{CallID: "call_2", Status: chat.StatusOK, Content: "package a"},
		}
	},
	callID: "call_2",
	closed: func(reason string) hooks.PostToolResult {
		return hooks.PostToolResult{Action: hooks.PostAbort, Reason: reason}
	},
	closedName: "abort",
	passName:   "continue",
	stop:       hooks.PostToolResult{Action: hooks.PostAbort, Reason: "secret"},
	invalid:    &hooks.PostToolResult{Action: 2},
	invalidErr: "invalid result: unknown action 2",
}

var turnEndH = harness[hooks.TurnEndInput, hooks.TurnEndResult]{
	ev:       hooks.OnTurnEnd,
	register: (*hooks.Registry).OnTurnEnd,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.TurnEndInput, rec hooks.Recorder) hooks.TurnEndResult {
		out, _ := r.RunTurnEnd(ctx, in, 0, rec)
		return out
	},
	newIn: func() *hooks.TurnEndInput {
		final := chat.Message{Role: chat.RoleAssistant, Content: "done"}
		return &hooks.TurnEndInput{Messages: []chat.Message{chat.UserMessage("go"), final}, Final: final}
	},
	closed: func(reason string) hooks.TurnEndResult {
		return hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: reason}
	},
	closedName: "paused",
	passName:   "finish",
	stop:       hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "look"},
	invalid:    &hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages},
	invalidErr: "invalid result: continue_with_messages without messages",
}

var abortH = harness[hooks.AbortInput, struct{}]{
	ev:       hooks.OnAbort,
	register: (*hooks.Registry).OnAbort,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.AbortInput, rec hooks.Recorder) struct{} {
		r.RunAbort(ctx, in, rec)
		return struct{}{}
	},
	newIn:    func() *hooks.AbortInput { return &hooks.AbortInput{Reason: "user cancelled", Err: context.Canceled} },
	passName: "done",
}

var compactH = harness[hooks.CompactInput, hooks.CompactResult]{
	ev:       hooks.PreCompact,
	register: (*hooks.Registry).PreCompact,
	run: func(ctx context.Context, r *hooks.Registry, in *hooks.CompactInput, rec hooks.Recorder) hooks.CompactResult {
		return r.RunPreCompact(ctx, in, rec)
	},
	newIn: func() *hooks.CompactInput {
		return &hooks.CompactInput{Trigger: hooks.CompactAuto, Summary: "The user asked for a fix.", Replaced: 12, Tokens: 9000, After: 2000, Window: 10000}
	},
	closed: func(reason string) hooks.CompactResult {
		return hooks.CompactResult{Action: hooks.CompactCancel, Reason: reason}
	},
	closedName: "cancel",
	passName:   "continue",
	stop:       hooks.CompactResult{Action: hooks.CompactCancel, Reason: "keep it all"},
	invalid:    &hooks.CompactResult{Action: 5},
	invalidErr: "invalid result: unknown action 5",
}

// counter counts hook calls.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// counting returns a hook named name that goes on and counts its calls.
func counting[In, Out any](name string, c *counter) hooks.Hook[In, Out] {
	return hooks.Hook[In, Out]{Name: name, Run: func(context.Context, *In) (Out, error) {
		c.inc()
		var zero Out
		return zero, nil
	}}
}

// fakeClock is a clock that only moves when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
