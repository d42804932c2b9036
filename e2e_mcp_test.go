package main

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
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/child/childtest"
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

// waitLine reads stdout until a line contains every part; it fails the
// test if tackle's stdout ends first.
func (r *running) waitLine(parts ...string) string {
	r.t.Helper()
	for line := range r.lines {
		r.stdout.WriteString(line + "\n")
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
	left := slices.Clone(servers)
	for len(left) > 0 {
		line := r.waitLine(`"type":"mcp_server"`, `"state":"ready"`)
		left = slices.DeleteFunc(left, func(s string) bool { return strings.Contains(line, `"server":"`+s+`"`) })
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

// mcpHTTPServer starts the test MCP server over streamable HTTP and
// returns its URL.
func mcpHTTPServer(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(mcpServerBin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the MCP HTTP server said nothing: %v", err)
	}
	return strings.TrimSpace(line)
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
	))
	state := t.TempDir()
	starts, children := filepath.Join(state, "starts"), filepath.Join(state, "children")
	url := mcpHTTPServer(t, "MCPSERVER_TOKEN=tok-123")
	e.config(mcpConfig(map[string]any{
		"test": stdioServer(map[string]string{"MCPSERVER_STARTS": starts, "MCPSERVER_CHILD": children}),
		"web":  map[string]any{"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}},
	}))
	r := e.startEnv([]string{"WEB_TOKEN=tok-123"}, "-p", "use the servers", "--yes", "--output", "stream-json")
	r.waitReady("test", "web")
	serverGone := childtest.ExitWatch(t, pids(t, starts)[0])
	childGone := childtest.ExitWatch(t, pids(t, children)[0])
	e.srv.Release()
	if code := r.wait(); code != exitOK {
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
	var finished []string
	for _, line := range strings.Split(r.stdout.String(), "\n") {
		if strings.Contains(line, `"type":"tool_call_finished"`) && strings.Contains(line, "mcp__") {
			finished = append(finished, line)
		}
	}
	if len(finished) != 3 || !strings.Contains(strings.Join(finished, "\n"), `"status":"error"`) {
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
