package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestToolsJoiningMidRun: a tool that joins the registry while a run is
// under way (an MCP server became ready) is offered from the next
// request on; a call of it in the reply to a request that did not offer
// it is an unknown tool, as the model was never told of it.
func TestToolsJoiningMidRun(t *testing.T) {
	t.Parallel()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg := tools.NewRegistry(ws)
	late := llmtest.Call("call_early", "mcp__srv__late", `{}`)
	script := llmtest.NewScript(
		llmtest.ToolCalls(late),
		llmtest.ToolCalls(llmtest.Call("call_late", "mcp__srv__late", `{}`)),
		llmtest.Text("Done."),
	)
	script.Responses[0].Hold = true
	srv := llmtest.NewServer(t, script)
	w := agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", Tools: reg,
	})
	done := make(chan agent.Outcome)
	go func() {
		out, err := w.Run(context.Background(), "go")
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	if err := srv.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	tool, err := tools.NewRemote(tools.Remote{Name: "mcp__srv__late", Server: "srv", Call: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.OK("late but here"), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Replace("srv", []*tools.Tool{tool}); err != nil {
		t.Fatal(err)
	}
	srv.Release()
	if out := <-done; out.Status != agent.StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	reqs := srv.Requests()
	if slices.Contains(reqs[0].Tools, "mcp__srv__late") || !slices.Contains(reqs[1].Tools, "mcp__srv__late") {
		t.Errorf("tools offered: %v, then %v", reqs[0].Tools, reqs[1].Tools)
	}
	if got := toolMessage(t, reqs[1].Messages, "call_early"); !strings.Contains(got.Content, `Unknown tool "mcp__srv__late"`) {
		t.Errorf("a call of a tool the request did not offer = %q", got.Content)
	}
	if got := toolMessage(t, reqs[2].Messages, "call_late"); got.Content != "late but here" || got.Role != chat.RoleTool {
		t.Errorf("the call once offered = %+v", got)
	}
}
