// Package hooktest makes in-process hooks and decision traces for tests.
//
// Each constructor wraps a plain func of the event's input into a
// hooks.Hook with the defaults (priority 0, the registry's timeout, the
// event's error policy); a nil func always goes on. Set the Hook's fields
// for anything else:
//
//	h := hooktest.PreTool("deny-rm", func(in *hooks.PreToolInput) hooks.PreToolResult {
//		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "no"}
//	})
//	h.Priority = -1
//	reg.PreToolCall(h)
//
//	var tr hooktest.Trace
//	reg.RunPreToolCall(ctx, in, 0, tr.Record)
//	// tr.String() == `pre_tool_call/deny-rm:skip(no)`
package hooktest

import (
	"context"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/hooks"
)

// Prompt returns an on_prompt_submit hook that calls f.
func Prompt(name string, f func(*hooks.PromptInput) hooks.PromptResult) hooks.Hook[hooks.PromptInput, hooks.PromptResult] {
	return hook(name, f)
}

// Request returns a pre_llm_request hook that calls f.
func Request(name string, f func(*hooks.LLMRequestInput) hooks.RequestResult) hooks.Hook[hooks.LLMRequestInput, hooks.RequestResult] {
	return hook(name, f)
}

// PreTool returns a pre_tool_call hook that calls f.
func PreTool(name string, f func(*hooks.PreToolInput) hooks.PreToolResult) hooks.Hook[hooks.PreToolInput, hooks.PreToolResult] {
	return hook(name, f)
}

// Post returns a post_tool_call hook that calls f.
func Post(name string, f func(*hooks.PostToolInput) hooks.PostToolResult) hooks.Hook[hooks.PostToolInput, hooks.PostToolResult] {
	return hook(name, f)
}

// TurnEnd returns an on_turn_end hook that calls f.
func TurnEnd(name string, f func(*hooks.TurnEndInput) hooks.TurnEndResult) hooks.Hook[hooks.TurnEndInput, hooks.TurnEndResult] {
	return hook(name, f)
}

// Compact returns a pre_compact hook that calls f.
func Compact(name string, f func(*hooks.CompactInput) hooks.CompactResult) hooks.Hook[hooks.CompactInput, hooks.CompactResult] {
	return hook(name, f)
}

// Abort returns an on_abort hook that calls f.
func Abort(name string, f func(*hooks.AbortInput)) hooks.Hook[hooks.AbortInput, struct{}] {
	if f == nil {
		return hook[hooks.AbortInput, struct{}](name, nil)
	}
	return hook(name, func(in *hooks.AbortInput) struct{} { f(in); return struct{}{} })
}

func hook[In, Out any](name string, f func(*In) Out) hooks.Hook[In, Out] {
	return hooks.Hook[In, Out]{
		Name: name,
		Run: func(_ context.Context, in *In) (Out, error) {
			if f == nil {
				var zero Out
				return zero, nil
			}
			return f(in), nil
		},
	}
}

// Trace collects decisions. Its Record method is a hooks.Recorder that is
// safe for concurrent use. The zero Trace is ready to use.
type Trace struct {
	mu sync.Mutex
	ds []hooks.Decision
}

// Record appends d.
func (t *Trace) Record(d hooks.Decision) {
	t.mu.Lock()
	t.ds = append(t.ds, d)
	t.mu.Unlock()
}

// Decisions returns a copy of the decisions recorded so far.
func (t *Trace) Decisions() []hooks.Decision {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]hooks.Decision(nil), t.ds...)
}

// String lists the decisions, space-separated, as event/hook:result, then
// "(reason)" if there is a reason, or "!(error)" if the hook failed, e.g.
// "pre_tool_call/a:continue pre_tool_call/b:pause(ask the user)".
// Durations and call IDs are left out.
func (t *Trace) String() string {
	var b strings.Builder
	for i, d := range t.Decisions() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.Event.String())
		b.WriteByte('/')
		b.WriteString(d.Hook)
		b.WriteByte(':')
		b.WriteString(d.Result)
		switch {
		case d.Error != "":
			b.WriteString("!(" + d.Error + ")")
		case d.Reason != "":
			b.WriteString("(" + d.Reason + ")")
		}
	}
	return b.String()
}
