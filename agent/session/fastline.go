package session

import (
	"encoding/binary"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tackle-dev/tackle/tools/chat"
)

// decodeMessageLine decodes a message record written as the Writer
// writes one — {"type":"message","time":…,"message":{…},"prompt":…,
// "status":…}, compact, its message of role, content, tool calls (ID,
// name, arguments), tool call ID and reasoning — into r, and reports
// whether it could. Any other line, or anything unusual in one (another
// key or order, whitespace, a null, an escape it does not know, invalid
// UTF-8), is left to the general decoder: it decodes what it takes into
// what encoding/json would (FuzzDecodeRecord). Message records are most
// of a session's bytes, their contents long strings of code with a
// newline every few dozen bytes, which the general decoders unquote a
// byte at a time.
func decodeMessageLine(line []byte, r *Record) bool {
	p := lineParser{b: line}
	if !p.lit(`{"type":"message","time":`) {
		return false
	}
	t0 := p.i
	if _, ok := p.str(); !ok {
		return false
	}
	var t time.Time
	if t.UnmarshalJSON(line[t0:p.i]) != nil || !p.lit(`,"message":{`) {
		return false
	}
	var m chat.Message
	if !p.message(&m) {
		return false
	}
	var prompt bool
	var status string
	if p.lit(`,"prompt":true`) {
		prompt = true
	}
	if p.lit(`,"status":`) {
		s, ok := p.str()
		if !ok {
			return false
		}
		status = s
	}
	if !p.lit("}") || !p.end() {
		return false
	}
	*r = Record{Kind: KindMessage, Time: t, Message: &m, Prompt: prompt, Status: chat.ResultStatus(status)}
	return true
}

// lineParser reads the compact JSON of a line from b[i:].
type lineParser struct {
	b []byte
	i int
}

// lit consumes s if the line goes on with it.
func (p *lineParser) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// end reports whether only the line's newline is left.
func (p *lineParser) end() bool {
	return p.i == len(p.b) || p.i == len(p.b)-1 && p.b[p.i] == '\n'
}

// message reads the members of a message after its opening brace, and
// the closing one, in the order chat.Message declares them.
func (p *lineParser) message(m *chat.Message) bool {
	first := true
	member := func(key string) bool {
		if !first {
			key = "," + key
		}
		if p.lit(key) {
			first = false
			return true
		}
		return false
	}
	str := func(key string, to *string) bool {
		if !member(key) {
			return true
		}
		s, ok := p.str()
		*to = s
		return ok
	}
	var role string
	if !str(`"role":`, &role) || !str(`"content":`, &m.Content) {
		return false
	}
	m.Role = chat.Role(role)
	if member(`"tool_calls":[`) {
		m.ToolCalls = []chat.ToolCall{}
		for i := 0; !p.lit("]"); i++ {
			if i > 0 && !p.lit(",") {
				return false
			}
			var c chat.ToolCall
			var ok bool
			if !p.lit(`{"id":`) {
				return false
			}
			if c.ID, ok = p.str(); !ok || !p.lit(`,"name":`) {
				return false
			}
			if c.Name, ok = p.str(); !ok || !p.lit(`,"arguments":`) {
				return false
			}
			if c.Arguments, ok = p.str(); !ok || !p.lit("}") {
				return false
			}
			m.ToolCalls = append(m.ToolCalls, c)
		}
	}
	if !str(`"tool_call_id":`, &m.ToolCallID) || !str(`"reasoning":`, &m.Reasoning) {
		return false
	}
	return p.lit("}")
}

// str reads a JSON string and returns its text; false (and the line to
// the general decoder) for a control character, an escaped surrogate or
// invalid UTF-8, whose decoding encoding/json defines in its own way.
func (p *lineParser) str() (string, bool) {
	b := p.b
	if p.i >= len(b) || b[p.i] != '"' {
		return "", false
	}
	i := p.i + 1
	start := i
	var out []byte // nil while the text is b[start:i]
	for {
		for i+8 <= len(b) && plainBytes(b[i:i+8]) {
			i += 8
		}
		if i >= len(b) {
			return "", false
		}
		c := b[i]
		switch {
		case c == '"':
			p.i = i + 1
			if out == nil {
				return string(b[start:i]), true
			}
			out = append(out, b[start:i]...)
			// out is this string's own, never written again.
			return unsafe.String(unsafe.SliceData(out), len(out)), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if i+1 >= len(b) {
				return "", false
			}
			if out == nil {
				// The text left on the line is at most as long as the
				// rest of the line: one allocation.
				out = make([]byte, 0, len(b)-p.i)
			}
			out = append(out, b[start:i]...)
			var r byte
			switch b[i+1] {
			case '"', '\\', '/':
				r = b[i+1]
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				if i+6 > len(b) {
					return "", false
				}
				var v rune
				for _, h := range b[i+2 : i+6] {
					switch {
					case '0' <= h && h <= '9':
						v = v<<4 | rune(h-'0')
					case 'a' <= h && h <= 'f':
						v = v<<4 | rune(h-'a'+10)
					case 'A' <= h && h <= 'F':
						v = v<<4 | rune(h-'A'+10)
					default:
						return "", false
					}
				}
				if utf8.RuneLen(v) < 0 { // a surrogate
					return "", false
				}
				out = utf8.AppendRune(out, v)
				i += 6
				start = i
				continue
			default:
				return "", false
			}
			out = append(out, r)
			i += 2
			start = i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			i += size
		}
	}
}

// plainBytes reports whether the eight bytes of w are plain JSON string
// text (chat.PlainJSON).
func plainBytes(w []byte) bool { return chat.PlainJSON(binary.LittleEndian.Uint64(w)) }
