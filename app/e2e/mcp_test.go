package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/child/childtest"
	"github.com/tackle-dev/tackle/tools/mcp/mcptest"
)

// mcpConfig is a user config whose mcpServers are servers (JSON).
func mcpConfig(servers map[string]any) string {
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	return string(b)
}

// stdioServer is the config entry of the test MCP server over stdio.
func stdioServer(env map[string]string) map[string]any {
	return map[string]any{"command": mcpServerBin, "env": env}
}

// mcpScript is a script whose first reply waits (hold) until the test
// has seen the MCP servers ready and then lists the workspace, so that
// the second request offers their tools; the second reply makes calls,
// the third answers.
func mcpScript(calls ...llmtest.ToolCall) llmtest.Script {
	return llmtest.Script{Responses: []llmtest.Response{
		{Hold: true, Content: "Looking around.", ToolCalls: []llmtest.ToolCall{{ID: "call_ls", Name: "list_dir", Arguments: `{}`}}},
		{Content: "Calling the servers.", ToolCalls: calls},
		{Content: "Done."},
	}}
}

// running is tackle running in the background, its stdout read line by
// line (stream-json).
type running struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	stdout bytes.Buffer // every line, once read
	seen   []string     // the lines read
	stderr bytes.Buffer
	done   chan struct{}
	code   int
}

// start runs tackle in the background.
func (e *e2e) start(args ...string) *running {
	e.t.Helper()
	r := &running{t: e.t, cmd: e.command(args...), lines: make(chan string, 1000), done: make(chan struct{})}
	r.cmd.Stderr = &r.stderr
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	e.t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			r.cmd.Process.Kill()
			r.cmd.Wait()
		}
	})
	return r
}

// waitLine returns the first line of stdout, read so far or from now
// on, that contains every part; it fails the test if tackle's stdout
// ends first.
func (r *running) waitLine(parts ...string) string {
	r.t.Helper()
	for _, line := range r.seen {
		if containsAll(line, parts...) {
			return line
		}
	}
	for line := range r.lines {
		r.stdout.WriteString(line + "\n")
		r.seen = append(r.seen, line)
		if containsAll(line, parts...) {
			return line
		}
	}
	r.wait()
	r.t.Fatalf("tackle's stdout ended without a line with %q\nstdout:\n%s\nstderr:\n%s", parts, r.stdout.String(), r.stderr.String())
	return ""
}

// waitReady reads stdout until each server has said it is ready
// (stream-json's mcp_server events, in any order).
func (r *running) waitReady(servers ...string) {
	r.t.Helper()
	for _, s := range servers {
		r.waitLine(`"type":"mcp_server"`, `"server":"`+s+`"`, `"state":"ready"`)
	}
}

