package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Event is something the Worker reports while it runs. Text deltas may be
// coalesced by a consumer; every other event must be delivered, in order.
type Event interface {
	// EventType is the event's snake_case name, used as "type" in stream-json.
	EventType() string
}

// TextDelta is a piece of assistant text as it arrived.
type TextDelta struct {
	Text string `json:"text"`
}

// ReasoningDelta is a piece of the model's reasoning as it arrived
// (reasoning_content, reasoning or reasoning_details): shown apart from
// the answer, never part of it. Like text deltas, it may be coalesced.
type ReasoningDelta struct {
	Text string `json:"text"`
}

// ModelRetry says a model request failed before any token arrived and will
// be retried after Wait.
type ModelRetry struct {
	Attempt int `json:"attempt"` // the attempt that failed, from 1
	// Retries is how many retries the request gets at most: Attempt
	// Retries is the last retry.
	Retries int           `json:"retries"`
	Wait    time.Duration `json:"wait_ns"`
	// Err is why the attempt failed, short ("connection refused", "503
	// Service Unavailable: overloaded").
	Err string `json:"error"`
}

// RetryLine says in one short line that a request failed and when it is
// tried again: "model request failed (connection refused); retry 1 of 4
// in 500ms".
func RetryLine(e ModelRetry) string {
	s := fmt.Sprintf("model request failed (%s); retry %d", e.Err, e.Attempt)
	if e.Retries > 0 {
		s += fmt.Sprintf(" of %d", e.Retries)
	}
	return s + " in " + e.Wait.Round(time.Millisecond).String()
}

// AssistantMessage is a complete assistant message, as it entered the
// conversation.
type AssistantMessage struct {
	Message chat.Message `json:"message"`
}

// ToolCallStarted says a tool call is about to run.
type ToolCallStarted struct {
	Call chat.ToolCall `json:"call"`
}

// ToolCallProgress says how far a running call has come, as its tool
// tells (an MCP server's progress notifications, a bash command's output
// so far): Done of Total (0: not known), what it is doing, and the end
// of what it has printed. It comes between the call's ToolCallStarted
// and ToolCallFinished. Each says all there is to say at its moment, so
// a consumer may keep only a call's latest (the UI's bridge merges them
// as it merges text deltas).
type ToolCallProgress struct {
	Call    chat.ToolCall `json:"call"`
	Done    float64       `json:"done"`
	Total   float64       `json:"total,omitempty"`
	Message string        `json:"message,omitempty"`
	// Output is the end of what the call has printed so far: at most
	// its last ProgressLines lines, a longer line than ProgressLineBytes
	// cut there (with a note of how many bytes more it has), made
	// safe to show as the call's result is (secrets redacted, escapes
	// removed, control characters shown as symbols). The last line may
	// be one still being written, up to its last finished word. The
	// result, when it comes, holds the whole output.
	Output string `json:"output,omitempty"`
}

// Bounds of ToolCallProgress.Output.
const (
	ProgressLines     = 20
	ProgressLineBytes = 512
)

// ToolCallFinished carries a call's single result (also for skipped,
// denied and failed calls, which never started). Every tool call of a
// reply gets exactly one, in call order, also when the run is stopped
// part way; Duration is zero for calls that never started.
type ToolCallFinished struct {
	Call     chat.ToolCall   `json:"call"`
	Result   chat.ToolResult `json:"result"`
	Duration time.Duration   `json:"duration_ns"`
}

// ToolCallDecided says how a paused call was answered (approved, approved
// always, denied or aborted) and, when not by the user, by whom. It comes
// before the call's ToolCallStarted, or its ToolCallFinished when it does
// not run. If hooks change an approved call, it is put to the user again
// and decided again.
type ToolCallDecided struct {
	Call    chat.ToolCall `json:"call"`
	Verdict Verdict       `json:"verdict"`
	By      string        `json:"by,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

// HookDecision records one hook call.
type HookDecision struct {
	hooks.Decision
}

// RetryPushed says an on_turn_end hook pushed messages back to the model.
type RetryPushed struct {
	Round    int            `json:"round"`
	Max      int            `json:"max"`
	Hook     string         `json:"hook"`
	Messages []chat.Message `json:"messages"`
}

// PausedEvent says the Run stopped to wait for decisions. State is where
// it stopped, for a recorder that lets another process go on from there
// (Worker.Restore); it is not part of the event's JSON.
type PausedEvent struct {
	Pending []PendingCall `json:"pending,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	State   *PausedRun    `json:"-"`
}

