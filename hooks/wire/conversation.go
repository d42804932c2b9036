package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Conversation reads a replacement conversation (the "messages" of a
// changed model request) and checks that a Chat Completions server can
// take it: at least one message; roles system, user, assistant or tool;
// tool calls only on assistant messages, each with an id and a name and
// arguments that are a JSON object (or the raw text as a JSON string);
// every call answered by exactly one tool message that follows its
// assistant message before any other message, and no other tool messages.
func Conversation(raw json.RawMessage) ([]chat.Message, error) {
	var in []Message
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf(`"messages": want an array of {"role", "content", "tool_calls"?, "tool_call_id"?} objects: %w`, err)
	}
	if len(in) == 0 {
		return nil, errors.New(`"messages" is empty`)
	}
	out := make([]chat.Message, len(in))
	open := map[string]bool{} // calls of the last assistant message not yet answered
	for i, m := range in {
		if len(open) > 0 && m.Role != chat.RoleTool {
			return nil, fmt.Errorf("messages[%d]: the tool calls %s of an earlier assistant message have no tool message answering them", i, idList(open))
		}
		msg, err := conversationMessage(m, open)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		out[i] = msg
	}
	if len(open) > 0 {
		return nil, fmt.Errorf("the tool calls %s of the last assistant message have no tool message answering them", idList(open))
	}
	return out, nil
}

// conversationMessage checks one message of a conversation against the
// calls still open before it, which it updates.
func conversationMessage(m Message, open map[string]bool) (chat.Message, error) {
	msg := chat.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	switch m.Role {
	case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant:
		if m.ToolCallID != "" {
			return msg, fmt.Errorf("a %s message has no tool_call_id", m.Role)
		}
	case chat.RoleTool:
		if !open[m.ToolCallID] {
			return msg, fmt.Errorf("tool message for %q, which is not an unanswered call of the assistant message before it", m.ToolCallID)
		}
		delete(open, m.ToolCallID)
	default:
		return msg, fmt.Errorf(`role %q (want "system", "user", "assistant" or "tool")`, m.Role)
	}
	if len(m.ToolCalls) > 0 && m.Role != chat.RoleAssistant {
		return msg, fmt.Errorf("a %s message cannot have tool_calls", m.Role)
	}
	for j, c := range m.ToolCalls {
		call, err := toolCall(c)
		if err != nil {
			return msg, fmt.Errorf("tool_calls[%d]: %w", j, err)
		}
		if open[call.ID] {
			return msg, fmt.Errorf("tool_calls[%d]: the id %q is used twice", j, call.ID)
		}
		open[call.ID] = true
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return msg, nil
}

// toolCall reads a tool call of a replacement conversation.
func toolCall(c Call) (chat.ToolCall, error) {
	call := chat.ToolCall{ID: c.ID, Name: c.Name}
	switch {
	case c.ID == "":
		return call, errors.New(`"id" is empty`)
	case c.Name == "":
		return call, errors.New(`"name" is empty`)
	}
	a := bytes.TrimSpace(c.Arguments)
	switch {
	case len(a) == 0 || bytes.Equal(a, []byte("null")):
		call.Arguments = "{}"
	case a[0] == '"':
		if err := json.Unmarshal(a, &call.Arguments); err != nil {
			return call, fmt.Errorf(`"arguments": %w`, err)
		}
	default:
		args, err := Arguments(a)
		if err != nil {
			return call, err
		}
		call.Arguments = args
	}
	return call, nil
}

func idList(ids map[string]bool) string {
	q := slices.Sorted(maps.Keys(ids))
	for i, id := range q {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}
