package process

// picoclaw's intercepting stages on tackle's events:
//
//	before_tool   pre_tool_call (PicoclawPriority)
//	approve_tool  pre_tool_call (PicoclawApprovePriority), after every before_tool
//	after_tool    post_tool_call of a call that ran (status ok or error)
//	before_llm    pre_llm_request
//	after_llm     on_turn_end: the reply that ends the turn
//
// An interceptor that fails (an error answer, a timeout, a crash, an
// action its stage does not have) is passed over with a warning, as in
// picoclaw; an approve_tool that fails denies the call.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/wire"
	"github.com/tackle-dev/tackle/tools/chat"
)

// picoclaw's methods.
const (
	picoMethodHello        = "hook.hello"
	picoMethodBeforeTool   = "hook.before_tool"
	picoMethodAfterTool    = "hook.after_tool"
	picoMethodApproveTool  = "hook.approve_tool"
	picoMethodBeforeLLM    = "hook.before_llm"
	picoMethodAfterLLM     = "hook.after_llm"
	picoMethodRuntimeEvent = "hook.runtime_event"
)

// picoclaw's actions.
const (
	picoContinue  = "continue"
	picoModify    = "modify"
	picoRespond   = "respond"
	picoDenyTool  = "deny_tool"
	picoAbortTurn = "abort_turn"
	picoHardAbort = "hard_abort"
)

// registerPico registers the hooks of a picoclaw process hook: the
// interceptors at PicoclawPriority, failing open after the interceptor
// timeout; approve_tool at PicoclawApprovePriority, failing closed after
// the approval timeout.
func (s *server) registerPico(reg *hooks.Registry) {
	p, name := s.cfg.pico, s.cfg.name
	if p.llm {
		reg.PreLLMRequest(hooks.Hook[hooks.LLMRequestInput, hooks.RequestResult]{
			Name: name, Priority: PicoclawPriority, Timeout: p.interceptorTimeout, OnError: hooks.FailOpen, Run: s.picoBeforeLLM,
		})
		reg.OnTurnEnd(hooks.Hook[hooks.TurnEndInput, hooks.TurnEndResult]{
			Name: name, Priority: PicoclawPriority, Timeout: p.interceptorTimeout, OnError: hooks.FailOpen, Run: s.picoAfterLLM,
		})
	}
	if p.tool {
		reg.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
			Name: name, Priority: PicoclawPriority, Timeout: p.interceptorTimeout, OnError: hooks.FailOpen, Run: s.picoBeforeTool,
		})
		reg.PostToolCall(hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{
			Name: name, Priority: PicoclawPriority, Timeout: p.interceptorTimeout, OnError: hooks.FailOpen, Run: s.picoAfterTool,
		})
	}
	if p.approve {
		reg.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
			Name: name + picoApproveSuffix, Priority: PicoclawApprovePriority, Timeout: p.approvalTimeout, OnError: hooks.FailClosed, Run: s.picoApprove,
		})
	}
}

// picoHookNames are the names of the tackle hooks a picoclaw hook has,
// by event, as registerPico registers them.
func (s *server) picoHookNames() map[hooks.Event][]string {
	p, name := s.cfg.pico, s.cfg.name
	out := map[hooks.Event][]string{}
	if p.llm {
		out[hooks.PreLLMRequest] = append(out[hooks.PreLLMRequest], name)
		out[hooks.OnTurnEnd] = append(out[hooks.OnTurnEnd], name)
	}
	if p.tool {
		out[hooks.PreToolCall] = append(out[hooks.PreToolCall], name)
		out[hooks.PostToolCall] = append(out[hooks.PostToolCall], name)
	}
	if p.approve {
		out[hooks.PreToolCall] = append(out[hooks.PreToolCall], name+picoApproveSuffix)
	}
	return out
}

// picoCall sends a request to the hook's live process and decodes its
// result into out, as picoclaw does: unknown fields are ignored, a
// missing or null result leaves out as it is.
func (s *server) picoCall(ctx context.Context, method string, params, out any) error {
	c, err := s.live(ctx)
	if err != nil {
		return err
	}
	raw, err := c.call(ctx, method, params)
	if err != nil {
		return err
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s: cannot read the result %s: %v", method, headOf(raw), err)
		}
	}
	return nil
}

// picoMeta is picoclaw's HookMeta, sent as "meta" (its Go field names).
type picoMeta struct {
	AgentID      string
	TurnID       string
	ParentTurnID string
	SessionKey   string
	Iteration    int
	TracePath    string
	Source       string
}

