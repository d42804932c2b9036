package markdown

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/tackle-dev/tackle/themes"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/markdown")

// goldenDir holds the golden files and their markdown inputs.
const goldenDir = "../../../testdata/markdown"

// requireGolden compares out with testdata/markdown/name.golden. Golden
// files hold the output with escape sequences quoted, one line per line, so
// that they read (and diff) as text; -update rewrites them.
func requireGolden(t *testing.T, name, out string) {
	t.Helper()
	path := filepath.Join(goldenDir, name+".golden")
	quoted := quoteLines(out)
	if *update {
		if err := os.WriteFile(path, []byte(quoted), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
	if diff := udiff.Unified(path, "got", string(want), quoted); diff != "" {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, diff)
	}
}

func quoteLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		q := strconv.Quote(l)
		lines[i] = q[1 : len(q)-1]
	}
	return strings.Join(lines, "\n") + "\n"
}

func readInput(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func themeRenderer(t testing.TB, name string) *Renderer {
	t.Helper()
	th, ok := themes.Get(name)
	if !ok {
		t.Fatalf("no theme %q", name)
	}
	return NewRenderer(th.Glamour())
}

// stoppedClock is a clock that never moves, so that only the byte rule
// decides when the open block is rendered again.
func stoppedClock() time.Time { return time.Unix(0, 0) }

// stream writes src to a new stream in pieces of n bytes, calling Render at
// width after each, and returns the stream (not finished).
func stream(r *Renderer, src string, n, width int) *Stream {
	s := r.NewStream()
	s.now = stoppedClock
	for i := 0; i < len(src); i += n {
		s.Write(src[i:min(i+n, len(src))])
		s.Render(width)
	}
	return s
}
