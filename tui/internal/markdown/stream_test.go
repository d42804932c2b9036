package markdown

import (
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
)

// TestStreamEqualsWholeRender streams documents in pieces of various sizes,
// rendering after each piece, and checks that the finished stream renders
// exactly like the whole source.
func TestStreamEqualsWholeRender(t *testing.T) {
	docs := map[string]string{
		"answer":     readInput(t, "answer.md"),
		"code":       readInput(t, "code.md"),
		"generated":  answerDoc(12 << 10),
		"crlf":       strings.ReplaceAll(readInput(t, "answer.md"), "\n", "\r\n"),
		"open fence": "Some code:\n\n```go\nfunc f() {\n\n\treturn\n",
	}
	for _, theme := range []string{"dark", "no-color"} {
		r := themeRenderer(t, theme)
		for name, doc := range docs {
			want := r.Render(doc, 80)
			for _, n := range []int{1, 4, 7, 100} {
				if n == 1 && len(doc) > 4000 {
					continue // slow, and the 4-byte run covers it
				}
				s := stream(r, doc, n, 80)
				s.Finish()
				if got := s.Render(80); got != want {
					t.Errorf("%s/%s in %d-byte pieces: stream and whole render differ:\n%s", theme, name, n, firstDiff(got, want))
				}
				if s.Source() != doc {
					t.Errorf("%s/%s: Source() differs from what was written", theme, name)
				}
			}
		}
	}
}

func TestStreamRendersFinishedBlocksOnce(t *testing.T) {
	r := themeRenderer(t, "dark")
	doc := readInput(t, "answer.md")
	blocks := len(splitBlocks(doc))

	s := r.NewStream()
	s.now = stoppedClock
	s.Write(doc)
	s.Finish()
	r.calls.Store(0)
	out := s.Render(80)
	if got := r.calls.Load(); got != int64(blocks) {
		t.Errorf("first render: %d glamour renders for %d blocks", got, blocks)
	}
	if again := s.Render(80); again != out || r.calls.Load() != int64(blocks) {
		t.Errorf("a second render with nothing changed rendered again (%d renders)", r.calls.Load())
	}

	// A new width renders every block again, once.
	r.calls.Store(0)
	narrow := s.Render(40)
	if got := r.calls.Load(); got != int64(blocks) {
		t.Errorf("width change: %d glamour renders for %d blocks", got, blocks)
	}
	if want := r.Render(doc, 40); narrow != want {
		t.Errorf("after a width change the stream does not match a whole render at the new width:\n%s", firstDiff(narrow, want))
	}
	for i, l := range strings.Split(narrow, "\n") {
		if w := xansi.StringWidth(l); w > 40 && !strings.HasPrefix(strings.TrimSpace(xansi.Strip(l)), "fmt.") {
			t.Errorf("line %d is %d wide at width 40: %q", i, w, xansi.Strip(l))
		}
	}
	if back := s.Render(80); back != out {
		t.Error("back at the first width, the render differs")
	}
}

// TestStreamCostDoesNotGrow streams a long answer and checks that the
// number of glamour renders is about one per block plus a bounded number per
// open block, however often Render is called.
func TestStreamCostDoesNotGrow(t *testing.T) {
	r := themeRenderer(t, "dark")
	doc := answerDoc(32 << 10)
	blocks := len(splitBlocks(doc))
	r.calls.Store(0)
	s := stream(r, doc, 4, 100)
	s.Finish()
	s.Render(100)
	calls := int(r.calls.Load())
	// Each block once when finished, plus re-renders of the open block every
	// 512 bytes or half its size, plus code lines in batches.
	if limit := blocks + 2*len(doc)/tailMinBytes; calls > limit {
		t.Errorf("%d glamour renders for %d blocks and %d bytes streamed in 4-byte pieces; want at most %d", calls, blocks, len(doc), limit)
	}
	if calls < blocks {
		t.Errorf("only %d glamour renders for %d blocks", calls, blocks)
	}
}

