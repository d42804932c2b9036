package markdown

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	xansi "github.com/charmbracelet/x/ansi"
)

// Text of the open block that has not been through glamour yet is drawn
// plain: no colour, no markup, wrapped. It is drawn without escape
// sequences on purpose: then a frame's text usually extends the previous
// frame's, which lets [Stream.Render] append instead of copying.

// plainCodeLine draws one line of code without highlighting, indented like
// a rendered code block and cut into lines of width, as glamour does.
func (r *Renderer) plainCodeLine(line string, width int) string {
	line = strings.TrimRight(expandTabs(strings.TrimRight(line, "\r\n")), " ")
	if line == "" {
		return ""
	}
	line = r.codeIndent + line
	if textWidth(line) > width {
		line = xansi.Hardwrap(line, width, true)
	}
	return line
}

// codeLines renders lines (complete lines of a fenced code block opened by
// header) as a code block of their own and returns the rendered lines:
// blank source lines at either end, which rendering would drop, are kept as
// empty lines; long lines may have been wrapped into several.
func (r *Renderer) codeLines(header, lines, closing string, width int) []string {
	src := strings.SplitAfter(strings.TrimSuffix(lines, "\n"), "\n")
	lead := 0
	for lead < len(src) && isBlank(src[lead]) {
		lead++
	}
	out := make([]string, lead, len(src))
	if lead == len(src) {
		return out
	}
	trail := 0
	for isBlank(src[len(src)-1-trail]) {
		trail++
	}
	out = append(out, strings.Split(r.renderBody(header+lines+closing, width), "\n")...)
	return append(out, make([]string, trail)...)
}

// plainAfter continues a rendered block with more of its source, drawn
// plain and wrapped at width after the block's last line.
type plainAfter struct {
	col    int // width of the rendered block's last line
	indent int // where wrapped lines start: under the last line's text
}

func newPlainAfter(rendered string) plainAfter {
	last := rendered[strings.LastIndexByte(rendered, '\n')+1:]
	return plainAfter{col: xansi.StringWidth(last), indent: hangingIndent(xansi.Strip(last))}
}

// draw appends text to b (which holds the rendered block), wrapped at
// width character by character rather than word by word: a character, once
// placed, never moves, so the text drawn for more source extends the text
// drawn for less — which is what lets Render append rather than copy. A
// word cut at the end of a line is joined again by the next glamour render.
func (p plainAfter) draw(b *strings.Builder, text string, width int) {
	col, indent := p.col, p.indent
	for _, r := range text {
		switch r {
		case '\r':
			continue
		case '\n':
			// A new source line starts at the left edge.
			b.WriteByte('\n')
			col, indent = 0, 0
			continue
		case '\t':
			r = ' '
		}
		w := 1
		if r >= utf8.RuneSelf {
			w = xansi.StringWidth(string(r))
		}
		if col+w > width && col > indent {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent))
			col = indent
			if r == ' ' {
				continue // no space at the start of a wrapped line
			}
		}
		b.WriteRune(r)
		col += w
	}
}

// textWidth is the width of text without escape sequences, in cells.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < ' ' {
			return xansi.StringWidth(s)
		}
	}
	return len(s)
}

// hangingIndent is the column where the text of a rendered line (escape
// sequences stripped) starts: after leading spaces and a list bullet, task
// box or number.
func hangingIndent(line string) int {
	n := len(line) - len(strings.TrimLeft(line, " "))
	rest := line[n:]
	for _, bullet := range []string{"• ", "* ", "- ", "[ ] ", "[✓] ", "[x] "} {
		if strings.HasPrefix(rest, bullet) {
			return n + utf8.RuneCountInString(bullet)
		}
	}
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if digits > 0 && strings.HasPrefix(rest[digits:], ". ") {
		return n + digits + 2
	}
	return n
}

// extender joins a head and a tail into one string, appending to its
// buffer instead of copying when the result extends the previous one: same
// head, and a tail that starts with the previous tail. Strings it returned
// before stay valid and unchanged: the buffer is only ever appended to.
type extender struct {
	buf        strings.Builder
	head, tail string
	ok         bool
	copies     int // joins that had to copy, for tests and benchmarks
}

func (e *extender) join(head, tail string) string {
	if e.ok && sameString(head, e.head) && strings.HasPrefix(tail, e.tail) {
		e.buf.WriteString(tail[len(e.tail):])
		e.tail = tail
		return e.buf.String()
	}
	e.buf = strings.Builder{}
	size := len(head) + len(tail)
	e.buf.Grow(size + size/4 + 256)
	e.buf.WriteString(head)
	e.buf.WriteString(tail)
	e.head, e.tail, e.ok = head, tail, true
	e.copies++
	return e.buf.String()
}

// sameString reports whether a and b are the same bytes in memory (not just
// equal), in constant time.
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}
