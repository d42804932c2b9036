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

// oneLine puts a multi-line command or argument on one transcript row:
// line breaks become a visible ⏎. Nothing else changes, so visible can
// still show every hidden character.
func oneLine(s string) string {
	s = strings.Trim(s, " \n")
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}
