// Package hooks is the hook engine: the events of the turn loop, their typed
// inputs and results, the registry that orders hooks and runs their chains,
// per-hook timeouts and error policy, and the decision trace.
//
// The engine decides; the agent applies the decision. Nothing here knows
// about terminals or the model client.
package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Event names a point in the turn loop where hooks run.
type Event uint8

// The hook events.
const (
	OnPromptSubmit Event = iota + 1
	PreLLMRequest
	PreToolCall
	PostToolCall
	OnTurnEnd
	OnAbort
	PreCompact
)

var eventNames = [...]string{
	OnPromptSubmit: "on_prompt_submit",
	PreLLMRequest:  "pre_llm_request",
	PreToolCall:    "pre_tool_call",
	PostToolCall:   "post_tool_call",
	OnTurnEnd:      "on_turn_end",
	OnAbort:        "on_abort",
	PreCompact:     "pre_compact",
}

func (e Event) String() string {
	if int(e) < len(eventNames) && eventNames[e] != "" {
		return eventNames[e]
	}
	return "unknown_event"
}

// MarshalText writes the event's snake_case name.
func (e Event) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads an event's snake_case name, as MarshalText writes it.
func (e *Event) UnmarshalText(b []byte) error {
	for i, name := range eventNames {
		if name != "" && name == string(b) {
			*e = Event(i)
			return nil
		}
	}
	return fmt.Errorf("unknown hook event %q", b)
}

// ---- inputs. In-process hooks receive pointers and may change them. ----

// PromptInput is given to on_prompt_submit hooks once per Run.
type PromptInput struct {
	// Message is the user's message; hooks may rewrite its Content.
	Message chat.Message
}

// LLMRequestInput is given to pre_llm_request hooks before every request.
type LLMRequestInput struct {
	Model string
	// Messages is the context that will be sent; hooks may rewrite it.
	Messages []chat.Message
	// Request counts the model requests of this Run, starting at 1.
	Request int
}

// PreToolInput is given to pre_tool_call hooks for each call of a reply.
type PreToolInput struct {
	// Call is the call as the model asked for it; hooks may change its
	// arguments (the tool then runs with the changed arguments).
	Call chat.ToolCall
	// Approval is an earlier hook's say on asking the user about the
	// call, for the approval policy to read; nil when no hook said
	// anything. A hook sets it, never clears another hook's Ask.
	Approval *Approval
}

// Approval is a hook's say on whether the user must approve a tool call
// (a Claude Code hook's permissionDecision). The approval policy reads it
// after its deny rules, plan mode and protected paths, which always win:
// Ask makes it ask where it would let the call run, and otherwise the
// call runs where the policy would ask. It holds only for the arguments
// the hook judged: a hook after it that changes them voids it.
type Approval struct {
	// Hook names the hook that decided.
	Hook string
	// Ask asks the user; false lets the call run.
	Ask bool
	// Reason is shown to the user when asking.
	Reason string
	// Tool and Arguments are the call the hook judged.
	Tool, Arguments string
}

// NewApproval is hook's say on call as it stands now: ask the user, or
// let it run.
func NewApproval(hook string, call chat.ToolCall, ask bool, reason string) *Approval {
	return &Approval{Hook: hook, Ask: ask, Reason: reason, Tool: call.Name, Arguments: call.Arguments}
}

// Holds reports whether a (which may be nil) was said about exactly call:
// a hook after it that changed the tool or the arguments voids it.
func (a *Approval) Holds(call chat.ToolCall) bool {
	return a != nil && a.Tool == call.Name && a.Arguments == call.Arguments
}

// PostToolInput is given to post_tool_call hooks for each result.
type PostToolInput struct {
	Call chat.ToolCall
	// Result is what the model will be told; hooks may rewrite it.
	Result chat.ToolResult
}

// TurnEndInput is given to on_turn_end hooks when a reply has no tool calls.
type TurnEndInput struct {
	// Messages is the conversation so far, ending with Final. Read-only.
	Messages []chat.Message
	// Final is the assistant message that ended the turn.
	Final chat.Message
	// Round counts the ContinueWithMessages rounds already spent in this Run.
	Round int
}

// AbortInput is given to on_abort hooks when a Run ends early.
type AbortInput struct {
	Reason string
	Err    error
}

// CompactTrigger says why the conversation is being compacted.
type CompactTrigger string

// The reasons for a compaction.
const (
	// CompactAuto: the next request would pass the compaction threshold
	// of the model's context window.
	CompactAuto CompactTrigger = "auto"
	// CompactOverflow: the server answered that the request exceeds the
	// model's context length; the request is sent again after it.
	CompactOverflow CompactTrigger = "overflow"
	// CompactManual: the user asked for it (/compact).
	CompactManual CompactTrigger = "manual"
)

// CompactInput is given to pre_compact hooks before a compaction replaces
// the conversation.
type CompactInput struct {
	Trigger CompactTrigger
	// Focus is what the user asked the summary to keep (/compact focus).
	Focus string
	// Summary is the model's summary of the older messages, which one
	// message will stand for; "" when only old tool outputs are pruned.
	// Hooks may rewrite a summary (not to blank); a change to an empty
	// Summary is ignored.
	Summary string
	// Messages is the conversation as it will be after the compaction,
	// with the Summary as the model wrote it. Read-only.
	Messages []chat.Message
	// Replaced counts the messages the summary stands for; Pruned the
	// tool outputs shortened to a stub.
	Replaced, Pruned int
	// Tokens is the estimated size of the next request before the
	// compaction and After the estimate after it; Window is the model's
	// context window (0 when unknown).
	Tokens, After, Window int64
}

