package hooks

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds one hook call when neither the hook nor the registry
// says otherwise.
const DefaultTimeout = 30 * time.Second

// Registry holds the hooks of every event and runs their chains.
//
// Hooks of one event run in order of priority (ascending), then
// registration. Registration may happen while chains run: each chain runs
// on the snapshot of its event's hooks taken when it starts, and no lock is
// held while a hook runs. The zero Registry is ready to use with the
// defaults.
//
// # How a chain runs
//
// Hooks are called one after another on the caller's goroutine with the
// caller's input, so a hook sees the changes of the hooks before it and the
// caller sees them all. The first result that is not the event's "go on"
// result (the zero value: Continue, or Finish for on_turn_end) ends the
// chain and is returned. Every call is reported to the Recorder, if any, as
// one Decision.
//
// Each call gets a context with a deadline: the hook's Timeout, else the
// registry's default. A hook fails when it returns an error, panics,
// returns an invalid result (an unknown action, or ContinueWithMessages
// without messages) or returns at or after its deadline. A failed hook's
// result is discarded and its error policy decides what the failure means.
// Fail-open counts as the "go on" result: Decision.Result is then
// "continue" ("finish" for on_turn_end, "done" for on_abort), Decision.Error
// holds the failure and Decision.Reason a warning naming the hook.
// Fail-closed ends the chain with the event's restrictive result:
//
//	on_prompt_submit  Cancel
//	pre_llm_request   Cancel
//	pre_tool_call     Skip     (PolicyDefault fails closed only here)
//	post_tool_call    Abort
//	on_turn_end       Paused
//	on_abort          never: on_abort hooks always fail open
//	pre_compact       Cancel
//
// whose Reason names the hook and the failure, e.g.
// `hook "policy" failed: timed out after 5s`.
//
// Cancellation of the caller's ctx is not a hook failure. The chain stops
// before the next hook, or discards the result of the hook that was running
// (recording it with the restrictive result and no Error), and returns the
// event's restrictive result with a Reason starting "cancelled": nothing a
// hook has not allowed goes ahead. Callers should check ctx.Err() first and
// end the run as cancelled. RunAbort is the exception: on_abort hooks run
// even when ctx is cancelled, since cancellation is one reason they run.
//
// Protect post_tool_call hooks (Hook.Protect, e.g. secret redaction) are
// the other exception: when a post_tool_call chain ends early, for
// whatever reason, the Protect hooks after that point still run on the
// result, and RunPostToolProtect runs them on results whose chain never
// ran. A failed Protect hook withholds the result instead of passing it on.
type Registry struct {
	// now measures hook durations for the decision trace; nil means
	// time.Now. Deadlines always use the time package's clock.
	now     func() time.Time
	timeout time.Duration // zero means DefaultTimeout

	mu       sync.Mutex // serialises registration; never held by a chain
	prompt   chain[PromptInput, PromptResult]
	request  chain[LLMRequestInput, RequestResult]
	preTool  chain[PreToolInput, PreToolResult]
	postTool chain[PostToolInput, PostToolResult]
	turnEnd  chain[TurnEndInput, TurnEndResult]
	abort    chain[AbortInput, struct{}]
	compact  chain[CompactInput, CompactResult]
}

// Option configures a Registry.
type Option func(*Registry)

// WithClock sets the clock that measures Decision.Duration. Tests use it
// to assert durations exactly. Hook deadlines are not affected: they use
// the time package (which testing/synctest fakes). A nil clock means
// time.Now.
func WithClock(now func() time.Time) Option {
	return func(r *Registry) { r.now = now }
}

// WithDefaultTimeout sets the timeout of hooks whose Timeout is zero.
// A d <= 0 keeps DefaultTimeout.
func WithDefaultTimeout(d time.Duration) Option {
	return func(r *Registry) {
		if d > 0 {
			r.timeout = d
		}
	}
}

