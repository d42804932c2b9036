package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// changes counts what sanitize replaced in command output.
type changes struct {
	escapes  int // terminal escape sequences removed
	controls int // control characters shown as symbols
	invalid  int // bytes of invalid UTF-8 shown as U+FFFD
	size     int // bytes looked at
}

func (c *changes) add(o changes) {
	c.escapes += o.escapes
	c.controls += o.controls
	c.invalid += o.invalid
	c.size += o.size
}

// binary reports whether the output is mostly not text, as read_file
// judges files: over 30% of its bytes are control characters or invalid
// UTF-8. A few such bytes are shown as symbols, whatever the mix.
func (c changes) binary() bool {
	bad := c.controls + c.invalid
	return bad >= 16 && bad*10 > c.size*3
}

// note says what was changed, for the model, or "" when nothing was.
func (c changes) note() string {
	var parts []string
	if c.escapes > 0 {
		parts = append(parts, fmt.Sprintf("removed %s (colours, cursor movement)", plural(c.escapes, "terminal escape sequence")))
	}
	if c.controls > 0 {
		parts = append(parts, fmt.Sprintf("showed %s as symbols such as ␀ (NUL) and ␛ (ESC)", plural(c.controls, "control character")))
	}
	if c.invalid > 0 {
		parts = append(parts, fmt.Sprintf("showed %s of invalid UTF-8 as �", plural(c.invalid, "byte")))
	}
	if len(parts) == 0 {
		return ""
	}
	hint := ""
	if c.controls > 0 || c.invalid > 0 {
		hint = " Pipe the output through `od -c` or `xxd` to see the raw bytes."
	}
	return "[The output was made readable: " + strings.Join(parts, "; ") + "." + hint + "]\n"
}

// maxEscapeLen bounds an escape sequence that is removed; a longer one is
// not a terminal sequence and its ESC is shown as a symbol.
const maxEscapeLen = 256

// sanitize makes command output safe to show as text: terminal escape
// sequences (CSI, OSC and two- or three-byte escapes) are removed, control
// characters other than tab, newline and carriage return are shown as
// their Unicode control pictures (NUL as ␀, ESC as ␛, DEL as ␡; C1
// controls as U+FFFD), and invalid UTF-8 as U+FFFD. Valid text is kept as
// it is.
func sanitize(s string) (string, changes) {
	c := changes{size: len(s)}
	clean := true
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s, c
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == 0x1b:
			if n := escapeLen(s[i:]); n > 0 {
				c.escapes++
				i += n
				continue
			}
			b.WriteRune(0x2400 + rune(ch))
			c.controls++
			i++
		case ch == '\t' || ch == '\n' || ch == '\r':
			b.WriteByte(ch)
			i++
		case ch < 0x20:
			b.WriteRune(0x2400 + rune(ch))
			c.controls++
			i++
		case ch == 0x7f:
			b.WriteRune('␡')
			c.controls++
			i++
		case ch < utf8.RuneSelf:
			b.WriteByte(ch)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b.WriteRune(utf8.RuneError)
				c.invalid++
			case r >= 0x80 && r <= 0x9f:
				b.WriteRune(utf8.RuneError)
				c.controls++
			default:
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String(), c
}

// escapeLen returns the length of the terminal escape sequence at the
// start of s (which starts with ESC), or 0 when there is none.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '[': // CSI: parameters, intermediates, a final byte
		i := 2
		for i < len(s) && i < maxEscapeLen && s[i] >= 0x30 && s[i] <= 0x3f {
			i++
		}
		for i < len(s) && i < maxEscapeLen && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
		return 0
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: a string ended by BEL or ESC \
		for i := 2; i < len(s) && i < maxEscapeLen; i++ {
			switch {
			case s[i] == 0x07 && s[1] == ']':
				return i + 1
			case s[i] == 0x1b:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return 0
			}
		}
		return 0
	}
	// Intermediates, then a final byte: ESC c, ESC ( B, ESC 7.
	i := 1
	for i < len(s) && i < 4 && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		return i + 1
	}
	return 0
}
