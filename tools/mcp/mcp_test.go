package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/child"
	"github.com/tackle-dev/tackle/tools/child/childtest"
	"github.com/tackle-dev/tackle/tools/mcp"
	"github.com/tackle-dev/tackle/tools/mcp/mcptest"
)

// allTools are the test server's tools as the model is offered them
// (long_task requires task-augmented calls: left out).
var allTools = []string{"mcp__test__ask", "mcp__test__crash", "mcp__test__echo", "mcp__test__env", "mcp__test__fail", "mcp__test__grow",
	"mcp__test__image", "mcp__test__progress", "mcp__test__read_media", "mcp__test__read_text", "mcp__test__roots", "mcp__test__slow", "mcp__test__structured"}

func mcpNames(r *tools.Registry) []string {
	var out []string
	for _, n := range r.Names() {
		if strings.HasPrefix(n, "mcp__") {
			out = append(out, n)
		}
	}
	return out
}

// TestStdioServer: a stdio server's tools join the registry when it is
// ready, with their schemas and kinds, and answer through it.
func TestStdioServer(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{"test": stdio(nil)}, nil)
	st := f.waitState("test", mcp.Ready)
	if got := mcpNames(f.reg); !slices.Equal(got, allTools) {
		t.Fatalf("tools %v, want %v", got, allTools)
	}
	if len(st.Tools) != len(allTools) || st.Implementation != "mcpserver 1.0.0" || st.Transport != mcp.Stdio {
		t.Errorf("status %+v", st)
	}
	echo, _ := f.reg.Lookup("mcp__test__echo")
	slow, _ := f.reg.Lookup("mcp__test__slow")
	if echo.Kind() != tools.KindRead || slow.Kind() != tools.KindExec || echo.Server() != "test" || echo.RemoteName() != "echo" {
		t.Errorf("echo %v %q %q, slow %v", echo.Kind(), echo.Server(), echo.RemoteName(), slow.Kind())
	}
	var schema struct {
		Properties map[string]struct{ Description string }
	}
	json.Unmarshal(echo.Parameters(), &schema)
	if schema.Properties["text"].Description != "what to say back" {
		t.Errorf("echo's schema not passed through: %s", echo.Parameters())
	}

	ctx := context.Background()
	cases := []struct {
		tool, args string
		status     chat.ResultStatus
		want       string
	}{
		{"mcp__test__echo", `{"text":"hi"}`, chat.StatusOK, "echo: hi"},
		{"mcp__test__fail", `{}`, chat.StatusError, "the widget is broken"},
		// Structured content as JSON, the SDK's text copy of it left out.
		{"mcp__test__structured", `{"n":3}`, chat.StatusOK, `{"n":3,"squares":[1,4,9]}`},
		{"mcp__test__image", `{}`, chat.StatusOK, "[image: image/png, 2.0 KiB]\n[resource file:///notes.txt, text/plain]\na note"},
		// The server validates the arguments against its schema.
		{"mcp__test__structured", `{"n":"three"}`, chat.StatusError, "n"},
	}
	for _, c := range cases {
		res := f.call(ctx, c.tool, c.args)
		if res.Status != c.status || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s %s = %v %q, want %v containing %q", c.tool, c.args, res.Status, res.Content, c.status, c.want)
		}
	}
}

