package markdown

import "strings"

// normalize tidies one glamour render so that renders of consecutive blocks
// can be joined with a single blank line and look like one document:
//
//   - spaces at the end of a line that nothing makes visible (no background,
//     reverse video, underline or strike-through is active) are dropped —
//     glamour pads every line to the wrap width, which only gets in the way
//     of copying text and of terminals narrower than the render;
//   - escape sequences that follow the last visible character and end in a
//     reset collapse to that one reset;
//   - blank lines at the start and the end are dropped, and so is the final
//     newline.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingBlank := 0
	started := false
	for len(s) > 0 {
		var line string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		line = trimLine(line)
		if isBlankRender(line) {
			if started {
				pendingBlank++
			}
			continue
		}
		if started {
			b.WriteByte('\n')
		}
		for ; pendingBlank > 0; pendingBlank-- {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		started = true
	}
	return b.String()
}

// isBlankRender reports whether a trimmed line shows nothing.
func isBlankRender(line string) bool {
	for i := 0; i < len(line); {
		if line[i] == 0x1b {
			i = skipEscape(line, i)
			continue
		}
		return false
	}
	return true
}

// trimLine drops the invisible trailing spaces of one rendered line. See
// [normalize].
func trimLine(line string) string {
	var st sgrState
	visibleEnd := 0 // just after the last character that shows
	lastEsc := -1   // start of the last escape sequence after visibleEnd
	for i := 0; i < len(line); {
		c := line[i]
		if c == 0x1b {
			j := skipEscape(line, i)
			if !isSGR(line[i:j]) {
				// Hyperlinks and other sequences are kept as they are.
				visibleEnd, lastEsc = j, -1
			} else {
				st.apply(line[i+2 : j-1])
				lastEsc = i
			}
			i = j
			continue
		}
		i++
		if c == ' ' && !st.showsSpace() {
			continue
		}
		for i < len(line) && line[i]&0xc0 == 0x80 { // rest of a UTF-8 sequence
			i++
		}
		visibleEnd, lastEsc = i, -1
	}
	if visibleEnd == len(line) {
		return line
	}
	out := line[:visibleEnd]
	if lastEsc < 0 {
		return out
	}
	if last := line[lastEsc:skipEscape(line, lastEsc)]; last == "\x1b[m" || last == "\x1b[0m" {
		// Whatever came before, the line ends in the plain state.
		return out + "\x1b[m"
	}
	// Keep the escapes (only the spaces go) so that the state carried over
	// to the next line is unchanged.
	var b strings.Builder
	b.WriteString(out)
	for i := visibleEnd; i < len(line); {
		if line[i] == 0x1b {
			j := skipEscape(line, i)
			b.WriteString(line[i:j])
			i = j
			continue
		}
		i++
	}
	return b.String()
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

// sgrState tracks the attributes that make a space visible.
type sgrState struct {
	bg, reverse, underline, strike bool
}

func (st sgrState) showsSpace() bool { return st.bg || st.reverse || st.underline || st.strike }

// apply updates the state with the parameters of one SGR sequence.
func (st *sgrState) apply(params string) {
	if params == "" {
		*st = sgrState{}
		return
	}
	for params != "" {
		var p string
		if i := strings.IndexByte(params, ';'); i >= 0 {
			p, params = params[:i], params[i+1:]
		} else {
			p, params = params, ""
		}
		// Sub-parameters (4:3, 38:2:…) belong to their parameter.
		colon := false
		if i := strings.IndexByte(p, ':'); i >= 0 {
			p, colon = p[:i], true
		}
		switch p {
		case "", "0":
			*st = sgrState{}
		case "4", "21":
			st.underline = true
		case "24":
			st.underline = false
		case "7":
			st.reverse = true
		case "27":
			st.reverse = false
		case "9":
			st.strike = true
		case "29":
			st.strike = false
		case "49":
			st.bg = false
		case "38", "58":
			if !colon {
				params = skipColourArgs(params)
			}
		case "48":
			st.bg = true
			if !colon {
				params = skipColourArgs(params)
			}
		default:
			if n := len(p); n == 2 && p[0] == '4' && p[1] >= '0' && p[1] <= '7' ||
				n == 3 && p[0] == '1' && p[1] == '0' && p[2] >= '0' && p[2] <= '7' {
				st.bg = true
			}
		}
	}
}

// skipColourArgs skips the arguments of an extended colour given with
// semicolons: "5;n" or "2;r;g;b".
func skipColourArgs(params string) string {
	next := func() string {
		if i := strings.IndexByte(params, ';'); i >= 0 {
			p := params[:i]
			params = params[i+1:]
			return p
		}
		p := params
		params = ""
		return p
	}
	switch next() {
	case "5":
		next()
	case "2":
		next()
		next()
		next()
	}
	return params
}
