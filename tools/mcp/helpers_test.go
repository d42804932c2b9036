package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// serverBin is the test MCP server (testdata/mcpserver), built once.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "mcpserver")
	build := exec.Command("go", "build", "-o", serverBin, "./testdata/mcpserver")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test MCP server:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is a Set under test with its registry and what it reported.
type fixture struct {
	t    *testing.T
	reg  *tools.Registry
	set  *mcp.Set
	dir  string
	logs string

	mu      sync.Mutex
	reports []mcp.Status
	changed chan struct{} // closed and replaced at each report
}

// start starts specs on a fresh registry; opts may adjust the Options.
func start(t *testing.T, specs map[string]mcp.Spec, env []string, opts ...func(*mcp.Options)) *fixture {
	t.Helper()
	dir := t.TempDir()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f := &fixture{t: t, reg: tools.NewRegistry(ws), dir: dir, logs: t.TempDir(), changed: make(chan struct{})}
	o := mcp.Options{
		Registry: f.reg, Workdir: dir, Env: append([]string{"PATH=" + os.Getenv("PATH")}, env...),
		LogDir: f.logs, Version: "test", Grace: 2 * time.Second,
		Report: func(st mcp.Status) {
			f.mu.Lock()
			f.reports = append(f.reports, st)
			close(f.changed)
			f.changed = make(chan struct{})
			f.mu.Unlock()
		},
	}
	for _, fn := range opts {
		fn(&o)
	}
	f.set, err = mcp.Start(specs, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.set.Close)
	return f
}

// stdio is the spec of the test server over stdio.
func stdio(env map[string]string) mcp.Spec {
	return mcp.Spec{Command: serverBin, Env: env}
}

// waitState waits until server name reports state, and returns that
// status.
func (f *fixture) waitState(name string, state mcp.State) mcp.Status {
	f.t.Helper()
	return f.waitFor(name, func(st mcp.Status) bool { return st.State == state })
}

// waitFor waits until a report of server name satisfies ok.
func (f *fixture) waitFor(name string, ok func(mcp.Status) bool) mcp.Status {
	f.t.Helper()
	deadline := time.After(time.Minute)
	seen := 0
	for {
		f.mu.Lock()
		reports, changed := f.reports[seen:], f.changed
		seen = len(f.reports)
		f.mu.Unlock()
		for _, st := range reports {
			if st.Name == name && ok(st) {
				return st
			}
		}
		select {
		case <-changed:
		case <-deadline:
			f.t.Fatalf("server %s: the awaited report never came; reports: %+v", name, f.allReports())
		}
	}
}

func (f *fixture) allReports() []mcp.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reports)
}

// call runs a tool through the registry.
func (f *fixture) call(ctx context.Context, name, args string) chat.ToolResult {
	f.t.Helper()
	res, err := f.reg.Run(ctx, chat.ToolCall{ID: "c1", Name: name, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: harness error %v", name, err)
	}
	return res
}

// lines reads a file of lines.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}