// ModelChanged says the model was switched (SetModel): requests from now
// on use it.
type ModelChanged struct {
	Model string `json:"model"`
}

// UsageReport gives the tokens of one request and the Run's total so far.
type UsageReport struct {
	Request chat.Usage `json:"request"`
	Total   chat.Usage `json:"total"`
	// Context is the size of the conversation in tokens with the reply:
	// the server's count of the request and the reply, or an estimate
	// when the server counts nothing. Window is the model's context
	// window, 0 when it is not known.
	Context int64 `json:"context_tokens,omitempty"`
	Window  int64 `json:"context_window,omitempty"`
}

// CompactStarted says the conversation is being compacted: Tokens is the
// estimated size of the next request, Window the model's context window
// (0 when it is not known). Compacted follows when it succeeds, a Warning
// (or, for Compact, its error) when it does not.
type CompactStarted struct {
	Trigger hooks.CompactTrigger `json:"trigger"`
	Tokens  int64                `json:"tokens"`
	Window  int64                `json:"window,omitempty"`
}

// Compacted says the conversation was compacted: old tool outputs were
// pruned to a stub (Pruned counts them), or, when Summary is set, the
// Replaced messages before the latest turns were replaced by one message
// with the model's summary.
type Compacted struct {
	Trigger hooks.CompactTrigger `json:"trigger"`
	// Messages is the whole conversation after the compaction, as the next
	// request sends it (before pre_llm_request hooks). It is left out of
	// the event's JSON.
	Messages []chat.Message `json:"-"`
	Summary  string         `json:"summary,omitempty"`
	Replaced int            `json:"replaced"`
	Pruned   int            `json:"pruned"`
	// Focus is what the user asked the summary to keep (/compact focus).
	Focus string `json:"focus,omitempty"`
	// Before and After are the estimated sizes of the next request in
	// tokens; Window is the model's context window (0 when unknown).
	Before int64 `json:"tokens_before"`
	After  int64 `json:"tokens_after"`
	Window int64 `json:"window,omitempty"`
	// Usage is the summary request's.
	Usage chat.Usage `json:"usage"`
}

// MCPServerStatus says an MCP server changed state: "starting",
// "ready" (its Tools tools joined the ones the model is offered),
// "failed" (Error says why, with the tail of its stderr) or "stopped".
// It comes from the session, not from a Run.
type MCPServerStatus struct {
	Server string `json:"server"`
	State  string `json:"state"`
	Tools  int    `json:"tools,omitempty"`
	Error  string `json:"error,omitempty"`
}

// TodoUpdated says the model set its plan (the todo tool): the whole
// list, in order, which replaces the one before. It comes between the
// todo call's ToolCallStarted and ToolCallFinished.
type TodoUpdated struct {
	Todos []tools.TodoItem `json:"todos"`
}

// Warning is something the user should see that did not stop the Run.
type Warning struct {
	Message string `json:"message"`
}

// NoteAdded says a note for the model waits for the next prompt: the
// next user message carries it (see Worker.Note), so that the model's
// picture of the files and of the conversation matches what happened
// (a /undo restored files; the user interrupted its reply).
type NoteAdded struct {
	Text string `json:"text"`
}

// ErrorEvent is the error that ended a Run.
type ErrorEvent struct {
	Message string `json:"message"`
}

// CheckStarted says a turn-end check (gofmt, go vet, a linter, a
// configured command) began on some files.
type CheckStarted struct {
	Check string   `json:"check"`
	Files []string `json:"files,omitempty"`
}