// TestHTTPServer: a streamable-HTTP server, its token in a header taken
// from the environment.
func TestHTTPServer(t *testing.T) {
	t.Parallel()
	url := mcptest.StartHTTP(t, serverBin, "MCPSERVER_TOKEN=s3cret")
	f := start(t, map[string]mcp.Spec{
		"remote": {URL: url, Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}},
		"nokey":  {Type: "http", URL: url},
		// Nothing listens on port 1: the error names the URL, whose
		// token must not show.
		"down": {URL: "http://127.0.0.1:1/mcp?key=${API_TOKEN}"},
	}, []string{"API_TOKEN=s3cret"})
	st := f.waitState("remote", mcp.Ready)
	if st.Transport != mcp.HTTP || st.Target != url {
		t.Errorf("status %+v", st)
	}
	if res := f.call(context.Background(), "mcp__remote__echo", `{"text":"over http"}`); res.Content != "echo: over http" {
		t.Errorf("echo = %+v", res)
	}
	failed := f.waitState("nokey", mcp.Failed)
	if !strings.Contains(failed.Err, "401") && !strings.Contains(strings.ToLower(failed.Err), "unauthorized") {
		t.Errorf("a server refusing the client: %q", failed.Err)
	}
	if strings.Contains(failed.Err, "s3cret") || strings.Contains(st.Target, "s3cret") {
		t.Error("the token shows in a status")
	}
	down := f.waitState("down", mcp.Failed)
	if strings.Contains(down.Err, "s3cret") || !strings.Contains(down.Err, "${API_TOKEN}") {
		t.Errorf("a server that is down: %q", down.Err)
	}
}

// TestMissingVariable: a ${VAR} that is not set fails the server, naming
// the variable, without starting anything.
func TestMissingVariable(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{"test": {Command: serverBin, Env: map[string]string{"TOKEN": "${NOT_SET_ANYWHERE}"}}}, nil)
	st := f.waitState("test", mcp.Failed)
	if !strings.Contains(st.Err, "NOT_SET_ANYWHERE") {
		t.Errorf("Err = %q", st.Err)
	}
}

// TestNeverStarts: a server that exits at once is reported with its
// stderr; the other servers work.
func TestNeverStarts(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{
		"broken": stdio(map[string]string{"MCPSERVER_FAIL": "config file missing: /etc/broken.toml"}),
		"test":   stdio(nil),
		"gone":   {Command: "no-such-mcp-server-anywhere"},
		"off":    {Command: "no-such-mcp-server-anywhere", Enabled: new(false)},
	}, nil)
	st := f.waitState("broken", mcp.Failed)
	if !strings.Contains(st.Err, "config file missing: /etc/broken.toml") || !strings.Contains(st.Err, "exit status 1") {
		t.Errorf("Err = %q", st.Err)
	}
	gone := f.waitState("gone", mcp.Failed)
	if !strings.Contains(gone.Err, "no-such-mcp-server-anywhere") {
		t.Errorf("Err = %q", gone.Err)
	}
	f.waitState("test", mcp.Ready)
	if res := f.call(context.Background(), "mcp__test__echo", `{"text":"x"}`); res.Status != chat.StatusOK {
		t.Errorf("echo = %+v", res)
	}
	for _, st := range f.set.Status() {
		if st.Name == "off" && st.State != mcp.Disabled {
			t.Errorf("off: %v", st.State)
		}
		if st.Name == "broken" && len(st.Tools) != 0 {
			t.Errorf("broken has tools %v", st.Tools)
		}
	}
}

// TestCrashMidCall: a server dying during a call gives that call a
// clear error, and the next call starts it again.
func TestCrashMidCall(t *testing.T) {
	t.Parallel()
	starts := t.TempDir() + "/starts"
	f := start(t, map[string]mcp.Spec{"test": stdio(map[string]string{"MCPSERVER_STARTS": starts})}, nil)
	f.waitState("test", mcp.Ready)
	res := f.call(context.Background(), "mcp__test__crash", `{}`)
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "stopped during the call") ||
		!strings.Contains(res.Content, "exit status 3") || !strings.Contains(res.Content, "crashing as asked") {
		t.Errorf("crash = %+v", res)
	}
	f.waitState("test", mcp.Failed)
	// Its tools stay, so the model can call them; that starts it again.
	if res := f.call(context.Background(), "mcp__test__echo", `{"text":"again"}`); res.Content != "echo: again" {
		t.Errorf("after the crash, echo = %+v", res)
	}
	if got := lines(t, starts); len(got) != 2 {
		t.Errorf("started %d times, want 2", len(got))
	}
}

