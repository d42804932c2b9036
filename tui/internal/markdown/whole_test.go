package markdown

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBlockwiseMatchesWholeDocument renders representative documents block
// by block (as a stream does) and whole with glamour, and compares them.
//
// The documented differences: glamour puts two blank lines after a list
// that ends in a nested list; block by block there is one. So runs of
// blank lines are collapsed in both before comparing; everything else —
// every character, escape sequence and non-blank line — must be the same.
// Tables are left out of the documents: they are rendered at their own
// width, not stretched to the full width as glamour does in a whole
// document (TestTablesFitTheirContent). The frame lines block-wise
// rendering adds above and below a fenced code block are taken out
// before comparing (TestCodeBlockFrame checks them).
func TestBlockwiseMatchesWholeDocument(t *testing.T) {
	docs := map[string]string{
		"answer":    withoutTables(readInput(t, "answer.md")),
		"code":      withoutTables(readInput(t, "code.md")),
		"generated": withoutTables(answerDoc(12 << 10)),
	}
	for _, theme := range []string{"dark", "light", "high-contrast", "no-color"} {
		r := themeRenderer(t, theme)
		for name, doc := range docs {
			for _, width := range []int{40, 100} {
				whole, err := r.glamour(expandTabs(doc), width)
				if err != nil {
					t.Fatal(err)
				}
				want := collapseBlankLines(normalize(whole, r.fg))
				if got := collapseBlankLines(withoutFrames(r.Render(doc, width))); got != want {
					t.Errorf("%s/%s at %d: block-wise render differs from the whole document:\n%s", theme, name, width, firstDiff(got, want))
				}
			}
		}
	}
}

// TestGlamourDoubleBlankAfterNestedList pins the difference that
// TestBlockwiseMatchesWholeDocument tolerates, so that we notice if glamour
// changes.
func TestGlamourDoubleBlankAfterNestedList(t *testing.T) {
	r := themeRenderer(t, "no-color")
	doc := "- a\n  - b\n\nafter\n"
	whole, _ := r.glamour(doc, 40)
	if got := normalize(whole, r.fg); got != "* a\n  * b\n\n\nafter" {
		t.Errorf("glamour's whole render changed: %q", got)
	}
	if got := r.Render(doc, 40); got != "* a\n  * b\n\nafter" {
		t.Errorf("block-wise render: %q", got)
	}
}

var blankRuns = regexp.MustCompile(`\n{3,}`)

// withoutFrames drops the frame lines of code blocks: those starting,
// after the margin, with ╭─ or ╰─ (+- in ASCII).
func withoutFrames(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimLeft(escapes.ReplaceAllString(l, ""), " ")
		if strings.HasPrefix(t, "╭─") || strings.HasPrefix(t, "╰─") || strings.HasPrefix(t, "+-") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;:]*[A-Za-z]`)

// withoutTables drops the table blocks of a document.
func withoutTables(doc string) string {
	var keep []string
	for _, b := range splitBlocks(doc) {
		if !isTable(b) {
			keep = append(keep, b)
		}
	}
	return strings.Join(keep, "\n")
}

func collapseBlankLines(s string) string { return blankRuns.ReplaceAllString(s, "\n\n") }

func itoa(i int) string { return strconv.Itoa(i) }

func quote(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strconv.Quote(strings.TrimSpace(s))
}