// NewRegistry returns an empty registry.
func NewRegistry(opts ...Option) *Registry {
	r := &Registry{}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Snapshot returns a registry that runs the hooks registered in r now,
// with r's clock and default timeout. Hooks registered in r afterwards do
// not reach it (and hooks registered in the snapshot do not reach r), so
// chain indices — the from of RunPreToolCall and RunTurnEnd — stay valid
// across calls on it. The Worker runs each Run and its Resumes on one
// snapshot. It costs a few pointer copies.
func (r *Registry) Snapshot() *Registry {
	s := &Registry{now: r.now, timeout: r.timeout}
	s.prompt.hooks.Store(r.prompt.hooks.Load())
	s.request.hooks.Store(r.request.hooks.Load())
	s.preTool.hooks.Store(r.preTool.hooks.Load())
	s.postTool.hooks.Store(r.postTool.hooks.Load())
	s.turnEnd.hooks.Store(r.turnEnd.hooks.Load())
	s.abort.hooks.Store(r.abort.hooks.Load())
	s.compact.hooks.Store(r.compact.hooks.Load())
	return s
}

// OnPromptSubmit registers an on_prompt_submit hook.
func (r *Registry) OnPromptSubmit(h Hook[PromptInput, PromptResult]) {
	register(r, &r.prompt, OnPromptSubmit, h)
}

// PreLLMRequest registers a pre_llm_request hook.
func (r *Registry) PreLLMRequest(h Hook[LLMRequestInput, RequestResult]) {
	register(r, &r.request, PreLLMRequest, h)
}

// PreToolCall registers a pre_tool_call hook.
func (r *Registry) PreToolCall(h Hook[PreToolInput, PreToolResult]) {
	register(r, &r.preTool, PreToolCall, h)
}

// PostToolCall registers a post_tool_call hook.
func (r *Registry) PostToolCall(h Hook[PostToolInput, PostToolResult]) {
	register(r, &r.postTool, PostToolCall, h)
}

// OnTurnEnd registers an on_turn_end hook.
func (r *Registry) OnTurnEnd(h Hook[TurnEndInput, TurnEndResult]) {
	register(r, &r.turnEnd, OnTurnEnd, h)
}

// OnAbort registers an on_abort hook. Its error policy is ignored: on_abort
// hooks always fail open.
func (r *Registry) OnAbort(h Hook[AbortInput, struct{}]) {
	register(r, &r.abort, OnAbort, h)
}

// PreCompact registers a pre_compact hook.
func (r *Registry) PreCompact(h Hook[CompactInput, CompactResult]) {
	register(r, &r.compact, PreCompact, h)
}

// Len reports how many hooks are registered for ev (0 for an unknown event).
func (r *Registry) Len(ev Event) int {
	switch ev {
	case OnPromptSubmit:
		return len(r.prompt.load())
	case PreLLMRequest:
		return len(r.request.load())
	case PreToolCall:
		return len(r.preTool.load())
	case PostToolCall:
		return len(r.postTool.load())
	case OnTurnEnd:
		return len(r.turnEnd.load())
	case OnAbort:
		return len(r.abort.load())
	case PreCompact:
		return len(r.compact.load())
	}
	return 0
}

// Names returns the names of ev's hooks in chain order: Names(ev)[i] is the
// hook at index i of the chain, as returned by RunPreToolCall and
// RunTurnEnd (as long as no hook was registered in between; see Snapshot).
func (r *Registry) Names(ev Event) []string {
	switch ev {
	case OnPromptSubmit:
		return names(r.prompt.load())
	case PreLLMRequest:
		return names(r.request.load())
	case PreToolCall:
		return names(r.preTool.load())
	case PostToolCall:
		return names(r.postTool.load())
	case OnTurnEnd:
		return names(r.turnEnd.load())
	case OnAbort:
		return names(r.abort.load())
	case PreCompact:
		return names(r.compact.load())
	}
	return nil
}

func names[In, Out any](hs []Hook[In, Out]) []string {
	if len(hs) == 0 {
		return nil
	}
	out := make([]string, len(hs))
	for i := range hs {
		out[i] = hs[i].Name
	}
	return out
}

// chain is the ordered hooks of one event, replaced as a whole on every
// registration (copy on write) so that running chains need no lock.
type chain[In, Out any] struct {
	hooks atomic.Pointer[[]Hook[In, Out]]
}

func (c *chain[In, Out]) load() []Hook[In, Out] {
	if p := c.hooks.Load(); p != nil {
		return *p
	}
	return nil
}

// register validates h and inserts it after every hook of the same or a
// lower priority, which keeps equal priorities in registration order.
// A malformed hook is a programmer error and panics.
func register[In, Out any](r *Registry, c *chain[In, Out], ev Event, h Hook[In, Out]) {
	switch {
	case h.Name == "":
		panic(fmt.Sprintf("hooks: %s hook registered without a name", ev))
	case h.Run == nil:
		panic(fmt.Sprintf("hooks: %s hook %q registered without a Run func", ev, h.Name))
	case h.Timeout < 0:
		panic(fmt.Sprintf("hooks: %s hook %q has a negative timeout %v", ev, h.Name, h.Timeout))
	case h.OnError > FailClosed:
		panic(fmt.Sprintf("hooks: %s hook %q has an unknown error policy %d", ev, h.Name, h.OnError))
	case h.Protect && ev != PostToolCall:
		panic(fmt.Sprintf("hooks: %s hook %q sets Protect, which only post_tool_call hooks may", ev, h.Name))
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	old := c.load()
	i := len(old)
	for i > 0 && old[i-1].Priority > h.Priority {
		i--
	}
	hs := make([]Hook[In, Out], 0, len(old)+1)
	hs = append(hs, old[:i]...)
	hs = append(hs, h)
	hs = append(hs, old[i:]...)
	c.hooks.Store(&hs)
}
