package tui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// hidden reports whether r would be invisible, or would change how the
// text around it looks, if it were written to the terminal as it is: C0
// and C1 controls (ESC starts escape sequences, CR rewinds the line),
// DEL, format characters (bidi overrides such as U+202E, zero-width
// spaces and joiners, the BOM), line and paragraph separators, and every
// space but U+0020. Newline is not hidden: it is shown as a line break.
func hidden(r rune) bool {
	switch {
	case r == '\n':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == ' ':
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp)
}

// escapeRune is how a hidden rune is shown: \t, \r and \x1b for the
// common C0 controls, \xNN for the others and DEL, \uNNNN above.
func escapeRune(r rune) string {
	switch r {
	case '\t':
		return `\t`
	case '\r':
		return `\r`
	case 0x1b:
		return `\x1b`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// visible returns s with every hidden rune and every byte that is not
// valid UTF-8 replaced by an escape, styled with esc so it stands out from
// the text around it. Newlines stay. It is what the approval dialog shows:
// what is approved is exactly what is shown.
func visible(s string, esc lipgloss.Style) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(esc.Render(fmt.Sprintf(`\x%02x`, s[i])))
		case hidden(r):
			b.WriteString(esc.Render(escapeRune(r)))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// decodeRune is utf8.DecodeRuneInString with -1 for a byte that is not
// valid UTF-8 (a literal U+FFFD stays U+FFFD).
func decodeRune(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return -1, 1
	}
	return r, size
}

// needsEscape reports whether visible would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := decodeRune(s[i:])
		if r < 0 || hidden(r) {
			return true
		}
		i += size
	}
	return false
}

// plainText makes text from outside (tool output, a pasted prompt, a
// model's tool arguments) safe to draw as transcript text: ANSI escape
// sequences are removed, tabs become spaces, and other hidden runes are
// shown as escapes.
func plainText(s string, esc lipgloss.Style) string {
	if strings.ContainsRune(s, 0x1b) || strings.ContainsRune(s, 0x9b) {
		s = ansi.Strip(s)
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' || c >= 0x7f {
			return visible(s, esc)
		}
	}
	return s
}

// markBreaks puts a multi-line command or argument on one transcript row:
// each line break becomes a visible ⏎. Nothing else changes, so visible
// can still show every hidden character (a tab, a carriage return), which
// chat.OneLine, for plain streams, would turn into spaces.
func markBreaks(s string) string {
	s = strings.Trim(s, " \n")
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}

// visibleStyled is visible with the ordinary text styled with base. The
// runs between escapes are styled separately, so an escape's style does
// not end the base style early.
func visibleStyled(s string, base, esc lipgloss.Style) string {
	return visibleRuns(s, base, esc, false, 0)
}

// visibleCode is visibleStyled for one line of code: a tab is shown as
// the spaces to the next tab stop (every 4 columns, counted from column
// skip), since code is full of tabs and \t everywhere would be hard to
// read; what is copied from the screen is then the code as it looks,
// with no marker in it. Every other hidden character is escaped.
func visibleCode(s string, skip int, base, esc lipgloss.Style) string {
	return visibleRuns(s, base, esc, true, skip)
}

func visibleRuns(s string, base, esc lipgloss.Style, code bool, skip int) string {
	if !needsEscape(s) {
		return base.Render(s)
	}
	var b strings.Builder
	col := 0 // display column, for tab stops
	run := func(from, to int) {
		if from < to {
			b.WriteString(base.Render(s[from:to]))
			col += ansi.StringWidth(s[from:to])
		}
	}
	start := 0
	for i := 0; i < len(s); {
		r, size := decodeRune(s[i:])
		switch {
		case r == '\t' && code:
			run(start, i)
			n := 4 - max(col-skip, 0)%4
			b.WriteString(base.Render(strings.Repeat(" ", n)))
			col += n
			start = i + size
		case r < 0:
			run(start, i)
			e := fmt.Sprintf(`\x%02x`, s[i])
			b.WriteString(esc.Render(e))
			col += len(e)
			start = i + size
		case hidden(r):
			run(start, i)
			e := escapeRune(r)
			b.WriteString(esc.Render(e))
			col += len(e)
			start = i + size
		}
		i += size
	}
	run(start, len(s))
	return b.String()
}