// wait reads the rest of stdout and waits for tackle to exit.
func (r *running) wait() int {
	r.t.Helper()
	for line := range r.lines {
		r.stdout.WriteString(line + "\n")
	}
	err := r.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		r.t.Fatalf("tackle: %v", err)
	}
	r.t.Logf("tackle → exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout.String(), r.stderr.String())
	return r.code
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// pids reads a file of pids, one per line.
func pids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestE2EMCPCalls: a stdio server and a streamable-HTTP server (its
// token from the environment); their tools reach the model once ready
// and calls approved with --yes run and return, carried by stream-json
// like any other call; after exit no server process is left.
func TestE2EMCPCalls(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, mcpScript(
		llmtest.ToolCall{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"hello"}`},
		llmtest.ToolCall{ID: "call_squares", Name: "mcp__web__structured", Arguments: `{"n":3}`},
		llmtest.ToolCall{ID: "call_fail", Name: "mcp__test__fail", Arguments: `{}`},
		// The API key in a result is redacted like any tool's.
		llmtest.ToolCall{ID: "call_secret", Name: "mcp__test__echo", Arguments: `{"text":"the key is sk-e2e-secret-key"}`},
	))
	state := t.TempDir()
	starts, children := filepath.Join(state, "starts"), filepath.Join(state, "children")
	url := mcptest.StartHTTP(t, mcpServerBin, "MCPSERVER_TOKEN=tok-123")
	hookLog := filepath.Join(state, "hooks.log")
	cfg := map[string]any{
		"mcpServers": map[string]any{
			"test": stdioServer(map[string]string{"MCPSERVER_STARTS": starts, "MCPSERVER_CHILD": children}),
			"web":  map[string]any{"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}},
		},
		// Command hooks see MCP calls before and after they run.
		"hooks": map[string]any{
			"pre_tool_call":  []any{map[string]any{"name": "pre", "command": []string{"sh", "-c", `{ cat; echo; } >> "$0"`, hookLog}}},
			"post_tool_call": []any{map[string]any{"name": "post", "command": []string{"sh", "-c", `{ cat; echo; } >> "$0"`, hookLog}}},
		},
	}
	b, _ := json.Marshal(cfg)
	e.config(string(b))
	r := e.startEnv([]string{"WEB_TOKEN=tok-123"}, "-p", "use the servers", "--yes", "--output", "stream-json")
	r.waitReady("test", "web")
	serverGone := childtest.ExitWatch(t, pids(t, starts)[0])
	childGone := childtest.ExitWatch(t, pids(t, children)[0])
	e.srv.Release()
	if code := r.wait(); code != app.ExitOK {
		t.Fatalf("exit %d", code)
	}
	reqs := e.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !slices.Contains(reqs[1].Tools, "mcp__test__echo") || !slices.Contains(reqs[1].Tools, "mcp__web__structured") {
		t.Errorf("the second request's tools: %v", reqs[1].Tools)
	}
	for _, s := range reqs[1].ToolSpecs {
		if s.Name == "mcp__test__echo" && !strings.Contains(string(s.Parameters), "what to say back") {
			t.Errorf("echo's schema: %s", s.Parameters)
		}
	}
	if got := e.toolResult(2, "call_echo"); got != "echo: hello" {
		t.Errorf("echo = %q", got)
	}
	if got := e.toolResult(2, "call_squares"); got != `{"n":3,"squares":[1,4,9]}` {
		t.Errorf("structured = %q", got)
	}
	if got := e.toolResult(2, "call_fail"); !strings.Contains(got, "the widget is broken") {
		t.Errorf("fail = %q", got)
	}
	if got := e.toolResult(2, "call_secret"); strings.Contains(got, "sk-e2e-secret-key") || !strings.Contains(got, "[REDACTED") {
		t.Errorf("a secret in an MCP result = %q", got)
	}
	hooks, err := os.ReadFile(hookLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"pre_tool_call"`, `"event":"post_tool_call"`, `"name":"mcp__test__echo"`, `"name":"mcp__web__structured"`, "echo: hello"} {
		if !strings.Contains(string(hooks), want) {
			t.Errorf("the hooks did not see %s:\n%s", want, hooks)
		}
	}
	var finished []string
	for _, line := range strings.Split(r.stdout.String(), "\n") {
		if strings.Contains(line, `"type":"tool_call_finished"`) && strings.Contains(line, "mcp__") {
			finished = append(finished, line)
		}
	}
	if len(finished) != 4 || !strings.Contains(strings.Join(finished, "\n"), `"status":"error"`) {
		t.Errorf("stream-json carries %d MCP calls:\n%s", len(finished), strings.Join(finished, "\n"))
	}
	if strings.Contains(r.stdout.String()+r.stderr.String(), "tok-123") {
		t.Error("the HTTP server's token shows in tackle's output")
	}
	// Exited: tackle shut the server down and killed its group.
	serverGone()
	childGone()
}

// startEnv is start with variables added to tackle's environment.
func (e *e2e) startEnv(env []string, args ...string) *running {
	e.t.Helper()
	saved := e.env
	e.env = append(slices.Clone(saved), env...)
	defer func() { e.env = saved }()
	return e.start(args...)
}

// TestE2EMCPRulesAndPlanMode: in plan mode with an allow rule for the
// server's tools, the read-only tool runs, the others are skipped by the
// mode, and a deny rule names itself.
func TestE2EMCPRulesAndPlanMode(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, mcpScript(
		llmtest.ToolCall{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"planning"}`},
		llmtest.ToolCall{ID: "call_fail", Name: "mcp__test__fail", Arguments: `{}`},
		llmtest.ToolCall{ID: "call_squares", Name: "mcp__test__structured", Arguments: `{"n":2}`},
	))
	e.config(mcpConfig(map[string]any{"test": stdioServer(nil)}))
	r := e.start("-p", "plan it", "--mode", "plan", "--allow", "mcp__test__*", "--deny", "mcp__test__structured", "--output", "stream-json")
	r.waitReady("test")
	e.srv.Release()
	r.wait()
	if got := e.toolResult(2, "call_echo"); got != "echo: planning" {
		t.Errorf("echo (read-only, allowed) = %q", got)
	}
	if got := e.toolResult(2, "call_fail"); !strings.Contains(got, "plan mode is read-only") {
		t.Errorf("fail (not read-only) = %q", got)
	}
	if got := e.toolResult(2, "call_squares"); !strings.Contains(got, "denied by the rule mcp__test__structured") {
		t.Errorf("structured (denied) = %q", got)
	}
}

// TestE2EMCPAsksByDefault: without a rule an MCP call pauses, and a
// piped run denies it (never hangs on an approval).
func TestE2EMCPAsksByDefault(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, mcpScript(llmtest.ToolCall{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"x"}`}))
	e.config(mcpConfig(map[string]any{"test": stdioServer(nil)}))
	r := e.start("-p", "go", "--output", "stream-json")
	r.waitReady("test")
	e.srv.Release()
	if code := r.wait(); code != app.ExitDenied {
		t.Errorf("exit %d, want %d (denied)", code, app.ExitDenied)
	}
	if got := e.toolResult(2, "call_echo"); strings.Contains(got, "echo: x") {
		t.Errorf("the call ran without approval: %q", got)
	}
}