// TestCancelSendsCancelled: cancelling a call sends
// notifications/cancelled, which the server sees.
func TestCancelSendsCancelled(t *testing.T) {
	t.Parallel()
	started, cancelled := mcptest.Fifo(t, "started"), mcptest.Fifo(t, "cancelled")
	f := start(t, map[string]mcp.Spec{"test": stdio(map[string]string{"MCPSERVER_SLOW_STARTED": started, "MCPSERVER_CANCELLED": cancelled})}, nil)
	f.waitState("test", mcp.Ready)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan chat.ToolResult)
	go func() { done <- f.call(ctx, "mcp__test__slow", `{}`) }()
	if got := mcptest.ReadLine(t, started); got != "started" {
		t.Fatalf("slow wrote %q", got)
	}
	cancel()
	res := <-done
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("cancelled call = %+v", res)
	}
	if got := mcptest.ReadLine(t, cancelled); got != "cancelled" {
		t.Errorf("the server saw %q", got)
	}
}

// TestToolTimeout: a call past tool_timeout is cancelled at the server.
func TestToolTimeout(t *testing.T) {
	t.Parallel()
	cancelled := mcptest.Fifo(t, "cancelled")
	spec := stdio(map[string]string{"MCPSERVER_CANCELLED": cancelled})
	spec.ToolTimeout = "300ms"
	f := start(t, map[string]mcp.Spec{"test": spec}, nil)
	f.waitState("test", mcp.Ready)
	res := f.call(context.Background(), "mcp__test__slow", `{}`)
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "did not answer within 300ms") {
		t.Errorf("slow = %+v", res)
	}
	if got := mcptest.ReadLine(t, cancelled); got != "cancelled" {
		t.Errorf("the server saw %q", got)
	}
}

// TestToolListChanged: a server's new tool joins the registry.
func TestToolListChanged(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{"test": stdio(nil)}, nil)
	f.waitState("test", mcp.Ready)
	if res := f.call(context.Background(), "mcp__test__grow", `{}`); res.Content != "grown" {
		t.Fatalf("grow = %+v", res)
	}
	f.waitFor("test", func(st mcp.Status) bool {
		return slices.ContainsFunc(st.Tools, func(ts mcp.ToolStatus) bool { return ts.Name == "mcp__test__added" })
	})
	if res := f.call(context.Background(), "mcp__test__added", `{}`); res.Content != "I was added" {
		t.Errorf("added = %+v", res)
	}
}

// TestCloseLeavesNoProcess: closing the Set ends every server and what
// it started.
func TestCloseLeavesNoProcess(t *testing.T) {
	t.Parallel()
	starts, children := t.TempDir()+"/starts", t.TempDir()+"/children"
	f := start(t, map[string]mcp.Spec{"test": stdio(map[string]string{"MCPSERVER_STARTS": starts, "MCPSERVER_CHILD": children})}, nil,
		func(o *mcp.Options) { o.Grace = 200 * time.Millisecond })
	f.waitState("test", mcp.Ready)
	pid, kid := atoi(t, lines(t, starts)[0]), atoi(t, lines(t, children)[0])
	if alive := childtest.GroupAlive(t, pid); !slices.Contains(alive, pid) || !slices.Contains(alive, kid) {
		t.Fatalf("group %d before Close: %v", pid, alive)
	}
	kidGone := childtest.ExitWatch(t, kid)
	f.set.Close()
	kidGone()
	if alive := childtest.GroupAlive(t, pid); len(alive) != 0 {
		t.Errorf("after Close, group %d has %v", pid, alive)
	}
	f.waitState("test", mcp.Stopped)
	if res := f.call(context.Background(), "mcp__test__echo", `{}`); res.Status != chat.StatusError || !strings.Contains(res.Content, "shutting down") {
		t.Errorf("a call after Close = %+v", res)
	}
}

