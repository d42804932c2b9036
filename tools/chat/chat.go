// Package chat holds the conversation types shared by the agent, the hook
// engine and the tools: messages, tool calls, tool results and usage.
// It depends on nothing else in tackle.
package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Role is who a message is from.
type Role string

// The roles of a Chat Completions conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Reasoning is what the model thought before an assistant message,
	// as the server streamed it (reasoning_content, reasoning or the text
	// of reasoning_details). It is shown, never part of the answer.
	Reasoning string `json:"reasoning,omitempty"`
	// Extra holds the assistant message's fields that go back to the
	// server verbatim with the conversation, by name: the reasoning in
	// the form the server needs it again (DeepSeek's reasoning_content,
	// OpenRouter's reasoning_details) and any field of the reply this
	// client does not know. Sent with messages that made tool calls.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
	// Images are a user message's images, sent after its text as
	// OpenAI-style image_url parts (the images tools returned, for a
	// model that takes images).
	Images []Image `json:"images,omitempty"`
}

// Image is an image for the model: its media type and its bytes.
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
	// Path is the file an image the user attached was read from
	// (absolute), and SHA256 the hex digest of its bytes: a session
	// keeps the reference, not the bytes, and reads the file again when
	// it is resumed. Empty for a tool's image.
	Path   string `json:"path,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// UserMessage returns a user message with the given text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: text} }

// ToolCall is one call the model asked for. Arguments is the raw JSON text
// exactly as the model sent it (it may be malformed).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Extra holds the call's fields this client does not know, sent back
	// verbatim with it (Gemini's extra_content.google.thought_signature).
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// ResultStatus says how a tool call ended.
type ResultStatus string

// The ways a tool call can end. Every call gets exactly one result.
const (
	StatusOK      ResultStatus = "ok"
	StatusError   ResultStatus = "error"
	StatusSkipped ResultStatus = "skipped" // a hook skipped it (plan mode, fail-closed, ...)
	StatusDenied  ResultStatus = "denied"  // the user (or piped mode) denied approval
)

// ToolResult is what the model is told about one call.
type ToolResult struct {
	CallID  string       `json:"call_id"`
	Status  ResultStatus `json:"status"`
	Content string       `json:"content"`
	// Attached is what the result carries besides its text, nil for
	// most results (a pointer, so that results stay comparable). It is
	// left out of the result's JSON (events, hooks).
	Attached *Attachments `json:"-"`
}

// Attachments are what a tool result carries besides its text.
type Attachments struct {
	// Images are the images the tool returned (an MCP tool's), which the
	// result's text describes; the Worker sends them to a model that
	// takes images in a user message after the results.
	Images []Image
}

// Images returns the images attached to the result.
func (r ToolResult) Images() []Image {
	if r.Attached == nil {
		return nil
	}
	return r.Attached.Images
}

// IsError reports whether the model should read the result as a failure.
func (r ToolResult) IsError() bool { return r.Status != StatusOK }

// Message returns the tool message that carries the result to the model.
func (r ToolResult) Message() Message {
	return Message{Role: RoleTool, ToolCallID: r.CallID, Content: r.Content}
}

// ToolSpec is a tool as the model sees it.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage `json:"parameters"`
}

// Usage counts the tokens of one or more model requests.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	// ReasoningTokens are the completion tokens spent thinking, when the
	// server says (completion_tokens_details.reasoning_tokens).
	ReasoningTokens int64 `json:"reasoning_tokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
	}
}

// OneLine puts s on one line, for a progress line, a table's cell or a
// reason written to a plain stream: every run of white space (line
// breaks, tabs and carriage returns too) becomes one space, and with max
// above 0 it is cut to max bytes as Quote cuts. (The terminal UI, which
// shows hidden characters as escapes, marks line breaks instead.)
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 {
		s = Quote(s, max)
	}
	return s
}

// Quote returns s cut to at most max bytes on a UTF-8 boundary, followed by
// "… (N more bytes)" when something was cut. It bounds what a message
// quotes back of what the model sent.
func Quote(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:cut], len(s)-cut)
}
