package session

import (
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
