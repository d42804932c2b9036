//go:build unix

package process_test

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/tools/chat"
)

// What a server writes besides answers: each line that is not the answer
// to a request in flight is either ignored (and noted in its log) or a
// failure of the requests in flight, named after the server.
func TestServerLines(t *testing.T) {
	for _, tt := range []struct {
		name, raw string
		fails     string // "" when the request is answered
		logged    string
	}{
		{"a notification from the server", `{"jsonrpc":"2.0","method":"hook.log","params":{"msg":"hi"}}`, "", `the server sent "hook.log", which tackle does not take: ignored`},
		{"an answer nobody waits for", `{"jsonrpc":"2.0","id":99999,"result":{"action":"skip"}}`, "", "an answer to request 99999, which no longer waits"},
		{"an answer without an id", `{"jsonrpc":"2.0","result":{"action":"skip"}}`, `a response needs the "id" of tackle's request`, ""},
		{"result and error both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, `needs exactly one of "result" and "error"`, ""},
		{"an error about a message of tackle's", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, "it answered with error -32700: parse error (id null)", ""},
		{"another protocol version", `{"jsonrpc":"1.0","id":2,"result":{}}`, "stdout is for JSON-RPC messages only", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := serve(t, process.Spec{}, nil)
			got, _, _ := f.preTool(directive(map[string]any{"raw": tt.raw, "answer": map[string]string{"action": "pause", "reason": "answered"}}))
			switch {
			case tt.fails == "" && got.Reason != "answered":
				t.Errorf("got %+v, want the answer", got)
			case tt.fails != "" && (got.Action != hooks.ToolSkip || !strings.HasPrefix(got.Reason, `hook "srv" failed: `) || !strings.Contains(got.Reason, tt.fails)):
				t.Errorf("got %+v, want a failure with %q", got, tt.fails)
			}
			f.close()
			if tt.logged != "" && !strings.Contains(f.serverLog(), tt.logged) {
				t.Errorf("log:\n%s", f.serverLog())
			}
		})
	}
}

// A request from the server is answered with a JSON-RPC error.
func TestServerRequestsAreRefused(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	f.preTool(directive(map[string]any{"raw": `{"jsonrpc":"2.0","id":"q1","method":"tackle.ask","params":{}}`}))
	f.close()
	var refused bool
	for _, l := range f.lines() {
		refused = refused || l == `{"jsonrpc":"2.0","id":"q1","error":{"code":-32601,"message":"tackle takes no requests from hook servers: tackle.ask"}}`
	}
	if !refused {
		t.Errorf("lines received:\n%s", strings.Join(f.lines(), "\n"))
	}
}

func TestOverlongLineFailsTheRequest(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	got, _, _ := f.preTool(`{"do":"long"}`)
	if got.Action != hooks.ToolSkip || !strings.Contains(got.Reason, "got a line longer than 32 MiB") {
		t.Errorf("got %+v", got)
	}
	// The stream goes on after the line.
	if got, _, _ := f.preTool(answer(`{"action":"pause","reason":"next"}`)); got.Reason != "next" {
		t.Errorf("after the long line: %+v", got)
	}
}

func TestRegisterRefusesATakenName(t *testing.T) {
	reg := hooks.NewRegistry()
	reg.PreToolCall(hooktest.PreTool("approval", nil))
	set, err := process.Start(t.Context(), []process.Spec{{Name: "approval", Command: []string{serverBin}}},
		process.Options{Workdir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	err = set.Register(reg)
	if err == nil || !strings.Contains(err.Error(), `process hook server "approval": "approval" is already the name of a pre_tool_call hook`) {
		t.Errorf("Register = %v", err)
	}
	if n := reg.Len(hooks.OnTurnEnd); n != 0 {
		t.Errorf("%d on_turn_end hooks registered: Register must register none on an error", n)
	}
	in := &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash"}}
	if got, _ := reg.RunPreToolCall(t.Context(), in, 0, nil); got != (hooks.PreToolResult{}) {
		t.Errorf("got %+v", got)
	}
}
