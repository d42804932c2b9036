//go:build unix

package process_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/process"
)

// serverBin is the test hook server (testdata/hookserver), built once.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hookserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "hookserver")
	build := exec.Command("go", "build", "-o", serverBin, "./testdata/hookserver")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test hook server:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is one hook server under test, registered on a fresh registry.
type fixture struct {
	t         testing.TB
	workspace string
	record    string // every line the server received, and its answers
	starts    string // a line per start of the server
	logDir    string
	set       *process.Set
	reg       *hooks.Registry
	warnings  *warnings
}

// warnings collects what the Set reports.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(m string) {
	w.mu.Lock()
	w.msgs = append(w.msgs, m)
	w.mu.Unlock()
}

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// serve starts the test server as spec (its Name and Command are filled
// in when empty) with env added to its environment, and registers it.
// opts may tweak the Options.
func serve(t testing.TB, spec process.Spec, env map[string]string, opts ...func(*process.Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, workspace: t.TempDir(), logDir: t.TempDir(), reg: hooks.NewRegistry(), warnings: &warnings{}}
	dir := t.TempDir()
	f.record, f.starts = filepath.Join(dir, "record"), filepath.Join(dir, "starts")
	if spec.Name == "" {
		spec.Name = "srv"
	}
	if spec.Command == nil {
		spec.Command = []string{serverBin}
	}
	spec.Env = map[string]string{"HOOKSERVER_LOG": f.record, "HOOKSERVER_STARTS": f.starts}
	for k, v := range env {
		spec.Env[k] = v
	}
	o := process.Options{
		Workdir: f.workspace,
		Env:     []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-not-for-hooks"},
		LogDir:  f.logDir,
		Version: "test",
		Warn:    f.warnings.add,
		// Restarts come at once; a server that ignores hook.shutdown is
		// killed soon.
		MinBackoff: time.Millisecond,
		MaxBackoff: 2 * time.Millisecond,
		Grace:      200 * time.Millisecond,
	}
	for _, tweak := range opts {
		tweak(&o)
	}
	set, err := process.Start(t.Context(), []process.Spec{spec}, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	f.set = set
	t.Cleanup(func() { set.Close() })
	if err := set.Register(f.reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return f
}

// close shuts the server down and returns what it received.
func (f *fixture) close() []string {
	f.t.Helper()
	if err := f.set.Close(); err != nil {
		f.t.Fatal(err)
	}
	return f.lines()
}

// lines are the lines the server received (and "answered ID" lines).
func (f *fixture) lines() []string {
	f.t.Helper()
	b, err := os.ReadFile(f.record)
	if err != nil && !os.IsNotExist(err) {
		f.t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// received are the messages the server received with method, as decoded
// JSON objects.
func (f *fixture) received(method string) []map[string]any {
	f.t.Helper()
	var out []map[string]any
	for _, l := range f.lines() {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["method"] == method {
			out = append(out, m)
		}
	}
	return out
}

// startLines are the lines the server wrote when it started, one per
// start.
func (f *fixture) startLines() []string {
	f.t.Helper()
	b, _ := os.ReadFile(f.starts)
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (f *fixture) serverLog() string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.logDir, "srv.log"))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// directive is a test server directive as JSON text.
func directive(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// answer is the directive to answer with result.
func answer(result string) string { return `{"answer":` + result + `}` }
