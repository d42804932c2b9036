package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// commandWorker is a Worker on a real workspace and tools whose
// pre_tool_call hook pauses every call (as the approval policy does for
// bash in the default mode), against a server that must not be asked.
func commandWorker(t *testing.T, posts *[]string, onEvent ...func(agent.Event)) (*agent.Worker, string, *llmtest.Server) {
	t.Helper()
	dir := t.TempDir()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg := hooks.NewRegistry()
	reg.PreToolCall(hooktest.PreTool("ask", func(*hooks.PreToolInput) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "bash asks"}
	}))
	reg.PostToolCall(hooktest.Post("seen", func(in *hooks.PostToolInput) hooks.PostToolResult {
		*posts = append(*posts, in.Call.Name)
		return hooks.PostToolResult{}
	}))
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("never asked")))
	cfg := agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", System: "sys", Tools: tools.NewRegistry(ws), Hooks: reg,
	}
	if len(onEvent) > 0 {
		cfg.OnEvent = onEvent[0]
	}
	w := agent.New(cfg)
	return w, ws.Dir(), srv
}

// TestRunCommandGoesThroughApproval: a command the user typed pauses for
// approval like a model's call, runs once approved (post_tool_call hooks
// see it), and enters the conversation as the user's message with its
// output; no model request is made.
func TestRunCommandGoesThroughApproval(t *testing.T) {
	var posts []string
	w, dir, srv := commandWorker(t, &posts)
	out, err := w.RunCommand(t.Context(), "echo hello > out.txt && cat out.txt")
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Call.Name != "bash" {
		t.Fatalf("RunCommand = %+v, %v; want a pause on the bash call", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); !os.IsNotExist(err) {
		t.Fatal("the command ran before it was approved")
	}
	out, err = w.Resume(t.Context(), []agent.Decision{{CallID: out.Pending[0].Call.ID, Verdict: agent.Approve}})
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	msgs := w.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleUser || !strings.Contains(last.Content, "$ echo hello > out.txt && cat out.txt") || !strings.Contains(last.Content, "hello") {
		t.Errorf("the conversation ends with %+v", last)
	}
	for _, m := range msgs {
		if m.Role == chat.RoleTool || len(m.ToolCalls) > 0 {
			t.Errorf("a tool message or call entered the conversation: %+v", m)
		}
	}
	if len(posts) != 1 {
		t.Errorf("post_tool_call hooks saw %v, want the one call", posts)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// TestRunCommandDenied: a denied command does not run, and the model is
// told so with the next prompt.
func TestRunCommandDenied(t *testing.T) {
	var posts []string
	w, dir, _ := commandWorker(t, &posts)
	out, _ := w.RunCommand(t.Context(), "touch made.txt")
	out, err := w.Resume(t.Context(), []agent.Decision{{CallID: out.Pending[0].Call.ID, Verdict: agent.Deny, Reason: "not now"}})
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
		t.Error("a denied command ran")
	}
	msgs := w.Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "it did not run") {
		t.Errorf("the conversation ends with %+v", last)
	}
}

// TestRunCommandIsNotTheModels: a user's command is reported as a tool
// call that ran, never as an assistant message (hook servers and
// stream-json would read it as the model's).
func TestRunCommandIsNotTheModels(t *testing.T) {
	var posts []string
	var events []agent.Event
	w, _, _ := commandWorker(t, &posts, func(e agent.Event) { events = append(events, e) })
	out, _ := w.RunCommand(t.Context(), "true")
	if _, err := w.Resume(t.Context(), []agent.Decision{{CallID: out.Pending[0].Call.ID, Verdict: agent.Approve}}); err != nil {
		t.Fatal(err)
	}
	finished := 0
	for _, e := range events {
		switch e := e.(type) {
		case agent.AssistantMessage:
			t.Errorf("the user's command was reported as the model's message: %+v", e)
		case agent.ToolCallFinished:
			finished++
		}
	}
	if finished != 1 {
		t.Errorf("%d ToolCallFinished events, want 1", finished)
	}
}
