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
	xansi "github.com/charmbracelet/x/ansi"
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

// renderDiff compares two renders of src and describes the first
// difference, or returns "" when they are the same. One difference is let
// through, and logged: the colours of a line of a fenced code block, its
// text the same. chroma gives each highlighting regexp a 250 ms match
// timeout (regexp2's MatchTimeout, set in chroma's RegexLexer) and takes
// a match that timed out for no match, lexing that text by another rule;
// with -race on a busy two-core machine a match can be held up that long,
// so two renders of the same code can colour it differently (seen in CI:
// a Go comment coloured as text and punctuation).
func renderDiff(t testing.TB, src, got, want string) string {
	t.Helper()
	if got == want {
		return ""
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return firstDiff(got, want)
	}
	code := fencedCode(src)
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		text := strings.TrimSpace(xansi.Strip(g[i]))
		if text != strings.TrimSpace(xansi.Strip(w[i])) || text == "" || !strings.Contains(code, text) {
			return firstDiff(got, want)
		}
		t.Logf("line %d of a code block coloured differently by two renders (chroma's regexp timeout under load): %q", i+1, text)
	}
	return ""
}

// fencedCode is the text of src's fenced code blocks, tabs expanded as
// rendering expands them.
func fencedCode(src string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(expandTabs(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if in {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