// TestStartDoesNotWait: Start returns while a server is still starting;
// its tools join later.
func TestStartDoesNotWait(t *testing.T) {
	t.Parallel()
	release := mcptest.Fifo(t, "release")
	// The server's command waits on the pipe before it runs the server.
	f := start(t, map[string]mcp.Spec{"test": {Command: "sh", Args: []string{"-c", `read x < "$1"; exec "$2"`, "sh", release, serverBin}}}, nil)
	if got := mcpNames(f.reg); len(got) != 0 {
		t.Fatalf("tools before the server is ready: %v", got)
	}
	if st := f.set.Status()[0]; st.State != mcp.Starting {
		t.Errorf("state %v, want starting", st.State)
	}
	w, err := openWrite(release)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	f.waitState("test", mcp.Ready)
	if got := mcpNames(f.reg); !slices.Equal(got, allTools) {
		t.Errorf("tools %v", got)
	}
}

// TestBackoff: a server that crashed and then fails to start again is
// not started again before its backoff has passed; then the next call
// starts it.
func TestBackoff(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	dir := t.TempDir()
	starts, broken := dir+"/starts", dir+"/broken"
	script := `if [ -e "$1" ]; then echo "broken for now" >&2; exit 1; fi; exec "$2"`
	f := start(t, map[string]mcp.Spec{"test": {Command: "sh", Args: []string{"-c", script, "sh", broken, serverBin}, Env: map[string]string{"MCPSERVER_STARTS": starts}}}, nil,
		func(o *mcp.Options) { o.Now = clock; o.MinBackoff = 10 * time.Second })
	f.waitState("test", mcp.Ready)
	if err := os.WriteFile(broken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.call(context.Background(), "mcp__test__crash", `{}`)
	res := f.call(context.Background(), "mcp__test__echo", `{"text":"1"}`)
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "broken for now") {
		t.Fatalf("a call whose restart fails = %+v", res)
	}
	res = f.call(context.Background(), "mcp__test__echo", `{"text":"2"}`)
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "try to start it again in 10s") {
		t.Errorf("a call within the backoff = %+v", res)
	}
	os.Remove(broken)
	clockMu.Lock()
	now = now.Add(11 * time.Second)
	clockMu.Unlock()
	if res := f.call(context.Background(), "mcp__test__echo", `{"text":"3"}`); res.Content != "echo: 3" {
		t.Errorf("a call after the backoff = %+v", res)
	}
	if got := lines(t, starts); len(got) != 2 {
		t.Errorf("the server ran %d times, want 2", len(got))
	}
}

// TestRestart: /mcp's restart starts a failed server at once.
func TestRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := dir + "/broken"
	os.WriteFile(broken, nil, 0o600)
	script := `if [ -e "$1" ]; then echo "broken for now" >&2; exit 1; fi; exec "$2"`
	f := start(t, map[string]mcp.Spec{"test": {Command: "sh", Args: []string{"-c", script, "sh", broken, serverBin}}}, nil)
	f.waitState("test", mcp.Failed)
	os.Remove(broken)
	if err := f.set.Restart("test"); err != nil {
		t.Fatal(err)
	}
	if st := f.set.Status()[0]; st.State != mcp.Ready || len(st.Tools) != len(allTools) {
		t.Errorf("after Restart: %v, %d tools", st.State, len(st.Tools))
	}
	if err := f.set.Restart("nope"); err == nil {
		t.Error("Restart of an unknown server")
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func openWrite(path string) (*os.File, error) { return os.OpenFile(path, os.O_WRONLY, 0) }

// TestCancelWhileRestarting: a call waiting for its server to start
// again gives up when it is cancelled (Esc), without waiting out the
// startup timeout.
func TestCancelWhileRestarting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	slow := dir + "/slow"
	script := `if [ -e "$1" ]; then export MCPSERVER_DELAY=10m; fi; exec "$2"`
	f := start(t, map[string]mcp.Spec{"test": {Command: "sh", Args: []string{"-c", script, "sh", slow, serverBin}}}, nil)
	f.waitState("test", mcp.Ready)
	os.WriteFile(slow, nil, 0o600)
	f.call(context.Background(), "mcp__test__crash", `{}`)
	f.waitState("test", mcp.Failed)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan chat.ToolResult)
	go func() { done <- f.call(ctx, "mcp__test__echo", `{"text":"x"}`) }()
	// The call has started the server again: it says it is starting.
	f.waitFor("test", func(st mcp.Status) bool { return st.State == mcp.Starting && len(st.Tools) > 0 })
	cancel()
	res := <-done
	if res.Status != chat.StatusError || !strings.Contains(res.Content, "still starting") {
		t.Errorf("a call cancelled while its server starts = %+v", res)
	}
}

