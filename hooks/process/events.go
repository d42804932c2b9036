package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/wire"
	"github.com/tackle-dev/tackle/tools/chat"
)

// eventDef is an intercepting event as hook servers see it: the method
// of its requests and how a server's hook for it is registered. Adding an
// event is one entry in eventTable: its registration method, its params
// and what an answer may change.
type eventDef struct {
	event    hooks.Event
	method   string
	register func(reg *hooks.Registry, s *server)
}

var eventTable = sync.OnceValue(func() []eventDef {
	return []eventDef{
		def(hooks.OnPromptSubmit, (*hooks.Registry).OnPromptSubmit, promptParams, applyPrompt),
		def(hooks.PreLLMRequest, (*hooks.Registry).PreLLMRequest, requestParams, applyRequest),
		def(hooks.PreToolCall, (*hooks.Registry).PreToolCall, preToolParams, applyPreTool),
		def(hooks.PostToolCall, (*hooks.Registry).PostToolCall, postToolParams, applyPostTool),
		def(hooks.OnTurnEnd, (*hooks.Registry).OnTurnEnd, turnEndParams, applyTurnEnd),
		def(hooks.OnAbort, (*hooks.Registry).OnAbort, abortParams, applyAbort),
		def(hooks.PreCompact, (*hooks.Registry).PreCompact, compactParams, applyCompact),
	}
})

// def makes the entry of event ev: add registers a hook of it, params is
// the request's params for an input, apply checks an answer and applies
// it to the input. The server's hook asks its live process; while the
// server restarts it waits (within the hook's timeout), and a process
// that does not intercept ev (since a restart) is not asked.
func def[In, Out any](ev hooks.Event, add func(*hooks.Registry, hooks.Hook[In, Out]),
	params func(wire.Header, *In) any, apply func(*answer, *In, *server, *grant) (Out, error)) eventDef {
	method := "hook." + ev.String()
	return eventDef{event: ev, method: method, register: func(reg *hooks.Registry, s *server) {
		add(reg, hooks.Hook[In, Out]{
			Name:     s.cfg.name,
			Priority: s.cfg.priority,
			Timeout:  s.cfg.timeout,
			OnError:  s.cfg.policy,
			Run: func(ctx context.Context, in *In) (Out, error) {
				var zero Out
				c, err := s.live(ctx)
				if err != nil {
					return zero, err
				}
				if !c.grant.intercepts(ev) {
					return zero, nil
				}
				raw, err := c.call(ctx, method, params(s.header(ctx, ev), in))
				if err != nil {
					return zero, err
				}
				a, err := decodeAnswer(raw)
				if err != nil {
					return zero, err
				}
				return apply(a, in, s, &c.grant)
			},
		})
	}}
}

func allEvents() []hooks.Event {
	t := eventTable()
	evs := make([]hooks.Event, len(t))
	for i, d := range t {
		evs[i] = d.event
	}
	return evs
}

func eventOf(ev hooks.Event) eventDef {
	for _, d := range eventTable() {
		if d.event == ev {
			return d
		}
	}
	panic(fmt.Sprintf("process: no entry for the event %s", ev))
}

// lookupEvent maps an event name to an intercepting event.
func lookupEvent(name string) (hooks.Event, bool) {
	for _, d := range eventTable() {
		if d.event.String() == name {
			return d.event, true
		}
	}
	return 0, false
}

