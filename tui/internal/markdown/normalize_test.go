package markdown

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	uv "github.com/charmbracelet/ultraviolet"
	xansi "github.com/charmbracelet/x/ansi"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain padding", "text    ", "text"},
		{"nothing to do", "text", "text"},
		{"all spaces", "     ", ""},
		{"styled padding", "\x1b[38;2;1;2;3mtext\x1b[m\x1b[3m \x1b[m\x1b[3m \x1b[m", "\x1b[38;2;1;2;3mtext\x1b[m"},
		{"one style per change", "\x1b[38;2;1;2;3mSome \x1b[m\x1b[38;2;1;2;3;3mtext\x1b[m\x1b[38;2;1;2;3m here\x1b[m", "\x1b[38;2;1;2;3mSome \x1b[3mtext \x1b[23mhere\x1b[m"},
		{"spaces do not switch styles", "\x1b[31ma\x1b[0m\x1b[32m \x1b[0m\x1b[31mb\x1b[0m", "\x1b[31ma b\x1b[m"},
		{"spaces with a background show", "\x1b[48;5;63m title \x1b[m   ", "\x1b[48;5;63m title \x1b[m"},
		{"a space after a background is plain", "\x1b[44mx\x1b[m \x1b[44my\x1b[m", "\x1b[44mx\x1b[m \x1b[44my\x1b[m"},
		{"underlined spaces show", "\x1b[4mlink  \x1b[m", "\x1b[4mlink  \x1b[m"},
		{"reverse spaces show", "\x1b[7m  \x1b[m", "\x1b[7m  \x1b[m"},
		{"hyperlinks kept", "\x1b]8;;http://x\ax\x1b]8;;\a  ", "\x1b]8;;http://x\ax\x1b]8;;\a"},
		{"non-breaking space is visible", "code\u00a0 ", "code\u00a0"},
		{"wide characters", "日本  ", "日本"},
		{"styles carry over lines", "\x1b[1mab\ncd\x1b[m", "\x1b[1mab\x1b[m\n\x1b[1mcd\x1b[m"},
		{"blank lines around", "   \n\n a  \n   \n b \n\n  \n", " a\n\n b"},
		{"blank lines of escapes only", "\x1b[3m \x1b[m\nx\n\x1b[38;5;1m\x1b[m\n", "x"},
		{"inner blank lines kept", "a\n\n\nb", "a\n\n\nb"},
		{"empty", "\n \n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalize(tt.in, nil); got != tt.want {
				t.Errorf("normalize(%q, nil)\n = %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestNormalizeKeepsCells checks that tidying changes nothing a terminal
// shows. glamour's output for the full style (document colour included) and
// the Renderer's (glamour without the document colour, then tidied with it)
// are laid out as cells; every cell's character, style and hyperlink must
// be the same, apart from the padding that tidying drops (blank cells at
// the ends of lines, blank lines at the ends) and one documented
// difference: glamour draws table rules in the terminal's default colour,
// which the Renderer cannot tell from body text, so they get the document
// colour.
func TestNormalizeKeepsCells(t *testing.T) {
	docs := []string{readInput(t, "answer.md"), readInput(t, "code.md"), answerDoc(8 << 10)}
	for _, theme := range []string{"dark", "light", "high-contrast", "no-color"} {
		r := themeRenderer(t, theme)
		for i, doc := range docs {
			for _, width := range []int{40, 100} {
				full, err := glamour.NewTermRenderer(glamour.WithStyles(r.style), glamour.WithWordWrap(width), glamour.WithChromaFormatter("terminal16m"))
				if err != nil {
					t.Fatal(err)
				}
				raw, err := full.Render(expandTabs(doc))
				if err != nil {
					t.Fatal(err)
				}
				tidy := r.renderBlock(doc, width)
				if len(tidy) > len(raw) {
					t.Errorf("%s/doc %d: tidying grew the output", theme, i)
				}
				want, got := cells(raw), cells(tidy)
				if len(want) != len(got) {
					t.Fatalf("%s/doc %d at %d: %d lines of cells, want %d", theme, i, width, len(got), len(want))
				}
				for y := range want {
					if len(want[y]) != len(got[y]) {
						t.Fatalf("%s/doc %d at %d, line %d: %d cells, want %d", theme, i, width, y, len(got[y]), len(want[y]))
					}
					for x := range want[y] {
						w, g := want[y][x], got[y][x]
						if w.Equal(&g) {
							continue
						}
						if strings.Contains("│┼─|-", w.Content) && w.Style.Fg == nil {
							w.Style.Fg = r.fg // the documented difference
							if w.Equal(&g) {
								continue
							}
						}
						t.Fatalf("%s/doc %d at %d, cell %d,%d: got %q %q, want %q %q", theme, i, width, x, y,
							g.Content, g.Style.String(), w.Content, w.Style.String())
					}
				}
			}
		}
	}
}

// cells lays s out as a terminal would and returns each line's cells, with
// blank cells at the end of a line and blank lines at both ends left out.
func cells(s string) [][]uv.Cell {
	height := strings.Count(s, "\n") + 1
	width := 1
	for _, l := range strings.Split(s, "\n") {
		width = max(width, xansi.StringWidth(l)+1)
	}
	scr := uv.NewScreenBuffer(width, height)
	scr.Method = xansi.GraphemeWidth
	uv.NewStyledString(s).Draw(scr, scr.Bounds())

	var lines [][]uv.Cell
	for y := range height {
		var line []uv.Cell
		last := 0
		for x := range width {
			c := scr.CellAt(x, y)
			if c == nil || c.Width == 0 {
				continue // the rest of a wide character
			}
			cell := *c
			if cell.Content == "" {
				cell.Content = " "
			}
			if cell.Content == " " && !showsSpace(&cell.Style) && cell.Link.IsZero() {
				cell.Style = uv.Style{} // an empty cell looks the same in any colour
			} else {
				last = len(line) + 1
			}
			line = append(line, cell)
		}
		lines = append(lines, line[:last])
	}
	for len(lines) > 0 && len(lines[0]) == 0 {
		lines = lines[1:]
	}
	for len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}