// ---- results: one type per event, so a meaningless result cannot be
// returned. The zero value of each is "go on". ----

// PromptAction is what an on_prompt_submit hook decides.
type PromptAction uint8

// on_prompt_submit actions.
const (
	PromptContinue PromptAction = iota
	PromptCancel
)

// PromptResult is an on_prompt_submit hook's decision.
type PromptResult struct {
	Action PromptAction
	Reason string
}

// RequestAction is what a pre_llm_request hook decides.
type RequestAction uint8

// pre_llm_request actions.
const (
	RequestContinue RequestAction = iota
	RequestCancel
)

// RequestResult is a pre_llm_request hook's decision.
type RequestResult struct {
	Action RequestAction
	Reason string
}

// PreToolAction is what a pre_tool_call hook decides.
type PreToolAction uint8

// pre_tool_call actions.
const (
	ToolContinue PreToolAction = iota
	ToolSkip                   // do not run; the model is told why
	ToolAbort                  // stop the whole Run
	ToolPause                  // ask the user; Run returns Paused
	ToolRespond                // do not run; Response is the call's result
)

// PreToolResult is a pre_tool_call hook's decision.
type PreToolResult struct {
	Action PreToolAction
	Reason string
	// Response answers the call when Action is ToolRespond: the tool does
	// not run and the model reads Response as the tool's result (its
	// CallID is ignored). Its Status is ok (or empty, meaning ok) or error.
	// It goes through post_tool_call like a result of the tool.
	Response chat.ToolResult
}

// PostToolAction is what a post_tool_call hook decides.
type PostToolAction uint8

// post_tool_call actions.
const (
	PostContinue PostToolAction = iota
	PostAbort
)

// PostToolResult is a post_tool_call hook's decision.
type PostToolResult struct {
	Action PostToolAction
	Reason string
}

// TurnEndAction is what an on_turn_end hook decides.
type TurnEndAction uint8

// on_turn_end actions.
const (
	TurnFinish               TurnEndAction = iota
	TurnContinueWithMessages               // append Messages and loop again
	TurnPaused                             // stop and wait for the user
)

// TurnEndResult is an on_turn_end hook's decision.
type TurnEndResult struct {
	Action TurnEndAction
	// Messages are appended to the conversation on TurnContinueWithMessages.
	Messages []chat.Message
	Reason   string
}

// CompactAction is what a pre_compact hook decides.
type CompactAction uint8

// pre_compact actions.
const (
	CompactContinue CompactAction = iota
	// CompactCancel keeps the conversation as it is. At an automatic
	// compaction the request is then sent as it is, and may fail.
	CompactCancel
)

// CompactResult is a pre_compact hook's decision.
type CompactResult struct {
	Action CompactAction
	Reason string
}

// ---- hook definitions ----

// ErrorPolicy says what a hook's error, panic or timeout means.
type ErrorPolicy uint8

// Error policies. The default is FailClosed for pre_tool_call and FailOpen
// for every other event.
const (
	PolicyDefault ErrorPolicy = iota
	FailOpen                  // go on as if the hook said Continue; emit a warning
	FailClosed                // take the restrictive result (Skip, Cancel, Abort, Paused)
)

// Hook is one hook for one event: In is the event's input, Out its result.
type Hook[In, Out any] struct {
	// Name identifies the hook in the decision trace and in messages.
	Name string
	// Priority orders hooks of one event: lower runs first; equal
	// priorities run in registration order.
	Priority int
	// Timeout bounds one call; zero means the registry's default.
	Timeout time.Duration
	// OnError overrides the event's default error policy.
	OnError ErrorPolicy
	// Protect marks a post_tool_call hook that guards what a result may
	// carry to the model, the event stream and the transcript (secret
	// redaction). Such a hook runs on every result that has content: also
	// when its chain ends early (an earlier hook aborts or fails closed,
	// or the caller cancels) and on results finished after the run was
	// stopped (Registry.RunPostToolProtect). Its timeout still bounds it,
	// and the caller's cancellation does not stop it. When it fails
	// (error, panic, timeout) the result is withheld: its content is
	// replaced by a note naming the hook. It must be idempotent, since a
	// call cut short by cancellation is made again. Only post_tool_call
	// hooks may set it.
	Protect bool
	// Run decides. It must honour ctx (its deadline is the timeout).
	Run func(ctx context.Context, in *In) (Out, error)
}

// Decision records one hook call: which hook, what it decided and why.
type Decision struct {
	Event    Event         `json:"event"`
	Hook     string        `json:"hook"`
	Result   string        `json:"result"` // e.g. "continue", "skip", "pause", "continue_with_messages"
	Reason   string        `json:"reason,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// CallID names the tool call for pre/post_tool_call decisions.
	CallID string `json:"call_id,omitempty"`
	// Error is set when the hook failed (error, panic or timeout); Result
	// is then what the error policy made of it.
	Error string `json:"error,omitempty"`
	// Protect is set when a Protect hook ran outside its chain's normal
	// course: after the chain ended early or the run was stopped. Its
	// Result is then "continue", or "withheld" when it failed.
	Protect bool `json:"protect,omitempty"`
}

// Recorder receives every decision as it is made.
type Recorder func(Decision)
