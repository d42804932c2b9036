package markdown

import (
	"image/color"
	"strconv"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// normalize tidies one glamour render so that renders of consecutive blocks
// can be joined with a single blank line and look like one document, and so
// that it is small:
//
//   - styles are re-encoded minimally: glamour and chroma wrap every word
//     or token in a full style and a reset; here a style is set only where
//     it changes what is shown, spaces that show no colour do not switch
//     styles, and every line ends in the plain state (so that what the UI
//     draws after a line is not coloured by it);
//   - spaces at the end of a line that nothing makes visible (no
//     background, reverse video, underline or strike-through) are dropped:
//     glamour pads every line to the wrap width, which only gets in the way
//     of copying text and of terminals narrower than the render;
//   - blank lines at the start and the end are dropped, and so is the final
//     newline;
//   - text with no foreground colour gets fg, if it is not nil: the
//     document colour, which is not given to glamour (see [NewRenderer]).
//
// What a terminal shows — every cell's character, colours, attributes and
// hyperlink — is unchanged (TestNormalizeKeepsCells checks this), but for
// the colour fg gives.
func normalize(s string, fg color.Color) string {
	t := tidier{fg: fg}
	var out strings.Builder
	out.Grow(len(s) / 2)
	pendingBlank := 0
	for len(s) > 0 {
		var line string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		if !t.line(line) {
			if out.Len() > 0 {
				pendingBlank++
			}
			continue
		}
		if out.Len() > 0 {
			for range pendingBlank + 1 {
				out.WriteByte('\n')
			}
		}
		pendingBlank = 0
		out.Write(t.out)
	}
	return out.String()
}

// tidier re-encodes lines; pen carries the style from line to line, as a
// terminal would.
type tidier struct {
	out    []byte       // the last line tidied
	fg     color.Color  // the default foreground colour
	pen    uv.Style     // the style the source has set
	params xansi.Params // scratch
}

// line tidies one line into t.out and reports whether it shows anything.
func (t *tidier) line(line string) bool {
	t.out = t.out[:0]
	var (
		shown   uv.Style // the style the output has set
		spaces  int      // invisible spaces not written yet
		visible bool
	)
	flushSpaces := func() {
		if spaces == 0 {
			return
		}
		if showsSpace(&shown) {
			t.out = append(t.out, xansi.ResetStyle...)
			shown = uv.Style{}
		}
		for ; spaces > 0; spaces-- {
			t.out = append(t.out, ' ')
		}
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c == 0x1b {
			j := skipEscape(line, i)
			if seq := line[i:j]; isSGR(seq) {
				uv.ReadStyle(t.parse(seq[2:len(seq)-1]), &t.pen)
			} else {
				// Hyperlinks and other sequences stay where they are.
				flushSpaces()
				t.out = append(t.out, seq...)
				visible = true
			}
			i = j
			continue
		}
		if c == ' ' && !showsSpace(&t.pen) {
			spaces++
			i++
			continue
		}
		size := 1
		if c >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(line[i:])
		}
		flushSpaces()
		want := t.pen
		if want.Fg == nil {
			want.Fg = t.fg
		}
		if !shown.Equal(&want) {
			t.out = append(t.out, uv.StyleDiff(&shown, &want)...)
			shown = want
		}
		t.out = append(t.out, line[i:i+size]...)
		visible = true
		i += size
	}
	if !shown.IsZero() {
		t.out = append(t.out, xansi.ResetStyle...)
	}
	return visible
}

// parse turns the parameters of an SGR sequence ("1;38;2;1;2;3", "4:3")
// into the form the ultraviolet style reader takes.
func (t *tidier) parse(s string) xansi.Params {
	t.params = t.params[:0]
	for {
		end := strings.IndexAny(s, ";:")
		field := s
		if end >= 0 {
			field = s[:end]
		}
		p := parser.MissingParam
		if n, err := strconv.Atoi(field); err == nil && n >= 0 {
			p = n
		}
		t.params = append(t.params, xansi.Param(xansi.Parameter(p, end >= 0 && s[end] == ':')))
		if end < 0 {
			return t.params
		}
		s = s[end+1:]
	}
}

// showsSpace reports whether a space drawn in style st looks different from
// one drawn in the plain style.
func showsSpace(st *uv.Style) bool {
	return st.Bg != nil || st.Underline != uv.UnderlineNone ||
		st.Attrs&(uv.AttrReverse|uv.AttrStrikethrough) != 0
}

// skipEscape returns the index just after the escape sequence at s[i].
// CSI sequences end at a final byte in 0x40–0x7e; OSC sequences at BEL or ST.
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		for j := i + 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
		return len(s)
	case ']':
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	default:
		return i + 2
	}
}

func isSGR(seq string) bool {
	return len(seq) >= 3 && seq[1] == '[' && seq[len(seq)-1] == 'm'
}