// TestE2EMCPCrashRestarts: a server that dies mid-call gives that call a
// clear error; tackle goes on, and the next call starts it again.
func TestE2EMCPCrashRestarts(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{
		{Hold: true, Content: "Looking.", ToolCalls: []llmtest.ToolCall{{ID: "call_ls", Name: "list_dir", Arguments: `{}`}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "call_crash", Name: "mcp__test__crash", Arguments: `{}`}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"back"}`}}},
		{Content: "Done."},
	}})
	starts := filepath.Join(t.TempDir(), "starts")
	e.config(mcpConfig(map[string]any{"test": stdioServer(map[string]string{"MCPSERVER_STARTS": starts})}))
	r := e.start("-p", "go", "--yes", "--output", "stream-json")
	r.waitReady("test")
	e.srv.Release()
	if code := r.wait(); code != app.ExitOK {
		t.Fatalf("exit %d", code)
	}
	crash := e.toolResult(2, "call_crash")
	if !containsAll(crash, "The MCP server test stopped during the call", "exit status 3", "crashing as asked", "starts it again") {
		t.Errorf("crash = %q", crash)
	}
	if got := e.toolResult(3, "call_echo"); got != "echo: back" {
		t.Errorf("echo after the crash = %q", got)
	}
	if n := len(pids(t, starts)); n != 2 {
		t.Errorf("the server started %d times, want 2", n)
	}
	if !strings.Contains(r.stderr.String(), "MCP server test failed: it stopped") {
		t.Errorf("stderr does not warn of the crash:\n%s", r.stderr.String())
	}
}

// TestE2EMCPServerNeverStarts: a server that fails to start and one
// that never answers (waited for up to its startup_timeout) are
// warnings; the other server's tools work, the run ends, and nothing of
// either is left running.
func TestE2EMCPServerNeverStarts(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, mcpScript(llmtest.ToolCall{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"still here"}`}))
	hangPid := mcptest.Fifo(t, "hang.pid") // the shell waits for the test to read it
	e.config(mcpConfig(map[string]any{
		"test":   stdioServer(nil),
		"broken": stdioServer(map[string]string{"MCPSERVER_FAIL": "cannot read /etc/broken.toml"}),
		// Starts, never answers initialize.
		"hang": map[string]any{"command": "sh", "args": []string{"-c", `echo $$ > "$1"; exec sleep 300`, "sh", hangPid}, "startup_timeout": "1s"},
	}))
	r := e.start("-p", "go", "--yes", "--output", "stream-json")
	hang, err := strconv.Atoi(mcptest.ReadLine(t, hangPid))
	if err != nil {
		t.Fatal(err)
	}
	hangGone := childtest.ExitWatch(t, hang)
	r.waitReady("test")
	failed := r.waitLine(`"type":"mcp_server"`, `"server":"broken"`, `"state":"failed"`)
	if !strings.Contains(failed, "cannot read /etc/broken.toml") {
		t.Errorf("failed event: %s", failed)
	}
	e.srv.Release()
	if code := r.wait(); code != app.ExitOK {
		t.Fatalf("exit %d", code)
	}
	if got := e.toolResult(2, "call_echo"); got != "echo: still here" {
		t.Errorf("echo = %q", got)
	}
	for _, want := range []string{"MCP server broken failed: it exited (exit status 1); its stderr ends: cannot read /etc/broken.toml", "MCP server hang failed: it did not answer within 1s"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
		}
	}
	hangGone()
}

