package agent

import (
	"errors"
	"fmt"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Status is how a Run (or Resume) ended.
type Status string

// The outcomes of a Run.
const (
	// StatusFinished: the model ended its turn and every on_turn_end hook
	// agreed.
	StatusFinished Status = "finished"
	// StatusPaused: hooks asked for decisions; Resume goes on.
	StatusPaused Status = "paused"
	// StatusCapped: a budget ran out (retry rounds, repeated feedback, or
	// the per-run request cap).
	StatusCapped Status = "capped"
	// StatusAborted: the Run ended early (cancel, hook abort or cancel, or
	// an error); on_abort hooks ran and the error says why.
	StatusAborted Status = "aborted"
)

// Outcome is what Run and Resume return alongside their error.
type Outcome struct {
	Status Status `json:"status"`
	// Pending lists the calls waiting for a decision when Status is paused.
	// A pause from on_turn_end has no pending calls.
	Pending []PendingCall `json:"pending,omitempty"`
	// Reason explains a pause, a cap or an abort.
	Reason string `json:"reason,omitempty"`
	// Text is the last assistant message's text.
	Text string `json:"text,omitempty"`
	// Usage is the token total of this Run so far.
	Usage chat.Usage `json:"usage"`
	// HookFailures counts the tool calls of this Run so far that were
	// skipped because a pre_tool_call hook failed (error, crash, timeout:
	// such hooks fail closed). Each also produced a Warning.
	HookFailures int `json:"hook_failures,omitempty"`
	// Incomplete says why the last reply is not whole ("cut at the
	// model's output token limit …", "stopped by the server's content
	// filter …"); empty when it is. A Warning said so when it came.
	Incomplete string `json:"incomplete,omitempty"`
}

// PendingCall is a tool call waiting for the user's decision.
type PendingCall struct {
	Call chat.ToolCall `json:"call"`
	// Hook is the hook that paused it and Reason its human-readable reason
	// ("edit_file wants to change main.go").
	Hook   string `json:"hook"`
	Reason string `json:"reason"`
	// Preview is what the call would do, worked out by its tool when the
	// run paused (see Previewer), so that the person deciding sees what
	// will run; nil when the Toolbox cannot tell.
	Preview *tools.Preview `json:"-"`
}

// Verdict is the user's answer to a pending call.
type Verdict uint8

// The answers to a pending call.
const (
	Approve       Verdict = iota + 1
	ApproveAlways         // approve, and add a session rule for calls like it
	Deny                  // do not run; the model is told, with the optional reason
	AbortRun              // stop the whole Run
)

var verdictNames = [...]string{Approve: "approve", ApproveAlways: "approve_always", Deny: "deny", AbortRun: "abort"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) && verdictNames[v] != "" {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", v)
}

// MarshalText writes the verdict's snake_case name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Decision answers one pending call, by call ID.
type Decision struct {
	CallID  string
	Verdict Verdict
	// Reason is passed to the model on Deny and recorded on AbortRun.
	Reason string
	// By says who decided when it was not the user, e.g. "--yes" in a
	// non-interactive run; it is reported in ToolCallDecided.
	By string
}

// Sentinel errors callers test for with errors.Is.
var (
	// ErrNotPaused: Resume was called with nothing to resume.
	ErrNotPaused = errors.New("agent: nothing to resume")
	// ErrBusy: Run or Resume was called while another is in progress or
	// while the Worker is paused (call Resume first).
	ErrBusy = errors.New("agent: worker is busy")
	// ErrUserAbort: the user answered a pending call with AbortRun.
	ErrUserAbort = errors.New("aborted by the user")
)

// HookError is returned when a hook aborted or cancelled the Run.
type HookError struct {
	Event  hooks.Event
	Hook   string
	Reason string
}

func (e *HookError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("%s hook %q stopped the run", e.Event, e.Hook)
	}
	return fmt.Sprintf("%s hook %q stopped the run: %s", e.Event, e.Hook, e.Reason)
}