// eventList names the events for a message: "a, b or c".
func eventList() string {
	t := eventTable()
	names := make([]string, len(t))
	for i, d := range t {
		names[i] = d.event.String()
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ---- params: the inputs of command hooks ----

func promptParams(h wire.Header, in *hooks.PromptInput) any {
	return wire.PromptInput{Header: h, Prompt: in.Message.Content}
}

func requestParams(h wire.Header, in *hooks.LLMRequestInput) any {
	return wire.RequestInput{Header: h, Model: in.Model, Request: in.Request, Messages: wire.NewMessages(in.Messages)}
}

func preToolParams(h wire.Header, in *hooks.PreToolInput) any {
	return wire.PreToolInput{Header: h, ToolCall: wire.NewCall(in.Call)}
}

func postToolParams(h wire.Header, in *hooks.PostToolInput) any {
	return wire.PostToolInput{Header: h, ToolCall: wire.NewCall(in.Call), Result: wire.Result{Status: in.Result.Status, Content: in.Result.Content}}
}

func turnEndParams(h wire.Header, in *hooks.TurnEndInput) any {
	return wire.TurnEndInput{Header: h, Final: in.Final.Content, Round: in.Round, Messages: wire.NewMessages(in.Messages)}
}

func compactParams(h wire.Header, in *hooks.CompactInput) any {
	return wire.CompactInput{
		Header: h, Trigger: string(in.Trigger), Focus: in.Focus, Summary: in.Summary,
		Replaced: in.Replaced, Pruned: in.Pruned, Tokens: in.Tokens, TokensAfter: in.After, Window: in.Window,
		Messages: wire.NewMessages(in.Messages),
	}
}

func abortParams(h wire.Header, in *hooks.AbortInput) any {
	a := wire.AbortInput{Header: h, Reason: in.Reason}
	if in.Err != nil {
		a.Error = in.Err.Error()
	}
	return a
}

// ---- answers ----

// answer is a server's result for an intercepting request. Fields that
// do not belong to the event are ignored, as are unknown fields.
type answer struct {
	Action    *string         `json:"action"`
	Reason    string          `json:"reason"`
	Prompt    *string         `json:"prompt"`    // on_prompt_submit
	Context   *string         `json:"context"`   // on_prompt_submit, post_tool_call
	Model     *string         `json:"model"`     // pre_llm_request
	Messages  json.RawMessage `json:"messages"`  // pre_llm_request, on_turn_end
	Arguments json.RawMessage `json:"arguments"` // pre_tool_call
	Output    *string         `json:"output"`    // pre_tool_call (respond), post_tool_call
	Status    *string         `json:"status"`    // pre_tool_call (respond), post_tool_call
	Summary   *string         `json:"summary"`   // pre_compact
}

func decodeAnswer(raw json.RawMessage) (*answer, error) {
	var a answer
	if err := strictObject(raw, &a); err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return &a, nil
}

// action returns the answer's action, which must be one of names.
func (a *answer) action(ev hooks.Event, names ...string) (string, error) {
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	switch {
	case a.Action == nil:
		return "", fmt.Errorf(`result: missing "action" (want %s)`, want)
	case !slices.Contains(names, *a.Action):
		return "", fmt.Errorf("result: invalid action %q for %s (want %s)", *a.Action, ev, want)
	}
	return *a.Action, nil
}

// status reads "status": ok (the default) or error.
func (a *answer) status() (chat.ResultStatus, error) {
	switch {
	case a.Status == nil || *a.Status == string(chat.StatusOK):
		return chat.StatusOK, nil
	case *a.Status == string(chat.StatusError):
		return chat.StatusError, nil
	}
	return "", fmt.Errorf(`result: "status" %q (want "ok" or "error")`, *a.Status)
}

// context is the answer's extra context for the model, as appended to
// text, by the hook named name ("" when there is none).
func (a *answer) context(name string) string {
	if a.Context == nil || strings.TrimSpace(*a.Context) == "" {
		return ""
	}
	return fmt.Sprintf("Hook context (%s): %s", name, *a.Context)
}

func appendText(text, more string) string {
	if text == "" {
		return more
	}
	return strings.TrimRight(text, "\n") + "\n\n" + more
}

// Each apply func checks the whole answer before it changes the input:
// an answer that fails changes nothing.

func applyPrompt(a *answer, in *hooks.PromptInput, s *server, _ *grant) (hooks.PromptResult, error) {
	act, err := a.action(hooks.OnPromptSubmit, "continue", "cancel")
	if err != nil {
		return hooks.PromptResult{}, err
	}
	if a.Prompt != nil && strings.TrimSpace(*a.Prompt) == "" {
		return hooks.PromptResult{}, errors.New(`result: "prompt" is empty (use action "cancel" to drop the prompt)`)
	}
	if a.Prompt != nil {
		in.Message.Content = *a.Prompt
	}
	if more := a.context(s.cfg.name); more != "" {
		in.Message.Content = appendText(in.Message.Content, more)
	}
	res := hooks.PromptResult{Reason: a.Reason}
	if act == "cancel" {
		res.Action = hooks.PromptCancel
	}
	return res, nil
}

func applyRequest(a *answer, in *hooks.LLMRequestInput, _ *server, _ *grant) (hooks.RequestResult, error) {
	act, err := a.action(hooks.PreLLMRequest, "continue", "cancel")
	if err != nil {
		return hooks.RequestResult{}, err
	}
	if a.Model != nil && strings.TrimSpace(*a.Model) == "" {
		return hooks.RequestResult{}, errors.New(`result: "model" is empty`)
	}
	var msgs []chat.Message
	if wire.Present(a.Messages) {
		if msgs, err = wire.Conversation(a.Messages); err != nil {
			return hooks.RequestResult{}, fmt.Errorf("result: %w", err)
		}
	}
	if a.Model != nil {
		in.Model = *a.Model
	}
	if msgs != nil {
		in.Messages = msgs
	}
	res := hooks.RequestResult{Reason: a.Reason}
	if act == "cancel" {
		res.Action = hooks.RequestCancel
	}
	return res, nil
}

func applyPreTool(a *answer, in *hooks.PreToolInput, s *server, g *grant) (hooks.PreToolResult, error) {
	act, err := a.action(hooks.PreToolCall, "continue", "skip", "abort", "pause", "respond", "approve")
	if err != nil {
		return hooks.PreToolResult{}, err
	}
	var args string
	if wire.Present(a.Arguments) {
		if args, err = wire.Arguments(a.Arguments); err != nil {
			return hooks.PreToolResult{}, fmt.Errorf("result: %w", err)
		}
	}
	res := hooks.PreToolResult{Reason: a.Reason}
	switch act {
	case "skip":
		res.Action = hooks.ToolSkip
	case "abort":
		res.Action = hooks.ToolAbort
	case "pause":
		res.Action = hooks.ToolPause
	case "respond":
		res.Action = hooks.ToolRespond
		if a.Output == nil {
			return hooks.PreToolResult{}, errors.New(`result: action "respond" needs "output": the result the model reads`)
		}
		status, err := a.status()
		if err != nil {
			return hooks.PreToolResult{}, err
		}
		res.Response = chat.ToolResult{Status: status, Content: *a.Output}
	case "approve":
		if !g.approve {
			return hooks.PreToolResult{}, errors.New(`result: action "approve" needs "approve": true in the server's config and mode "approve" in its hello`)
		}
		res.Reason = strings.TrimSuffix("approved: "+a.Reason, ": ")
	}
	if args != "" {
		in.Call.Arguments = args
	}
	if act == "approve" {
		// The approval policy reads it after its deny rules, plan mode and
		// protected paths, for exactly these arguments.
		in.Approval = hooks.NewApproval(s.cfg.name, in.Call, false, a.Reason)
	}
	return res, nil
}

func applyPostTool(a *answer, in *hooks.PostToolInput, s *server, _ *grant) (hooks.PostToolResult, error) {
	act, err := a.action(hooks.PostToolCall, "continue", "abort")
	if err != nil {
		return hooks.PostToolResult{}, err
	}
	status := in.Result.Status
	if a.Status != nil {
		if status, err = a.status(); err != nil {
			return hooks.PostToolResult{}, err
		}
	}
	in.Result.Status = status
	if a.Output != nil {
		in.Result.Content = *a.Output
	}
	if more := a.context(s.cfg.name); more != "" {
		in.Result.Content = appendText(in.Result.Content, more)
	}
	res := hooks.PostToolResult{Reason: a.Reason}
	if act == "abort" {
		res.Action = hooks.PostAbort
	}
	return res, nil
}

func applyTurnEnd(a *answer, _ *hooks.TurnEndInput, _ *server, _ *grant) (hooks.TurnEndResult, error) {
	act, err := a.action(hooks.OnTurnEnd, "finish", "continue_with_messages", "paused")
	if err != nil {
		return hooks.TurnEndResult{}, err
	}
	res := hooks.TurnEndResult{Reason: a.Reason}
	switch act {
	case "continue_with_messages":
		res.Action = hooks.TurnContinueWithMessages
		if res.Messages, err = wire.TurnMessages(a.Messages); err != nil {
			return hooks.TurnEndResult{}, fmt.Errorf("result: %w", err)
		}
	case "paused":
		res.Action = hooks.TurnPaused
	}
	return res, nil
}

// applyAbort reads nothing: an on_abort answer is only an acknowledgement.
func applyAbort(*answer, *hooks.AbortInput, *server, *grant) (struct{}, error) {
	return struct{}{}, nil
}

// applyCompact: continue or cancel; a summary (not blank) replaces the
// model's, when the compaction writes one.
func applyCompact(a *answer, in *hooks.CompactInput, _ *server, _ *grant) (hooks.CompactResult, error) {
	act, err := a.action(hooks.PreCompact, "continue", "cancel")
	if err != nil {
		return hooks.CompactResult{}, err
	}
	if a.Summary != nil && strings.TrimSpace(*a.Summary) == "" {
		return hooks.CompactResult{}, errors.New(`result: "summary" is empty (use action "cancel" to keep the conversation as it is)`)
	}
	if a.Summary != nil && in.Summary != "" {
		in.Summary = *a.Summary
	}
	res := hooks.CompactResult{Reason: a.Reason}
	if act == "cancel" {
		res.Action = hooks.CompactCancel
	}
	return res, nil
}