func TestStreamRenderShowsEverythingWritten(t *testing.T) {
	r := themeRenderer(t, "dark")
	s := r.NewStream()
	s.now = stoppedClock
	s.Write("# Title\n\nThe first paragraph is long enough to be rendered.")
	first := s.Render(60)
	if !strings.Contains(xansi.Strip(first), "The first paragraph is long enough to be rendered.") {
		t.Fatalf("render misses text: %q", xansi.Strip(first))
	}
	// Less than 512 bytes later, the new words are drawn plain, wrapped.
	s.Write(" And some more words arrive, enough to need a second line here.")
	second := xansi.Strip(s.Render(60))
	if !strings.Contains(second, "more words arrive") {
		t.Fatalf("new text not shown: %q", second)
	}
	for _, l := range strings.Split(second, "\n") {
		if xansi.StringWidth(l) > 60 {
			t.Errorf("plain text not wrapped at 60: %q", l)
		}
	}
	// An open code block: complete lines and the line being written.
	s.Write("\n\n```go\nfunc main() {\n\tfmt.Println(")
	third := xansi.Strip(s.Render(60))
	if !strings.Contains(third, "func main() {") || !strings.Contains(third, "    fmt.Println(") {
		t.Fatalf("open code block not shown: %q", third)
	}
	s.Finish()
	if got, want := s.Render(60), r.Render(s.Source(), 60); got != want {
		t.Errorf("finished stream differs from a whole render:\n%s", firstDiff(got, want))
	}
}

// TestStreamTimeRule checks that the open block is rendered again once
// enough time has passed, even when few bytes arrived.
func TestStreamTimeRule(t *testing.T) {
	r := themeRenderer(t, "dark")
	now := time.Unix(0, 0)
	s := r.NewStream()
	s.now = func() time.Time { return now }
	s.Write("Some **bold")
	s.Render(80)
	s.Write(" text**")
	if out := s.Render(80); !strings.Contains(out, "**") {
		t.Fatalf("within the time limit, new text should be drawn plain: %q", out)
	}
	now = now.Add(time.Second)
	s.Write(" and more")
	if out := s.Render(80); strings.Contains(out, "**") {
		t.Fatalf("after a second the block should be rendered again: %q", out)
	}
}

// TestStreamOpenFence streams a code block line by line, with time moving
// on so that the complete lines are highlighted in batches of various
// sizes, and checks that the open block always shows the same text as the
// finished block will (colours aside), but for the frame's bottom rule,
// which comes when the fence closes.
func TestStreamOpenFence(t *testing.T) {
	r := themeRenderer(t, "dark")
	code := "```go\n\nfunc main() {\n\n\n\tx := 1 // a comment\n\tfmt.Println(x)\n\n}\n\n// end\n"
	for _, step := range []int{1, 2, 3, 5} {
		now := time.Unix(0, 0)
		s := r.NewStream()
		s.now = func() time.Time { return now }
		for i := 0; i < len(code); i++ {
			s.Write(code[i : i+1])
			if i%step == 0 {
				now = now.Add(time.Second) // the next render highlights what is pending
			}
			got := xansi.Strip(s.Render(60))
			want := xansi.Strip(r.Render(s.Source()+"\n```\n", 60))
			if i := strings.LastIndexByte(want, '\n'); i >= 0 && strings.HasPrefix(strings.TrimLeft(want[i+1:], " "), "╰") {
				want = want[:i]
			}
			if got != want {
				t.Fatalf("step %d, after %q:\n got  %q\n want %q", step, s.Source(), got, want)
			}
		}
	}
}

func TestStreamRenderReturnsSameStringWhenUnchanged(t *testing.T) {
	r := themeRenderer(t, "dark")
	s := r.NewStream()
	s.Write("para\n\nmore")
	a := s.Render(80)
	calls := r.calls.Load()
	b := s.Render(80)
	if !sameString(a, b) || r.calls.Load() != calls {
		t.Error("Render with nothing changed did work or built a new string")
	}
	s.Write("")
	if c := s.Render(80); !sameString(a, c) {
		t.Error("an empty Write invalidated the cache")
	}
}