// CheckFinished says how a turn-end check ended.
type CheckFinished struct {
	Check string `json:"check"`
	// Status is "ok", "fixed" (e.g. files were formatted), "problems",
	// "error" (the check itself could not run) or "skipped".
	Status   string        `json:"status"`
	Problems int           `json:"problems"`
	Summary  string        `json:"summary,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// TurnFinished is the last event of every Run and Resume.
type TurnFinished struct {
	Outcome Outcome `json:"outcome"`
}

// Describe says in a line what the compaction did, e.g. "summarized 12
// messages and pruned 3 old tool outputs: ≈9012 → ≈2038 tokens (20% of
// the window)".
func (c Compacted) Describe() string {
	var did []string
	if c.Replaced > 0 {
		did = append(did, fmt.Sprintf("summarized %d %s", c.Replaced, plural(c.Replaced, "message", "messages")))
	}
	if c.Pruned > 0 {
		did = append(did, fmt.Sprintf("pruned %d old tool %s", c.Pruned, plural(c.Pruned, "output", "outputs")))
	}
	s := fmt.Sprintf("%s: ≈%d → ≈%d tokens", strings.Join(did, " and "), c.Before, c.After)
	if c.Window > 0 {
		s += fmt.Sprintf(" (%d%% of the window)", c.After*100/c.Window)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (TextDelta) EventType() string        { return "text_delta" }
func (ReasoningDelta) EventType() string   { return "reasoning_delta" }
func (ModelRetry) EventType() string       { return "model_retry" }
func (AssistantMessage) EventType() string { return "assistant_message" }
func (ToolCallStarted) EventType() string  { return "tool_call_started" }
func (ToolCallProgress) EventType() string { return "tool_call_progress" }
func (ToolCallFinished) EventType() string { return "tool_call_finished" }
func (ToolCallDecided) EventType() string  { return "tool_call_decided" }
func (HookDecision) EventType() string     { return "hook_decision" }
func (RetryPushed) EventType() string      { return "retry_pushed" }
func (PausedEvent) EventType() string      { return "paused" }
func (ModelChanged) EventType() string     { return "model_changed" }
func (UsageReport) EventType() string      { return "usage" }
func (CompactStarted) EventType() string   { return "compaction_started" }
func (Compacted) EventType() string        { return "compaction" }
func (Warning) EventType() string          { return "warning" }
func (MCPServerStatus) EventType() string  { return "mcp_server" }
func (ErrorEvent) EventType() string       { return "error" }
func (NoteAdded) EventType() string        { return "note" }
func (TurnFinished) EventType() string     { return "turn_finished" }
func (CheckStarted) EventType() string     { return "check_started" }
func (CheckFinished) EventType() string    { return "check_finished" }
func (TodoUpdated) EventType() string      { return "todo_updated" }

// EventTypes lists the types of every event the Worker and the turn-end
// checks report, as EventType gives them.
func EventTypes() []string {
	evs := []Event{
		TextDelta{}, ReasoningDelta{}, ModelRetry{}, AssistantMessage{}, ToolCallStarted{}, ToolCallProgress{}, ToolCallFinished{},
		ToolCallDecided{}, HookDecision{}, RetryPushed{}, PausedEvent{}, ModelChanged{}, UsageReport{},
		CompactStarted{}, Compacted{}, Warning{}, ErrorEvent{}, TurnFinished{}, CheckStarted{}, CheckFinished{},
		MCPServerStatus{}, NoteAdded{}, TodoUpdated{},
	}
	types := make([]string, len(evs))
	for i, e := range evs {
		types[i] = e.EventType()
	}
	return types
}

// MarshalEvent encodes an event as one JSON object whose "type" field is
// the event's name and whose "agent" names the agent it is of (the main
// agent's {"id":"main"}, or a subagent's: SubagentEvent), followed by the
// event's own fields.
func MarshalEvent(e Event) ([]byte, error) {
	who := hooks.Agent{ID: hooks.MainAgent}
	if s, ok := e.(SubagentEvent); ok {
		who, e = s.Agent, s.Event
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	typ, _ := json.Marshal(e.EventType())
	agent, err := json.Marshal(who)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(typ)+len(agent)+20)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	out = append(out, `,"agent":`...)
	out = append(out, agent...)
	if len(body) > 2 { // body is "{...}" with at least one field
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// AddedMessage is a message as it entered the conversation, as
// Config.OnMessage is told about it.
type AddedMessage struct {
	Message chat.Message
	// Prompt marks the user's prompt (not turn-end feedback from a hook).
	Prompt bool
	// Status is a tool result's status, which the message itself does
	// not carry ("" for other messages).
	Status chat.ResultStatus
}