// TestKillLeavesNoProcess: Kill (a second interrupt) kills every stdio
// server's group at once, a server still starting included.
func TestKillLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts, children, slowStarts := dir+"/starts", dir+"/children", mcptest.Fifo(t, "slow-starts")
	f := start(t, map[string]mcp.Spec{
		"up":   stdio(map[string]string{"MCPSERVER_STARTS": starts, "MCPSERVER_CHILD": children}),
		"slow": stdio(map[string]string{"MCPSERVER_STARTS": slowStarts, "MCPSERVER_DELAY": "10m"}),
	}, nil)
	f.waitState("up", mcp.Ready)
	// The slow one's process runs (it wrote its pid) and it is still
	// starting: it waits 10 minutes before it answers.
	slow := atoi(t, mcptest.ReadLine(t, slowStarts))
	if st := f.set.Status()[0]; st.Name != "slow" || st.State != mcp.Starting {
		t.Fatalf("%s is %v", st.Name, st.State)
	}
	pids := []int{slow}
	for _, file := range []string{starts, children} {
		pids = append(pids, atoi(t, lines(t, file)[0]))
	}
	var gone []func()
	for _, pid := range pids {
		gone = append(gone, childtest.ExitWatch(t, pid))
	}
	f.set.Kill()
	for _, g := range gone {
		g()
	}
}

// TestHTTPServerRestarted: a remote server that restarted no longer knows
// tackle's session (404); the call that finds out is sent again on a new
// session, and the model never sees the hiccup.
func TestHTTPServerRestarted(t *testing.T) {
	t.Parallel()
	url, stop := mcptest.StartHTTPAt(t, serverBin, "127.0.0.1:0")
	f := start(t, map[string]mcp.Spec{"web": {URL: url}}, nil)
	f.waitState("web", mcp.Ready)
	if res := f.call(context.Background(), "mcp__web__echo", `{"text":"one"}`); res.Content != "echo: one" {
		t.Fatalf("echo = %+v", res)
	}
	stop()
	mcptest.StartHTTPAt(t, serverBin, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if res := f.call(context.Background(), "mcp__web__echo", `{"text":"two"}`); res.Content != "echo: two" {
		t.Errorf("echo after the server restarted = %+v", res)
	}
}

// A server flooding its stderr while it runs keeps its log under the cap
// (before, 896 MB in 1.4 s), and the user is told once.
func TestFloodedStderrLogIsCapped(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var warned []string
	f := start(t, map[string]mcp.Spec{"test": stdio(map[string]string{"MCPSERVER_FLOOD_MIB": strconv.Itoa(child.MaxLogSize>>20 + 2)})}, nil, func(o *mcp.Options) {
		o.Warn = func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }
	})
	f.waitState("test", mcp.Ready)
	for range 3 {
		if res := f.call(t.Context(), "mcp__test__echo", `{"text":"hi"}`); res.Content != "echo: hi" {
			t.Fatalf("echo = %+v", res)
		}
	}
	f.set.Close() // the stderr copy ends with the process
	for _, name := range []string{"test.log", "test.log.old"} {
		fi, err := os.Stat(filepath.Join(f.logs, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > child.MaxLogSize {
			t.Errorf("%s is %d bytes, over the cap of %d", name, fi.Size(), child.MaxLogSize)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], `MCP server "test" writes more than 8 MiB to stderr`) {
		t.Errorf("warnings = %q, want one about the log", warned)
	}
}
