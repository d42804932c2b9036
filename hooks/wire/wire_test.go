package wire_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks/wire"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestNewCallKeepsArgumentsOrTheirText(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{
		`{"path":"a.go"}`: `{"path":"a.go"}`,
		`{"path":`:        `"{\"path\":"`,
		`<b> & c`:         `"<b> & c"`,
	} {
		if got := string(wire.NewCall(chat.ToolCall{Arguments: args}).Arguments); got != want {
			t.Errorf("arguments %q → %s, want %s", args, got, want)
		}
	}
}

func TestConversationRoundTrips(t *testing.T) {
	t.Parallel()
	conv := []chat.Message{
		{Role: chat.RoleSystem, Content: "be brief"},
		{Role: chat.RoleUser, Content: "list"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{ID: "c1", Name: "list_dir", Arguments: `{"path":"."}`},
			{ID: "c2", Name: "bash", Arguments: `not json`},
		}},
		{Role: chat.RoleTool, ToolCallID: "c2", Content: "error"},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: "a.go"},
		{Role: chat.RoleAssistant, Content: "done"},
	}
	b, err := json.Marshal(wire.NewMessages(conv))
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.Conversation(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, conv) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, conv)
	}
}

func TestConversationRefusesWhatAServerWould(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, json, err string }{
		{"not an array", `{"role":"user"}`, "want an array"},
		{"empty", `[]`, `"messages" is empty`},
		{"unknown role", `[{"role":"developer","content":"x"}]`, `messages[0]: role "developer"`},
		{"unanswered call", `[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","name":"bash","arguments":{}}]}]`, `tool calls "c1" of the last assistant message`},
		{"answer missing before the next message", `[{"role":"assistant","tool_calls":[{"id":"c1","name":"bash","arguments":{}}]},{"role":"user","content":"x"}]`, `messages[1]: the tool calls "c1"`},
		{"stray tool message", `[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c9","content":"y"}]`, `messages[1]: tool message for "c9"`},
		{"answered twice", `[{"role":"assistant","tool_calls":[{"id":"c1","name":"bash","arguments":{}}]},{"role":"tool","tool_call_id":"c1","content":"y"},{"role":"tool","tool_call_id":"c1","content":"y"}]`, `messages[2]: tool message for "c1"`},
		{"calls on a user message", `[{"role":"user","content":"x","tool_calls":[{"id":"c1","name":"bash"}]}]`, "a user message cannot have tool_calls"},
		{"call without a name", `[{"role":"assistant","tool_calls":[{"id":"c1","arguments":{}}]}]`, `tool_calls[0]: "name" is empty`},
		{"arguments an array", `[{"role":"assistant","tool_calls":[{"id":"c1","name":"bash","arguments":[1]}]}]`, `"arguments" must be a JSON object`},
	} {
		_, err := wire.Conversation(json.RawMessage(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.err)
		}
	}
}
