package checks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/tools"
)

// fixture is a workspace with a Checker on it.
type fixture struct {
	t   *testing.T
	dir string
	ws  *tools.Workspace
	reg *tools.Registry
	c   *Checker

	mu     sync.Mutex
	events []Event
}

// newFixture writes files (path → content) into a new workspace and
// returns a Checker configured by cfg (Workspace, Tools and Report are
// filled in).
func newFixture(t *testing.T, files map[string]string, cfg Config) *fixture {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		write(t, dir, p, content)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f := &fixture{t: t, dir: ws.Dir(), ws: ws, reg: tools.NewRegistry(ws)}
	cfg.Workspace, cfg.Tools = ws.Dir(), f.reg
	cfg.Report = f.record
	f.c, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) record(e Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
}

// takeEvents returns the events so far and forgets them.
func (f *fixture) takeEvents() []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.events
	f.events = nil
	return out
}

// finished returns the Finished event of check among evs.
func finished(t *testing.T, evs []Event, check string) Finished {
	t.Helper()
	for _, e := range evs {
		if f, ok := e.(Finished); ok && f.Check == check {
			return f
		}
	}
	t.Fatalf("no Finished event for %s in %+v", check, evs)
	return Finished{}
}

func warnings(evs []Event) []string {
	var out []string
	for _, e := range evs {
		if w, ok := e.(Warning); ok {
			out = append(out, w.Message)
		}
	}
	return out
}

// write writes a file below dir, creating its directories.
func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if strings.HasSuffix(rel, ".sh") {
		mode = 0o755
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// check tracks files and runs a round.
func (f *fixture) check(files ...string) Result {
	f.t.Helper()
	f.c.Track(files...)
	return f.c.Check(context.Background())
}

const goMod = "module example.com/m\n\ngo 1.22\n"

// diagStrings renders diagnostics one per line.
func diagStrings(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}