// TestStreamResultsStayUnchanged checks that strings returned earlier are
// not changed by later calls (Render appends to a buffer it hands out).
func TestStreamResultsStayUnchanged(t *testing.T) {
	r := themeRenderer(t, "dark")
	doc := answerDoc(8 << 10)
	s := r.NewStream()
	s.now = stoppedClock
	type result struct{ got, copy string }
	var results []result
	for i := 0; i < len(doc); i += 5 {
		s.Write(doc[i:min(i+5, len(doc))])
		width := 80
		if i%997 == 0 {
			width = 70 // change the width now and then
		}
		out := s.Render(width)
		results = append(results, result{out, strings.Clone(out)})
		_, tail := s.Parts(width)
		results = append(results, result{tail, strings.Clone(tail)})
	}
	s.Finish()
	s.Render(80)
	for i, res := range results {
		if res.got != res.copy {
			t.Fatalf("result %d changed after it was returned", i)
		}
	}
	if s.outCopies >= len(results)/4 {
		t.Errorf("Render copied %d times in %d calls; most frames should extend the last", s.outCopies, len(results)/2)
	}
}

func TestStreamParts(t *testing.T) {
	r := themeRenderer(t, "dark")
	doc := readInput(t, "answer.md")
	s := r.NewStream()
	s.now = stoppedClock
	var prev []string
	for i := 0; i < len(doc); i += 9 {
		s.Write(doc[i:min(i+9, len(doc))])
		blocks, tail := s.Parts(80)
		if len(blocks) < len(prev) {
			t.Fatalf("blocks shrank from %d to %d", len(prev), len(blocks))
		}
		for j := range prev {
			if blocks[j] != prev[j] {
				t.Fatalf("finished block %d changed", j)
			}
		}
		prev = append(prev[:0:0], blocks...)
		var joined strings.Builder
		for _, b := range blocks {
			appendBlock(&joined, b)
		}
		appendBlock(&joined, tail)
		if got := s.Render(80); got != joined.String() {
			t.Fatalf("Render differs from the joined parts after %d bytes", i)
		}
	}
	s.Finish()
	blocks, tail := s.Parts(80)
	if tail != "" || len(blocks) != len(splitBlocks(doc)) {
		t.Errorf("after Finish: %d blocks (want %d), tail %q", len(blocks), len(splitBlocks(doc)), tail)
	}
}

func TestStreamWritesAfterFinishAreIgnored(t *testing.T) {
	r := themeRenderer(t, "no-color")
	s := r.NewStream()
	s.Write("done")
	s.Finish()
	s.Finish()
	s.Write(" more")
	if s.Source() != "done" || !s.Finished() {
		t.Errorf("Source() = %q, Finished() = %v", s.Source(), s.Finished())
	}
	if got := s.Render(20); got != "done" {
		t.Errorf("Render = %q", got)
	}
}

func TestStreamEmptyAndNarrow(t *testing.T) {
	r := themeRenderer(t, "dark")
	s := r.NewStream()
	if got := s.Render(80); got != "" {
		t.Errorf("empty stream renders %q", got)
	}
	s.Write("\n\n   \n")
	if got := s.Render(80); got != "" {
		t.Errorf("blank stream renders %q", got)
	}
	s.Write("A paragraph with averyveryverylongwordthatcannotfit in a tiny terminal.")
	for _, w := range []int{-5, 0, 1, 5, MinWidth, 12} {
		if out := s.Render(w); !strings.Contains(xansi.Strip(out), "paragraph") {
			t.Errorf("width %d: %q", w, out)
		}
	}
}

// firstDiff describes where two renders first differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got  " + quote(gl) + "\n want " + quote(wl)
		}
	}
	return "(same lines)"
}