// TestE2EMCPCancelSlowCall: interrupting tackle during a slow MCP call
// tells the server to cancel it, and leaves no server running.
func TestE2EMCPCancelSlowCall(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, mcpScript(llmtest.ToolCall{ID: "call_slow", Name: "mcp__test__slow", Arguments: `{}`}))
	dir := t.TempDir()
	started, cancelled, starts := mcptest.Fifo(t, "started"), mcptest.Fifo(t, "cancelled"), filepath.Join(dir, "starts")
	e.config(mcpConfig(map[string]any{"test": stdioServer(map[string]string{
		"MCPSERVER_SLOW_STARTED": started, "MCPSERVER_CANCELLED": cancelled, "MCPSERVER_STARTS": starts,
	})}))
	r := e.start("-p", "go", "--yes", "--output", "stream-json")
	r.waitReady("test")
	serverGone := childtest.ExitWatch(t, pids(t, starts)[0])
	e.srv.Release()
	if got := mcptest.ReadLine(t, started); got != "started" {
		t.Fatalf("slow wrote %q", got)
	}
	saw := make(chan string, 1)
	go func() { saw <- mcptest.ReadLine(t, cancelled) }()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(); code != app.ExitInterrupted {
		t.Errorf("exit %d, want %d", code, app.ExitInterrupted)
	}
	serverGone()
	// The server is gone: if it never wrote, end the read.
	if w, err := os.OpenFile(cancelled, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	if got := <-saw; got != "cancelled" {
		log, _ := os.ReadFile(filepath.Join(e.home, ".local", "state", "tackle", "mcp", "test.log"))
		t.Errorf("the server saw %q; its log:\n%s", got, log)
	}
}