// picoAgentID is the agent's id in meta and in runtime events.
const picoAgentID = "tackle"

func (s *server) picoMeta(trace string, iteration int) picoMeta {
	return picoMeta{
		AgentID: picoAgentID, TurnID: s.set.turnID(), SessionKey: s.set.sessionKey(),
		Iteration: iteration, TracePath: trace, Source: "runTurn",
	}
}

// picoDecision starts every interceptor's answer.
type picoDecision struct {
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// action is the answer's action, "" meaning continue.
func (d picoDecision) action() string {
	if d.Action == "" {
		return picoContinue
	}
	return d.Action
}

// unsupported is the error of an action the stage does not have:
// picoclaw passes over the hook with a warning, and so does tackle.
func (d picoDecision) unsupported(stage string, want ...string) error {
	return fmt.Errorf("unsupported action %q for %s (want %s)", d.Action, stage, strings.Join(want, ", "))
}

// reasonOr is "prefix: reason", or prefix alone, as picoclaw words a
// denial (hookDeniedToolContent).
func reasonOr(prefix, reason string) string {
	if reason == "" {
		return prefix
	}
	return prefix + ": " + reason
}

// ---- tools ----

// picoToolParams are the params of before_tool and approve_tool.
type picoToolParams struct {
	Meta      picoMeta        `json:"meta"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// picoArguments are a call's arguments as picoclaw sends them: an
// object, left out when it is empty or not an object.
func picoArguments(args string) json.RawMessage {
	a := bytes.TrimSpace([]byte(args))
	if len(a) == 0 || a[0] != '{' || !json.Valid(a) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(a, &m) != nil || len(m) == 0 {
		return nil
	}
	return a
}

// picoToolResult is picoclaw's ToolResult.
type picoToolResult struct {
	ForLLM          string   `json:"for_llm"`
	ForUser         string   `json:"for_user,omitempty"`
	Silent          bool     `json:"silent"`
	IsError         bool     `json:"is_error"`
	Async           bool     `json:"async"`
	Media           []string `json:"media,omitempty"`
	ArtifactTags    []string `json:"artifact_tags,omitempty"`
	ResponseHandled bool     `json:"response_handled,omitempty"`
}

// status is the tackle status of the result.
func (r *picoToolResult) status() chat.ResultStatus {
	if r.IsError {
		return chat.StatusError
	}
	return chat.StatusOK
}

// picoCallChange is the "call" of a before_tool answer.
type picoCallChange struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

func (s *server) picoBeforeTool(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
	var a struct {
		picoDecision
		Call   *picoCallChange `json:"call"`
		Result *picoToolResult `json:"result"`
	}
	params := picoToolParams{Meta: s.picoMeta("turn.tool.before", 0), Tool: in.Call.Name, Arguments: picoArguments(in.Call.Arguments)}
	if err := s.picoCall(ctx, picoMethodBeforeTool, params, &a); err != nil {
		return hooks.PreToolResult{}, err
	}
	switch a.action() {
	case picoContinue, picoModify:
		// As in picoclaw, a "call" in the answer is the call from now on,
		// with either action.
		if a.Call != nil {
			if a.Call.Tool != "" && a.Call.Tool != in.Call.Name {
				return hooks.PreToolResult{}, fmt.Errorf("%s: the answer's call is a call of %q: tackle runs the tool the model called (%s), with the arguments a hook gives", picoMethodBeforeTool, a.Call.Tool, in.Call.Name)
			}
			args := "{}" // picoclaw's call without arguments has none
			if wire.Present(a.Call.Arguments) {
				var err error
				if args, err = wire.Arguments(a.Call.Arguments); err != nil {
					return hooks.PreToolResult{}, fmt.Errorf("%s: call: %w", picoMethodBeforeTool, err)
				}
			}
			if !sameJSON(args, in.Call.Arguments) {
				in.Call.Arguments = args
			}
		}
		return hooks.PreToolResult{Reason: a.Reason}, nil
	case picoRespond:
		if a.Result == nil {
			return hooks.PreToolResult{}, fmt.Errorf(`%s: action "respond" needs "result": {"for_llm": ...}`, picoMethodBeforeTool)
		}
		return hooks.PreToolResult{Action: hooks.ToolRespond, Reason: a.Reason,
			Response: chat.ToolResult{Status: a.Result.status(), Content: a.Result.ForLLM}}, nil
	case picoDenyTool:
		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: reasonOr("Tool execution denied by hook", a.Reason)}, nil
	case picoAbortTurn, picoHardAbort:
		return hooks.PreToolResult{Action: hooks.ToolAbort, Reason: reasonOr(a.Action, a.Reason)}, nil
	}
	return hooks.PreToolResult{}, a.unsupported(picoBeforeTool, picoContinue, picoModify, picoRespond, picoDenyTool, picoAbortTurn, picoHardAbort)
}

// picoApprove asks approve_tool about the call as the hooks before it
// left it. "approved": true is no objection: the approval policy still
// decides whether the call asks the user. false, or no "approved" at
// all (as in picoclaw), refuses the call with the hook's reason.
func (s *server) picoApprove(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
	var a struct {
		Approved bool   `json:"approved"`
		Reason   string `json:"reason"`
	}
	params := picoToolParams{Meta: s.picoMeta("turn.tool.approve", 0), Tool: in.Call.Name, Arguments: picoArguments(in.Call.Arguments)}
	if err := s.picoCall(ctx, picoMethodApproveTool, params, &a); err != nil {
		return hooks.PreToolResult{}, err
	}
	if !a.Approved {
		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: reasonOr("Tool execution denied by approval hook", a.Reason)}, nil
	}
	return hooks.PreToolResult{Reason: strings.TrimSuffix("no objection: "+a.Reason, ": ")}, nil
}

// picoAfterToolParams are the params of after_tool.
type picoAfterToolParams struct {
	Meta      picoMeta        `json:"meta"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    *picoToolResult `json:"result,omitempty"`
	Duration  int64           `json:"duration"`
}

// picoAfterTool sends after_tool for a call that ran (picoclaw does not
// call it for a call that was denied or skipped).
func (s *server) picoAfterTool(ctx context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
	if in.Result.Status != chat.StatusOK && in.Result.Status != chat.StatusError {
		return hooks.PostToolResult{}, nil
	}
	var a struct {
		picoDecision
		Result *struct {
			Result *picoToolResult `json:"result"`
		} `json:"result"`
	}
	params := picoAfterToolParams{
		Meta: s.picoMeta("turn.tool.after", 0), Tool: in.Call.Name, Arguments: picoArguments(in.Call.Arguments),
		Result: &picoToolResult{ForLLM: in.Result.Content, IsError: in.Result.Status == chat.StatusError},
	}
	if err := s.picoCall(ctx, picoMethodAfterTool, params, &a); err != nil {
		return hooks.PostToolResult{}, err
	}
	switch a.action() {
	case picoContinue, picoModify:
		if a.Result != nil && a.Result.Result != nil {
			in.Result.Content, in.Result.Status = a.Result.Result.ForLLM, a.Result.Result.status()
		}
		return hooks.PostToolResult{Reason: a.Reason}, nil
	case picoAbortTurn, picoHardAbort:
		return hooks.PostToolResult{Action: hooks.PostAbort, Reason: reasonOr(a.Action, a.Reason)}, nil
	}
	return hooks.PostToolResult{}, a.unsupported(picoAfterTool, picoContinue, picoModify, picoAbortTurn, picoHardAbort)
}

// ---- model requests and replies ----

// picoMessage is picoclaw's provider Message.
type picoMessage struct {
	Role             string         `json:"role"`
	Content          string         `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []picoToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type picoToolCall struct {
	ID       string        `json:"id"`
	Type     string        `json:"type,omitempty"`
	Function *picoFunction `json:"function,omitempty"`
}

type picoFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func picoMessages(ms []chat.Message) []picoMessage {
	out := make([]picoMessage, len(ms))
	for i, m := range ms {
		out[i] = picoMessage{Role: string(m.Role), Content: m.Content, ReasoningContent: m.Reasoning, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, picoToolCall{ID: c.ID, Type: "function", Function: &picoFunction{Name: c.Name, Arguments: c.Arguments}})
		}
	}
	return out
}

// tackleMessages turns picoclaw's messages into a conversation, checked
// as tackle checks a hook's messages (wire.Conversation).
func tackleMessages(ms []picoMessage) ([]chat.Message, error) {
	in := make([]wire.Message, len(ms))
	for i, m := range ms {
		in[i] = wire.Message{Role: chat.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		for j, c := range m.ToolCalls {
			if c.Function == nil {
				return nil, fmt.Errorf("messages[%d].tool_calls[%d]: no function", i, j)
			}
			in[i].ToolCalls = append(in[i].ToolCalls, wire.Call{ID: c.ID, Name: c.Function.Name, Arguments: wire.ArgumentsJSON(c.Function.Arguments)})
		}
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return wire.Conversation(raw)
}

// picoSystem are the system messages of ms by their place, which
// picoclaw does not let a hook change.
func picoSystem(ms []picoMessage) map[int]string {
	out := map[int]string{}
	for i, m := range ms {
		if m.Role == string(chat.RoleSystem) {
			out[i] = m.Content
		}
	}
	return out
}

type picoLLMParams struct {
	Meta     picoMeta      `json:"meta"`
	Model    string        `json:"model"`
	Messages []picoMessage `json:"messages,omitempty"`
}

func (s *server) picoBeforeLLM(ctx context.Context, in *hooks.LLMRequestInput) (hooks.RequestResult, error) {
	var a struct {
		picoDecision
		Request *struct {
			Model    string            `json:"model"`
			Messages []picoMessage     `json:"messages"`
			Tools    []json.RawMessage `json:"tools"`
		} `json:"request"`
	}
	sent := picoMessages(in.Messages)
	params := picoLLMParams{Meta: s.picoMeta("turn.llm.request", in.Request), Model: in.Model, Messages: sent}
	if err := s.picoCall(ctx, picoMethodBeforeLLM, params, &a); err != nil {
		return hooks.RequestResult{}, err
	}
	switch a.action() {
	case picoContinue, picoModify:
		if r := a.Request; r != nil {
			var msgs []chat.Message
			switch {
			case r.Messages == nil, reflect.DeepEqual(r.Messages, sent):
			case !reflect.DeepEqual(picoSystem(r.Messages), picoSystem(sent)):
				// picoclaw keeps the messages as they were, and so does tackle.
				s.set.report(fmt.Sprintf("picoclaw hook %q changed the system prompt in before_llm: the request's messages are kept as they were (as picoclaw does)", s.cfg.pico.name))
			default:
				var err error
				if msgs, err = tackleMessages(r.Messages); err != nil {
					return hooks.RequestResult{}, fmt.Errorf("%s: request: %w", picoMethodBeforeLLM, err)
				}
			}
			if len(r.Tools) > 0 {
				s.set.report(fmt.Sprintf("picoclaw hook %q gave tools in before_llm: a hook cannot change the tools the model is offered (picoclaw does not let it either)", s.cfg.pico.name))
			}
			if r.Model != "" {
				in.Model = r.Model
			}
			if msgs != nil {
				in.Messages = msgs
			}
		}
		return hooks.RequestResult{Reason: a.Reason}, nil
	case picoAbortTurn, picoHardAbort:
		return hooks.RequestResult{Action: hooks.RequestCancel, Reason: reasonOr(a.Action, a.Reason)}, nil
	}
	return hooks.RequestResult{}, a.unsupported(picoBeforeLLM, picoContinue, picoModify, picoAbortTurn, picoHardAbort)
}

// picoResponse is picoclaw's LLMResponse, as after_llm sends it.
type picoResponse struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	FinishReason     string `json:"finish_reason"`
}

// picoAfterLLM sends after_llm for the reply that ends the turn, the
// only reply tackle's hooks see: by then the user has seen it, so a hook
// cannot change it; abort_turn and hard_abort end the run as paused.
func (s *server) picoAfterLLM(ctx context.Context, in *hooks.TurnEndInput) (hooks.TurnEndResult, error) {
	var a struct {
		picoDecision
		Response *struct {
			Response *picoResponse `json:"response"`
		} `json:"response"`
	}
	reply := picoResponse{Content: in.Final.Content, ReasoningContent: in.Final.Reasoning, FinishReason: "stop"}
	params := struct {
		Meta     picoMeta     `json:"meta"`
		Model    string       `json:"model"`
		Response picoResponse `json:"response"`
	}{s.picoMeta("turn.llm.response", 0), "", reply}
	if err := s.picoCall(ctx, picoMethodAfterLLM, params, &a); err != nil {
		return hooks.TurnEndResult{}, err
	}
	switch a.action() {
	case picoContinue, picoModify:
		if a.Response != nil && a.Response.Response != nil && a.Response.Response.Content != reply.Content {
			return hooks.TurnEndResult{}, errors.New("after_llm: the answer changes the reply, which the user has already seen: tackle cannot change it")
		}
		return hooks.TurnEndResult{Reason: a.Reason}, nil
	case picoAbortTurn, picoHardAbort:
		return hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: reasonOr(a.Action, a.Reason)}, nil
	}
	return hooks.TurnEndResult{}, a.unsupported(picoAfterLLM, picoContinue, picoModify, picoAbortTurn, picoHardAbort)
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
