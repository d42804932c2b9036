package session

import (
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// A conversation whose process died during a batch ends with calls no
// result answers; each gets the "interrupted" result, the answered ones
// keep theirs.
func TestCloseOpenCalls(t *testing.T) {
	calls := []chat.ToolCall{{ID: "a", Name: "bash"}, {ID: "b", Name: "read_file"}, {ID: "c", Name: "bash"}}
	msgs := []chat.Message{
		{Role: chat.RoleSystem, Content: "sys"},
		chat.UserMessage("go"),
		{Role: chat.RoleAssistant, ToolCalls: calls},
		{Role: chat.RoleTool, ToolCallID: "b", Content: "ok"},
	}
	got := CloseOpenCalls(msgs)
	if len(got) != 2 || got[0].Message.ToolCallID != "a" || got[1].Message.ToolCallID != "c" ||
		got[0].Status != chat.StatusError || got[0].Message.Role != chat.RoleTool || got[0].Message.Content != InterruptedResult {
		t.Fatalf("CloseOpenCalls = %+v", got)
	}
	for _, whole := range [][]chat.Message{
		msgs[:2], // no reply yet
		append(msgs[:2:2], chat.Message{Role: chat.RoleAssistant, Content: "done"}),
		nil,
	} {
		if got := CloseOpenCalls(whole); got != nil {
			t.Errorf("CloseOpenCalls(%+v) = %+v", whole, got)
		}
	}
}
