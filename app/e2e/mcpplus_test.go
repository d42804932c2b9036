package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/mcp/mcptest"
)

// TestE2EMCPPipedFirstRequest: a piped run waits for its MCP servers, so
// its first request offers their tools (a slow server's too) and carries
// their instructions; a call works at once. The server's environment
// lacks tackle's OPENAI_API_KEY, roots/list answers the workspace, a
// file the filesystem-like tool reads reaches the model once, and an
// image reaches it as an image in the next request, never as base64
// text.
func TestE2EMCPPipedFirstRequest(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{
		{Content: "Using the server.", ToolCalls: []llmtest.ToolCall{
			{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"first"}`},
			{ID: "call_env", Name: "mcp__test__env", Arguments: `{}`},
			{ID: "call_roots", Name: "mcp__test__roots", Arguments: `{}`},
			{ID: "call_read", Name: "mcp__test__read_text", Arguments: `{"text":"package main\n\nfunc main() {}\n"}`},
			{ID: "call_media", Name: "mcp__test__read_media", Arguments: `{"bytes":300000}`},
		}},
		{Content: "Done."},
	}})
	e.config(mcpConfig(map[string]any{"test": stdioServer(map[string]string{
		"MCPSERVER_DELAY":        "300ms", // slow to start: the first request waits for it
		"MCPSERVER_INSTRUCTIONS": "Say things with echo.",
	})}))
	r := e.run("-p", "use the server", "--yes", "--output", "stream-json")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := e.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !slices.Contains(reqs[0].Tools, "mcp__test__echo") {
		t.Errorf("the first request does not offer the server's tools: %v", reqs[0].Tools)
	}
	if sys := reqs[0].Messages[0].Content; !strings.Contains(sys, "## test (tools mcp__test__*)\n\nSay things with echo.") {
		t.Errorf("the system prompt lacks the server's instructions:\n%s", sys)
	}
	if got := e.toolResult(1, "call_echo"); got != "echo: first" {
		t.Errorf("echo = %q", got)
	}
	env := strings.Fields(e.toolResult(1, "call_env"))
	if slices.Contains(env, "OPENAI_API_KEY") || slices.Contains(env, "OPENAI_BASE_URL") || !slices.Contains(env, "PATH") || !slices.Contains(env, "MCPSERVER_DELAY") {
		t.Errorf("the server's environment: %v", env)
	}
	root, err := filepath.EvalSymlinks(e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.toolResult(1, "call_roots"); got != "file://"+root+" "+filepath.Base(root) {
		t.Errorf("roots = %q, want the workspace %s", got, root)
	}
	if got := e.toolResult(1, "call_read"); got != "package main\n\nfunc main() {}\n" {
		t.Errorf("the file reached the model as %q", got)
	}
	if got := e.toolResult(1, "call_media"); got != "[image: image/png, 293.0 KiB]" {
		t.Errorf("the image's result = %.200q", got)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != chat.RoleUser || len(last.Images) != 1 || len(last.Images[0].Data) != 300000 || !strings.Contains(last.Content, "call_media (mcp__test__read_media): 1 image") {
		t.Errorf("the message after the results: %q with %d images", last.Content, len(last.Images))
	}
}

// TestE2EMCPInterruptWhileWaiting: a piped run waiting for a server that
// does not answer stops at an interrupt, without a model request, and
// names the server that never became ready.
func TestE2EMCPInterruptWhileWaiting(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{{Content: "Never asked."}}})
	starts := mcptest.Fifo(t, "starts")
	e.config(mcpConfig(map[string]any{"slow": stdioServer(map[string]string{"MCPSERVER_DELAY": "10m", "MCPSERVER_STARTS": starts})}))
	r := e.start("-p", "go", "--output", "stream-json")
	mcptest.ReadLine(t, starts) // it runs, and waits 10 minutes before it answers
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(); code != app.ExitInterrupted {
		t.Errorf("exit %d, want %d", code, app.ExitInterrupted)
	}
	if n := len(e.requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
	if !strings.Contains(r.stderr.String(), "MCP server slow never became ready") {
		t.Errorf("stderr:\n%s", r.stderr.String())
	}
}

// TestE2ETUIMCPResourcesPromptsProgress: in the terminal UI, the @ menu
// offers a server's resource and @server:uri attaches it to the message;
// /mcp__server__prompt sends the server's prompt; a running call's
// progress shows on its tool line until it ends.
func TestE2ETUIMCPResourcesPromptsProgress(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{
		{Content: "It greets you."},
		{Content: "Reviewing.", ToolCalls: []llmtest.ToolCall{{ID: "call_progress", Name: "mcp__test__progress", Arguments: `{}`}}},
		{Content: "The review is done."},
	}})
	gate := mcptest.Fifo(t, "gate")
	e.config(mcpConfig(map[string]any{"test": stdioServer(map[string]string{"MCPSERVER_PROGRESS_GATE": gate})}))
	s := e.startTUI("--allow", "mcp__test__progress")

	// The resource, offered once the server is ready.
	s.typeText("what does @greet")
	s.waitFor("@test:note://greeting")
	s.keys("Tab")
	s.typeText("say?")
	s.keys("Enter")
	s.waitFor("It greets you.")
	if screen := s.capture(true); !strings.Contains(screen, "attached test:note://greeting (24 bytes)") {
		t.Errorf("the transcript does not say the resource was attached:\n%s", screen)
	}
	reqs := e.requests()
	msg := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	if want := "what does @test:note://greeting say?\n\n<resource server=\"test\" uri=\"note://greeting\">\nHello from the resource.\n</resource>"; msg != want {
		t.Errorf("the message sent:\n%q\nwant\n%q", msg, want)
	}

	// The prompt, whose answer makes a call that reports its progress.
	s.waitUntil("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc to interrupt") })
	s.typeText("/mcp__test__review main.go")
	s.keys("Enter")
	s.waitFor("1/2 halfway")
	w, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	screen := s.waitFor("The review is done.")
	if strings.Contains(screen, "halfway") {
		t.Errorf("the progress stays after the call ended:\n%s", screen)
	}
	reqs = e.requests()
	if got := reqs[1].Messages[len(reqs[1].Messages)-1].Content; got != "Review main.go carefully." {
		t.Errorf("the prompt sent: %q", got)
	}
	if got := e.toolResult(2, "call_progress"); got != "progressed" {
		t.Errorf("progress = %q", got)
	}
	s.waitUntil("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc to interrupt") })
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Errorf("exit status %d", code)
	}
}
