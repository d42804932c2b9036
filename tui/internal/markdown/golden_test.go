package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
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