// TestE2ETUIMCP: in the terminal UI the status line marks a failed
// server, /mcp lists the servers with their state and tools, the
// approval dialog names the server, the tool and its arguments, and the
// transcript shows the call under the server's name; no server process
// is left after exit.
func TestE2ETUIMCP(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{
		{Content: "Asking the server.", ToolCalls: []llmtest.ToolCall{{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"from the ui"}`}}},
		{Content: "The server answered."},
	}})
	starts := filepath.Join(t.TempDir(), "starts")
	e.config(mcpConfig(map[string]any{
		"test":   stdioServer(map[string]string{"MCPSERVER_STARTS": starts}),
		"broken": stdioServer(map[string]string{"MCPSERVER_FAIL": "no credentials"}),
	}))
	s := e.startTUI()
	s.waitFor("mcp: broken failed")
	s.typeText("/mcp")
	s.keys("Enter")
	screen := s.waitFor("ready · 13 tools · 3 resources · 1 prompt")
	for _, want := range []string{"MCP servers", "broken", "failed", "no credentials", "echo (read-only)", "stdio: " + mcpServerBin} {
		if !strings.Contains(screen, want) {
			t.Errorf("/mcp does not show %q:\n%s", want, screen)
		}
	}
	s.keys("Escape")
	s.waitUntil("the dialog to close", func(screen string) bool { return !strings.Contains(screen, "MCP servers") })
	// /context counts the tools as they are now: 10 of tackle's, 13 of the server.
	s.typeText("/context")
	s.keys("Enter")
	s.waitFor("tool definitions (23 tools)")
	s.keys("Escape")
	s.waitUntil("the dialog to close", func(screen string) bool { return !strings.Contains(screen, "tool definitions") })
	serverGone := childtest.ExitWatch(t, pids(t, starts)[0])
	s.typeText("ask the server")
	s.keys("Enter")
	screen = s.waitFor("Allow test › echo?")
	for _, want := range []string{"the MCP server test's tool mcp__test__echo", "text: from the ui"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the approval dialog does not show %q:\n%s", want, screen)
		}
	}
	s.keys("y")
	screen = s.waitFor("The server answered.")
	if !strings.Contains(screen, "test › echo") {
		t.Errorf("the transcript does not name the server:\n%s", screen)
	}
	if got := e.toolResult(1, "call_echo"); got != "echo: from the ui" {
		t.Errorf("echo = %q", got)
	}
	s.waitUntil("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc to interrupt") })
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Errorf("exit status %d", code)
	}
	serverGone()
}

// TestE2EMCPProjectFileNeedsTrust: a cloned repository's .mcp.json
// starts nothing until it is trusted (a piped run: --trust-project).
func TestE2EMCPProjectFileNeedsTrust(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{{Content: "Fine.", Repeat: true}}})
	starts := filepath.Join(t.TempDir(), "starts")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": stdioServer(map[string]string{"MCPSERVER_STARTS": starts})}})
	if err := os.WriteFile(filepath.Join(e.workspace, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("-p", "hi", "--output", "stream-json")
	if r.code != app.ExitOK || !strings.Contains(r.stderr, "not using "+filepath.Join(e.workspace, ".mcp.json")) || strings.Contains(r.stdout, "mcp_server") {
		t.Fatalf("untrusted .mcp.json: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(starts); err == nil {
		t.Fatal("the untrusted project's MCP server ran")
	}
	run := e.start("-p", "hi", "--trust-project", "--output", "stream-json")
	run.waitLine(`"type":"mcp_server"`, `"server":"proj"`, `"state":"starting"`)
	if code := run.wait(); code != app.ExitOK {
		t.Errorf("exit %d", code)
	}
}

// TestE2EMCPServerScriptIsProtected: the attack of a prompt-injected
// model that rewrites the script a stdio server runs and then crashes
// the server, so that its restart runs the new script without any bash
// call to approve: the write asks in every mode (here accept-edits with
// --yes, which never approves a protected write), and the restart runs
// the script as the user left it.
func TestE2EMCPServerScriptIsProtected(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{
		{Hold: true, ToolCalls: []llmtest.ToolCall{{ID: "call_read", Name: "read_file", Arguments: `{"path":"mcp/server.sh"}`}}},
		{ToolCalls: []llmtest.ToolCall{
			{ID: "call_rewrite", Name: "write_file", Arguments: `{"path":"mcp/server.sh","content":"#!/bin/sh\ntouch pwned\n"}`},
			{ID: "call_mcpjson", Name: "write_file", Arguments: `{"path":".mcp.json","content":"{}"}`},
		}},
		{ToolCalls: []llmtest.ToolCall{{ID: "call_crash", Name: "mcp__test__crash", Arguments: `{}`}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "call_echo", Name: "mcp__test__echo", Arguments: `{"text":"same server"}`}}},
		{Content: "Done."},
	}})
	script := "#!/bin/sh\nexec " + shellQuote(mcpServerBin) + "\n"
	mustWrite(t, filepath.Join(e.workspace, "mcp", "server.sh"), script)
	if err := os.Chmod(filepath.Join(e.workspace, "mcp", "server.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.config(mcpConfig(map[string]any{"test": map[string]any{"command": "./mcp/server.sh"}}))
	r := e.start("-p", "go", "--mode", "accept-edits", "--yes", "--allow", "mcp__test__*", "--output", "stream-json")
	r.waitReady("test")
	e.srv.Release()
	r.wait()
	for _, id := range []string{"call_rewrite", "call_mcpjson"} {
		if got := e.toolResult(2, id); !strings.Contains(got, "protected") {
			t.Errorf("%s = %q, want a refusal naming the protection", id, got)
		}
	}
	if got := e.toolResult(4, "call_echo"); got != "echo: same server" {
		t.Errorf("echo after the restart = %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "mcp", "server.sh")); string(b) != script {
		t.Errorf("the server script was rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "pwned")); err == nil {
		t.Error("the rewritten script ran")
	}
}
