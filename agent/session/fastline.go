package session

import (
	"encoding/binary"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tackle-dev/tackle/hooks"
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
	t, ok := p.head(`{"type":"message","time":`)
	if !ok || !p.lit(`,"message":{`) {
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

// decodeDecisionLine decodes a hook decision record written as the
// Writer writes one — {"type":"decision","time":…,"decision":{…}}, its
// members in the order hooks.Decision declares them — as
// decodeMessageLine does a message record: a long session holds a few
// for every tool call.
func decodeDecisionLine(line []byte, r *Record) bool {
	p := lineParser{b: line}
	t, ok := p.head(`{"type":"decision","time":`)
	if !ok || !p.lit(`,"decision":{"event":`) {
		return false
	}
	var d hooks.Decision
	var event string
	if event, ok = p.str(); !ok || !p.lit(`,"hook":`) {
		return false
	}
	if d.Hook, ok = p.str(); !ok || !p.lit(`,"result":`) {
		return false
	}
	if d.Result, ok = p.str(); !ok || !p.optStr(`,"reason":`, &d.Reason) || !p.lit(`,"duration_ns":`) {
		return false
	}
	n, ok := p.int()
	if !ok || !p.optStr(`,"call_id":`, &d.CallID) || !p.optStr(`,"error":`, &d.Error) {
		return false
	}
	if d.Event.UnmarshalText([]byte(event)) != nil {
		return false // encoding/json's error
	}
	d.Duration = time.Duration(n)
	if p.lit(`,"protect":true`) {
		d.Protect = true
	}
	if !p.lit("}}") || !p.end() {
		return false
	}
	*r = Record{Kind: KindDecision, Time: t, Decision: &d}
	return true
}

// decodeUsageLine decodes a usage record written as the Writer writes
// one — {"type":"usage","time":…,"usage":{…},"context_tokens":…,
// "context_window":…} — as decodeMessageLine does a message record: a
// long session holds one for every request.
func decodeUsageLine(line []byte, r *Record) bool {
	p := lineParser{b: line}
	t, ok := p.head(`{"type":"usage","time":`)
	if !ok || !p.lit(`,"usage":{"prompt_tokens":`) {
		return false
	}
	var u chat.Usage
	if u.PromptTokens, ok = p.int(); !ok || !p.lit(`,"completion_tokens":`) {
		return false
	}
	if u.CompletionTokens, ok = p.int(); !ok || !p.lit(`,"total_tokens":`) {
		return false
	}
	if u.TotalTokens, ok = p.int(); !ok || !p.optInt(`,"reasoning_tokens":`, &u.ReasoningTokens) || !p.lit("}") {
		return false
	}
	rec := Record{Kind: KindUsage, Time: t, Usage: &u}
	if !p.optInt(`,"context_tokens":`, &rec.Context) || !p.optInt(`,"context_window":`, &rec.Window) {
		return false
	}
	if !p.lit("}") || !p.end() {
		return false
	}
	*r = rec
	return true
}

// head reads a record's opening up to its time, given with the key
// before it, and the time.
func (p *lineParser) head(opening string) (time.Time, bool) {
	var t time.Time
	if !p.lit(opening) {
		return t, false
	}
	t0 := p.i
	if _, ok := p.str(); !ok || t.UnmarshalJSON(p.b[t0:p.i]) != nil {
		return t, false
	}
	return t, true
}

// optStr reads the string member key, if the line goes on with it, into
// to; false for a malformed string.
func (p *lineParser) optStr(key string, to *string) bool {
	if !p.lit(key) {
		return true
	}
	s, ok := p.str()
	*to = s
	return ok
}

// optInt reads the integer member key, if the line goes on with it,
// into to; false for a malformed integer.
func (p *lineParser) optInt(key string, to *int64) bool {
	if !p.lit(key) {
		return true
	}
	n, ok := p.int()
	*to = n
	return ok
}

// int reads an integer as JSON writes an int64: an optional minus, no
// leading zero, no fraction or exponent, within int64 (anything else is
// the general decoder's).
func (p *lineParser) int() (int64, bool) {
	b, i := p.b, p.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var n uint64
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(b[i]-'0')
		i++
	}
	switch {
	case i == start, b[start] == '0' && i-start > 1, i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'):
		return 0, false
	case !neg && n > 1<<63-1, neg && n > 1<<63:
		return 0, false
	}
	p.i = i
	if neg {
		return -int64(n), true
	}
	return int64(n), true
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
