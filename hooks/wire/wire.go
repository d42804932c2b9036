// Package wire holds the JSON forms that hooks running outside tackle's
// process read and write: command hooks (one JSON object on stdin) and
// process hooks (the params of JSON-RPC requests) get the same inputs, and
// their answers share the same changes. docs/hooks.md describes them for
// users.
//
// It imports only tools/chat, so that every hook runtime can use it.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tackle-dev/tackle/tools/chat"
)

// ---- inputs ----

// Header starts every input: the event's snake_case name, the
// workspace's absolute path and the agent whose turn it is.
type Header struct {
	Event     string `json:"event"`
	Workspace string `json:"workspace"`
	Agent     Agent  `json:"agent"`
}

// Agent names the agent whose turn a hook runs in (hooks.Agent): "main",
// or a subagent with the agent that started it and its kind.
type Agent struct {
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Type   string `json:"type,omitempty"`
}

// Call is a tool call.
type Call struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the arguments object, or the raw text as a JSON string
	// when the model sent something that is not JSON.
	Arguments json.RawMessage `json:"arguments"`
}

// Message is a message of the conversation.
type Message struct {
	Role       chat.Role `json:"role"`
	Content    string    `json:"content"`
	ToolCalls  []Call    `json:"tool_calls,omitempty"`
	ToolCallID string    `json:"tool_call_id,omitempty"`
}

// Result is a tool result.
type Result struct {
	Status  chat.ResultStatus `json:"status"`
	Content string            `json:"content"`
}

// PromptInput is the input of on_prompt_submit.
type PromptInput struct {
	Header
	Prompt string `json:"prompt"`
}

// RequestInput is the input of pre_llm_request.
type RequestInput struct {
	Header
	Model    string    `json:"model"`
	Request  int       `json:"request"`
	Messages []Message `json:"messages"`
}

// PreToolInput is the input of pre_tool_call.
type PreToolInput struct {
	Header
	ToolCall Call `json:"tool_call"`
}

// PostToolInput is the input of post_tool_call.
type PostToolInput struct {
	Header
	ToolCall Call   `json:"tool_call"`
	Result   Result `json:"result"`
}

// TurnEndInput is the input of on_turn_end.
type TurnEndInput struct {
	Header
	Final    string    `json:"final"`
	Round    int       `json:"round"`
	Messages []Message `json:"messages"`
}

// CompactInput is the input of pre_compact.
type CompactInput struct {
	Header
	Trigger     string    `json:"trigger"` // auto, overflow or manual
	Focus       string    `json:"focus,omitempty"`
	Summary     string    `json:"summary"`
	Replaced    int       `json:"replaced"`
	Pruned      int       `json:"pruned"`
	Tokens      int64     `json:"tokens"`
	TokensAfter int64     `json:"tokens_after"`
	Window      int64     `json:"window"`
	Messages    []Message `json:"messages"`
}

// AbortInput is the input of on_abort.
type AbortInput struct {
	Header
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
}

// NewCall is c's JSON form.
func NewCall(c chat.ToolCall) Call {
	return Call{ID: c.ID, Name: c.Name, Arguments: ArgumentsJSON(c.Arguments)}
}

// ArgumentsJSON is args itself if it is JSON, else args as a JSON string.
func ArgumentsJSON(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(args) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// NewMessages is the JSON form of a conversation.
func NewMessages(ms []chat.Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			out[i].ToolCalls = make([]Call, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				out[i].ToolCalls[j] = NewCall(c)
			}
		}
	}
	return out
}

// Encode is v as one line of JSON (ending in a newline), with <, > and &
// left as they are.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ---- changes an answer may carry ----

// Present reports whether an optional field of an answer was given: raw is
// neither absent nor null.
func Present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// Arguments reads replacement arguments, which must be a JSON object, and
// returns them compacted.
func Arguments(raw json.RawMessage) (string, error) {
	a := bytes.TrimSpace(raw)
	if len(a) == 0 || a[0] != '{' {
		return "", fmt.Errorf(`"arguments" must be a JSON object, got %s`, Head(a))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, a); err != nil {
		return "", fmt.Errorf(`"arguments": %w`, err)
	}
	return b.String(), nil
}

// TurnMessages reads the "messages" of continue_with_messages: strings
// (user messages) or {"role", "content"} objects with role user or
// system, at least one, none empty.
func TurnMessages(raw json.RawMessage) ([]chat.Message, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, errors.New(`continue_with_messages needs "messages": a non-empty array of strings or {"role", "content"} objects`)
	}
	msgs := make([]chat.Message, len(items))
	for i, item := range items {
		var m struct {
			Role    chat.Role `json:"role"`
			Content string    `json:"content"`
		}
		switch item[0] {
		case '"':
			if err := json.Unmarshal(item, &m.Content); err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
		case '{':
			if err := json.Unmarshal(item, &m); err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
		default:
			return nil, fmt.Errorf(`messages[%d]: want a string or a {"role", "content"} object, got %s`, i, Head(item))
		}
		switch m.Role {
		case "":
			m.Role = chat.RoleUser
		case chat.RoleUser, chat.RoleSystem:
		default:
			return nil, fmt.Errorf(`messages[%d]: role %q (want "user" or "system")`, i, m.Role)
		}
		if strings.TrimSpace(m.Content) == "" {
			return nil, fmt.Errorf("messages[%d] is empty", i)
		}
		msgs[i] = chat.Message{Role: m.Role, Content: m.Content}
	}
	return msgs, nil
}

// Head quotes the start of b for an error message.
func Head(b []byte) string {
	const n = 200
	s := string(bytes.TrimSpace(b))
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}
