package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	xansi "github.com/charmbracelet/x/ansi"
)

// TestGolden renders the documents in testdata/markdown at fixed widths:
// in the dark theme with 24-bit colour (glamour's output as it is), the
// same downsampled to the Ascii profile (no colours, attributes kept) the
// way the terminal program would for a terminal without colour, and in the
// no-color theme.
func TestGolden(t *testing.T) {
	for _, doc := range []string{"answer", "code"} {
		src := readInput(t, doc+".md")
		for _, width := range []int{40, 80} {
			dark := themeRenderer(t, "dark").Render(src, width)
			requireGolden(t, doc+"_dark_truecolor_"+itoa(width), dark)
			requireGolden(t, doc+"_dark_ascii_"+itoa(width), downsample(t, dark, colorprofile.Ascii))
			requireGolden(t, doc+"_nocolor_"+itoa(width), themeRenderer(t, "no-color").Render(src, width))
		}
	}
}

func downsample(t *testing.T, s string, p colorprofile.Profile) string {
	t.Helper()
	var b strings.Builder
	w := &colorprofile.Writer{Forward: &b, Profile: p}
	if _, err := w.WriteString(s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTablesFitTheirContent: a narrow table stays as wide as its content
// at 200 columns (glamour stretches it to the full width), and a wide one
// wraps its cells within 60; golden in the no-color theme.
func TestTablesFitTheirContent(t *testing.T) {
	src := "| flag | does |\n| --- | --- |\n| `-p` | run once |\n| `-c` | go on with the last session, which keeps its approvals and model |\n"
	r := themeRenderer(t, "no-color")
	for _, width := range []int{200, 60} {
		out := r.Render(src, width)
		widest := 0
		for _, l := range strings.Split(out, "\n") {
			widest = max(widest, xansiWidth(l))
		}
		if widest > width {
			t.Errorf("at %d columns a line is %d wide:\n%s", width, widest, out)
		}
		if width == 200 && widest > 90 {
			t.Errorf("at 200 columns the table is %d wide, more than its content:\n%s", widest, out)
		}
		requireGolden(t, "table_nocolor_"+itoa(width), out)
	}
}

func xansiWidth(s string) int { return xansi.StringWidth(s) }
