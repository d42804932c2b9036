// Package session stores conversations so that they survive the process:
// each run is a session, an append-only JSON Lines file under the state
// directory, grouped by workspace.
//
// The first line is a Header; every other line is a Record: a message
// exactly as it was sent to the model, a hook decision, token usage, a
// pause and the answers to it, a compaction, a run's outcome. A line is
// appended with one write(2) of the whole line to a file opened with
// O_APPEND, so a crash leaves at most a torn last line, which Load skips
// with a warning; it never loses an earlier record. Files are created
// 0600 in directories of mode 0700.
//
// A Recorder writes a Worker's run: every message as it enters the
// conversation (agent.Config.OnMessage) — the conversation the next
// request is made from; a pre_llm_request hook's change to one request is
// not part of it and is made again after a resume — and what the session
// keeps of its events (recordEvent). Loaded.Messages is then exactly what
// agent.Config.History needs to go on, and a paused record's state what
// agent.Worker.Restore needs. Records are redacted with the session's
// redactor (Writer.SetRedact), the same as tool results.
//
// The package knows nothing of a UI: the CLI records what the Worker
// reports and reads a session back to resume it.
package session

import (
	"encoding/json"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// FormatVersion is the version of the file format this package writes.
// Load refuses a file of a later version.
const FormatVersion = 1

// Header is the first line of a session file.
type Header struct {
	Format    int       `json:"format"`
	ID        string    `json:"id"`
	Tackle    string    `json:"tackle"` // tackle's version
	Workspace string    `json:"workspace"`
	Model     string    `json:"model"`
	Started   time.Time `json:"started"`
}

// Kind says what a Record holds.
type Kind string

// The kinds of record.
const (
	KindMessage    Kind = "message"    // Message: one message of the conversation
	KindDecision   Kind = "decision"   // Decision: a hook's decision
	KindUsage      Kind = "usage"      // Usage: the tokens of one model request
	KindPaused     Kind = "paused"     // Pending: the calls a run paused on
	KindAnswered   Kind = "answered"   // Answers: the answers to a pause
	KindCompaction Kind = "compaction" // Compaction: older messages replaced by a summary
	KindOutcome    Kind = "outcome"    // Outcome: how a run ended
	KindModel      Kind = "model"      // Model: the model was switched
	KindCheck      Kind = "check"      // Check: a turn-end check finished
	KindFile       Kind = "file"       // File: the model read or wrote a file through the tools
	KindRule       Kind = "rule"       // Rule: a session rule added ("approve always") or revoked
	KindNote       Kind = "note"       // Note: a note for the model, sent with the next user message
	KindTodos      Kind = "todos"      // Todos: the model set its plan (none: it cleared it)
)

// Record is one line after the header. Exactly the field its Kind names
// is set.
type Record struct {
	Kind Kind      `json:"type"`
	Time time.Time `json:"time"`

	Message *chat.Message `json:"message,omitempty"`
	// Prompt marks a message the user typed (not feedback from a hook
	// or check): the turns of a session are its prompts.
	Prompt bool `json:"prompt,omitempty"`
	// Status is a tool result's status (ok, error, skipped, denied),
	// which its message does not carry.
	Status   chat.ResultStatus `json:"status,omitempty"`
	Decision *hooks.Decision   `json:"decision,omitempty"`
	Usage    *chat.Usage       `json:"usage,omitempty"`
	// Context and Window go with Usage: the conversation's size in
	// tokens after the reply and the model's context window
	// (agent.UsageReport), 0 when not known; a resumed session shows its
	// context use from them before its first request.
	Context int64               `json:"context_tokens,omitempty"`
	Window  int64               `json:"context_window,omitempty"`
	Pending []agent.PendingCall `json:"pending,omitempty"`
	// Paused is where a paused run stopped (with Pending, or alone for a
	// pause at turn end): what another process needs to go on from it
	// (agent.Worker.Restore).
	Paused     *agent.PausedRun     `json:"paused,omitempty"`
	Answers    []Answer             `json:"answers,omitempty"`
	Compaction *Compaction          `json:"compaction,omitempty"`
	Outcome    *Outcome             `json:"outcome,omitempty"`
	Model      string               `json:"model,omitempty"`
	Check      *agent.CheckFinished `json:"check,omitempty"`
	// File is how a file was when the model last read or wrote it: a
	// later process goes on knowing what the model has seen
	// (Loaded.Files, tools.Registry.SetFiles).
	File *tools.FileStamp `json:"file,omitempty"`
	// Rule is a session rule the user gave ("approve always") or took
	// back (/permissions): a session continued later has the rules in
	// force when it stopped (Loaded.SessionRules).
	Rule *RuleChange `json:"rule,omitempty"`
	// Note is a note for the model that waits for the next user message
	// (agent.NoteAdded): a session continued before that message sends
	// it then (Loaded.PendingNotes).
	Note string `json:"note,omitempty"`
	// Todos is the plan the model set with the todo tool: the whole list,
	// which replaces the one before (empty: the plan was cleared).
	Todos []tools.TodoItem `json:"todos,omitempty"`
}

// RuleChange is a session rule added or revoked.
type RuleChange struct {
	Rule    string `json:"rule"` // as approval.Rule writes it: "bash(git status *)"
	Revoked bool   `json:"revoked,omitempty"`
}

// Answer is the answer to one paused call.
type Answer struct {
	CallID  string `json:"call_id"`
	Verdict string `json:"verdict"` // as agent.Verdict writes it: "approve", "approve_always", "deny", "abort"
	Reason  string `json:"reason,omitempty"`
	By      string `json:"by,omitempty"` // who answered: "user", "--yes", ...
}

// Compaction records that the conversation was compacted: the whole
// conversation after it (system prompt, summary, the turns kept verbatim,
// with old tool outputs shortened) replaces every message before it when
// the session is loaded. A Writer records it as Parts: the messages it
// kept as they were, by their place in the conversation before, and the
// new ones whole (a session compacted nine times held nine copies of the
// conversation: half of its file). Messages, the whole conversation, is
// what a Recorder is given and what older files hold.
type Compaction struct {
	Messages []chat.Message  `json:"messages,omitempty"`
	Parts    []CompactedPart `json:"parts,omitempty"`
	// Summary is the summary message's text; Replaced counts the messages
	// it stands for and Pruned the tool outputs shortened to a stub.
	Summary  string `json:"summary,omitempty"`
	Replaced int    `json:"replaced"`
	Pruned   int    `json:"pruned,omitempty"`
	// Focus is what the user asked the summary to keep (/compact focus).
	Focus string `json:"focus,omitempty"`
}

// CompactedPart is a run of a compacted conversation: messages From to
// To (not included) of the conversation before the compaction, or one
// Message.
type CompactedPart struct {
	From    int           `json:"from,omitempty"`
	To      int           `json:"to,omitempty"`
	Message *chat.Message `json:"message,omitempty"`
}

// Outcome is how one run of the session ended.
type Outcome struct {
	Status string     `json:"status"` // as agent.Status writes it
	Reason string     `json:"reason,omitempty"`
	Usage  chat.Usage `json:"usage"`
	// Turns counts the prompts of the session so far, so that a listing
	// reads it from the end of the file.
	Turns int `json:"turns"`
}

func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
