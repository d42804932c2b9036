package session

import (
	"fmt"
	"slices"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// InterruptedResult is the result a call gets when tackle stopped (it was
// killed, the machine went down) before the call had its result.
const InterruptedResult = "tackle stopped before this call finished (the process ended): it may have run in part, in full or not at all. Check its effects before you run it again."

// CloseOpenCalls returns a result for each call of the last assistant
// message of msgs that has none: a conversation whose process died
// during a tool call ends with calls no result answers, which a model
// refuses. Appended to msgs (and recorded), they make it whole again.
// A run that paused on the calls is not closed this way: it is resumed
// (Loaded.LastPause).
func CloseOpenCalls(msgs []chat.Message) []agent.AddedMessage {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range msgs[last+1:] {
		if m.Role == chat.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var out []agent.AddedMessage
	for _, c := range msgs[last].ToolCalls {
		if !answered[c.ID] {
			res := chat.ToolResult{CallID: c.ID, Status: chat.StatusError, Content: InterruptedResult}
			out = append(out, agent.AddedMessage{Message: res.Message(), Status: res.Status})
		}
	}
	return out
}

// LostResult is the result a call gets when the session file lost the
// record of its result (a line that could not be read).
const LostResult = "The result of this call was lost: the session file could not be read back whole. The call may have run; check its effects before you run it again."

// Repair returns msgs made whole for a model: every tool call of an
// assistant message answered by exactly one tool message, following it
// before any other message; no tool message that answers no call. A
// session file with a line that could not be read (a skipped result, a
// skipped assistant message) leaves a conversation that strict servers
// refuse, and then the session could not go on at all. A call whose
// result is missing gets LostResult; a tool message that answers no open
// call is dropped. The calls of the last assistant message may stay open
// (a run that paused on them, or a process that died during them: see
// CloseOpenCalls). notes says what was repaired, one line each; msgs is
// not changed.
func Repair(msgs []chat.Message) (_ []chat.Message, notes []string) {
	out := make([]chat.Message, 0, len(msgs))
	var open []chat.ToolCall // the calls of the last assistant message not answered yet
	var answered []string    // and those answered
	for _, m := range msgs {
		if m.Role == chat.RoleTool {
			i := slices.IndexFunc(open, func(c chat.ToolCall) bool { return c.ID == m.ToolCallID })
			if i < 0 {
				why := "no call before it asks for it (its assistant message was lost)"
				if slices.Contains(answered, m.ToolCallID) {
					why = "its call was answered already"
				}
				notes = append(notes, fmt.Sprintf("dropped a result for call %q: %s", m.ToolCallID, why))
				continue
			}
			answered = append(answered, m.ToolCallID)
			open = slices.Delete(open, i, i+1)
			out = append(out, m)
			continue
		}
		for _, c := range open {
			res := chat.ToolResult{CallID: c.ID, Status: chat.StatusError, Content: LostResult}
			out = append(out, res.Message())
			notes = append(notes, fmt.Sprintf("call %q (%s) had lost its result: the model is told so", c.ID, c.Name))
		}
		open, answered = nil, nil
		if m.Role == chat.RoleAssistant {
			open = slices.Clone(m.ToolCalls)
		}
		out = append(out, m)
	}
	return out, notes
}
