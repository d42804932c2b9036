package agent

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/openai/openai-go/v3/option"

	"github.com/tackle-dev/tackle/tools/chat"
)

// requestBodies builds the JSON bodies of chat completion requests. A
// conversation's requests repeat every earlier message, so each message
// is encoded (through openai-go, as before) once, when it is first sent,
// and later bodies copy its bytes: the work per request no longer grows
// with the length of the conversation, apart from the copy itself (a
// 4 MB conversation took 27 ms per request to encode again).
//
// It remembers the messages of the last body in order and reuses the
// encodings of the longest prefix the next request shares with it, so a
// compacted or edited conversation is encoded again from the first
// message that differs. It is safe for concurrent use.
type requestBodies struct {
	mu   sync.Mutex
	msgs []chat.Message // the messages of the last body
	enc  [][]byte       // their encodings, each after a comma (commaMessage)
	// rest is the encoding of the last body's other parameters (model,
	// tools, reasoning effort), made from restOf: the tools' schemas are
	// converted and encoded again only when they change.
	rest   []byte
	restOf Request // without its messages
}

// requestBody is the JSON body of one request in pieces: its head, each
// message's encoding with the comma before it (shared with the cache,
// which never changes one) and its tail. Sending the pieces one after
// the other spares a copy of the whole conversation per request (and
// openai-go's second copy, when it sets "stream" in a body it is given:
// send); at 4,000 messages (4.5 MB) the two copies took 3 ms a request.
type requestBody struct {
	pieces [][]byte
	size   int
}

// Reader returns a reader of the whole body, from its start.
func (b requestBody) Reader() io.Reader {
	bufs := make(net.Buffers, len(b.pieces))
	copy(bufs, b.pieces)
	return &bufs
}

// Bytes returns the whole body in one slice.
func (b requestBody) Bytes() []byte {
	out := make([]byte, 0, b.size)
	for _, p := range b.pieces {
		out = append(out, p...)
	}
	return out
}

// send is an openai-go middleware that sends b as the request's body in
// place of the one openai-go made (a placeholder: see OpenAI.attempt).
func (b requestBody) send(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(b.Reader()), nil }
	req.Body, _ = req.GetBody()
	req.ContentLength = int64(b.size)
	return next(req)
}

// body returns the request body of req: `"stream":true` first, then the
// messages, then the other parameters as openai-go encodes them.
func (c *requestBodies) body(req Request) (requestBody, error) {
	rest, err := c.otherParams(req)
	if err != nil {
		return requestBody{}, err
	}
	var b requestBody
	add := func(p []byte) {
		b.pieces = append(b.pieces, p)
		b.size += len(p)
	}
	err = c.messages(req.Messages, func(enc [][]byte) {
		b.pieces = make([][]byte, 0, len(enc)+2)
		add([]byte(`{"stream":true,"messages":[`))
		for i, e := range enc {
			if i == 0 {
				e = e[1:]
			}
			add(e)
		}
	})
	if err != nil {
		return requestBody{}, err
	}
	tail := []byte{']'}
	if rest = bytes.TrimSpace(rest[1:]); rest[0] != '}' {
		tail = append(tail, ',')
	}
	add(append(tail, rest...))
	return b, nil
}

// otherParams returns the encoding of req's parameters other than the
// messages, as openai-go makes it: the last one's when they are the same.
func (c *requestBodies) otherParams(req Request) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rest != nil && sameParams(&req, &c.restOf) {
		return c.rest, nil
	}
	params, err := otherParams(req)
	if err != nil {
		return nil, err
	}
	rest, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	if len(rest) < 2 || rest[0] != '{' {
		return nil, fmt.Errorf("encode the request: not a JSON object: %.40q", rest)
	}
	req.Messages, req.Tools = nil, slices.Clone(req.Tools)
	for i := range req.Tools {
		req.Tools[i].Parameters = bytes.Clone(req.Tools[i].Parameters)
	}
	c.rest, c.restOf = rest, req
	return rest, nil
}

// sameParams reports whether a and b have the same parameters other than
// their messages (TestRequestBodiesFollowEveryParameter fails when
// Request or chat.ToolSpec gets a field this does not compare).
func sameParams(a, b *Request) bool {
	if a.Model != b.Model || a.ReasoningEffort != b.ReasoningEffort || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i := range a.Tools {
		x, y := &a.Tools[i], &b.Tools[i]
		if x.Name != y.Name || x.Description != y.Description || !bytes.Equal(x.Parameters, y.Parameters) {
			return false
		}
	}
	return true
}

// messages encodes msgs, reusing the encodings of the last body's shared
// prefix, and hands use the encoding of each message.
func (c *requestBodies) messages(msgs []chat.Message, use func(enc [][]byte)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	same := 0
	for same < min(len(msgs), len(c.msgs)) && sameMessage(&msgs[same], &c.msgs[same]) {
		same++
	}
	c.msgs, c.enc = c.msgs[:same], c.enc[:same]
	enc := make([][]byte, len(msgs)-same)
	if i, err := encodeMessages(msgs[same:], enc); err != nil {
		c.msgs, c.enc = append(c.msgs, msgs[same:same+i]...), append(c.enc, enc[:i]...)
		return fmt.Errorf("message %d: %w", same+i, err)
	}
	c.msgs, c.enc = append(c.msgs, msgs[same:]...), append(c.enc, enc...)
	// While the lock is held: the next call changes c.enc.
	use(c.enc)
	return nil
}

// parallelFrom is the number of messages to encode from which the work is
// shared by the CPUs: the first request of a continued session encodes
// every message (4,000 of them, 4 MB, for 150 turns of tool calls).
const parallelFrom = 256

// encodeMessages encodes msgs[i] into enc[i], on every CPU when there are
// many. On an error it returns the index of the first message that could
// not be encoded (those before it are encoded).
func encodeMessages(msgs []chat.Message, enc [][]byte) (int, error) {
	workers := 1
	if len(msgs) >= parallelFrom {
		workers = min(runtime.GOMAXPROCS(0), len(msgs)/(parallelFrom/2))
	}
	chunk := (len(msgs) + workers - 1) / workers
	first := make([]int, workers) // each chunk's first failure, or its end
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(msgs))
		first[w] = hi
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				e, err := commaMessage(msgs[i])
				if err != nil {
					first[w], errs[w] = i, err
					return
				}
				enc[i] = e
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			return first[w], err
		}
	}
	return len(msgs), nil
}

// encodeMessage is a message's encoding as openai-go makes it.
func encodeMessage(m chat.Message) ([]byte, error) {
	b, err := commaMessage(m)
	if err != nil {
		return nil, err
	}
	return b[1:], nil
}

// commaMessage is a comma, then m's encoding as openai-go makes it: the
// cache keeps each message so, which spares a piece per message in a
// body (the first message's comma is left out). The messages of a
// conversation's usual shapes are written directly (appendPlainMessage,
// byte for byte what openai-go writes: ten times faster than its
// reflection); the others go through openai-go's own MarshalJSON, called
// directly (json.Marshal would check and compact what it returns again:
// a third of the time).
func commaMessage(m chat.Message) ([]byte, error) {
	size := len(m.Content) + len(m.ToolCallID) + 64
	for _, tc := range m.ToolCalls {
		size += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + 80
	}
	b := append(make([]byte, 0, size+size/16), ',')
	if b, ok := appendPlainMessage(b, &m); ok {
		return b, nil
	}
	p, err := messageParam(m)
	if err != nil {
		return nil, err
	}
	enc, err := p.MarshalJSON()
	return append(b, enc...), err
}

// appendPlainMessage appends m's encoding as openai-go makes it (see
// messageParam) when m is of a shape whose encoding is fixed: a system
// message, a user message without images, a tool result with its call's
// ID, an assistant message without fields kept for the server (Extra)
// whose calls have none either. For any other message it reports false.
// TestPlainMessagesAsOpenAIGoEncodesThem and FuzzPlainMessage compare it
// with openai-go.
func appendPlainMessage(b []byte, m *chat.Message) ([]byte, bool) {
	switch m.Role {
	case chat.RoleSystem, chat.RoleUser:
		if len(m.Images) > 0 {
			return b, false
		}
		b = append(b, `{"content":`...)
		b = appendWireString(b, m.Content)
		b = append(b, `,"role":"`...)
		b = append(b, m.Role...)
		return append(b, `"}`...), true
	case chat.RoleTool:
		if m.ToolCallID == "" {
			return b, false
		}
		b = append(b, `{"content":`...)
		b = appendWireString(b, m.Content)
		b = append(b, `,"tool_call_id":`...)
		b = appendWireString(b, m.ToolCallID)
		return append(b, `,"role":"tool"}`...), true
	case chat.RoleAssistant:
		if len(m.ToolCalls) > 0 && len(m.Extra) > 0 {
			return b, false
		}
		for _, tc := range m.ToolCalls {
			if len(tc.Extra) > 0 {
				return b, false
			}
		}
		b = append(b, '{')
		if m.Content != "" || len(m.ToolCalls) == 0 {
			b = append(b, `"content":`...)
			b = appendWireString(b, m.Content)
			b = append(b, ',')
		}
		if len(m.ToolCalls) > 0 {
			b = append(b, `"tool_calls":[`...)
			for i, tc := range m.ToolCalls {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"id":`...)
				b = appendWireString(b, tc.ID)
				b = append(b, `,"function":{"arguments":`...)
				b = appendWireString(b, wireArguments(tc.Arguments))
				b = append(b, `,"name":`...)
				b = appendWireString(b, tc.Name)
				b = append(b, `},"type":"function"}`...)
			}
			b = append(b, "],"...)
		}
		return append(b, `"role":"assistant"}`...), true
	}
	return b, false
}

// appendWireString appends s as a JSON string the way openai-go's (and
// encoding/json's) encoder writes it without HTML escaping: quotes,
// backslashes and control characters escaped (\b \f \n \r \t by name),
// U+2028 and U+2029 escaped, each byte of invalid UTF-8 as \ufffd.
func appendWireString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look (most of a
		// conversation is plain ASCII text).
		for i+8 <= len(s) && plainWord(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainWord reports whether the eight bytes of w are plain JSON string
// text (chat.PlainJSON).
func plainWord(w string) bool {
	return chat.PlainJSON(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(w), len(w)))) // read only
}

// sameMessage reports whether a and b are the same message. Every field
// counts (TestSameMessageComparesEveryField fails when chat.Message gets
// a field this does not compare); the strings of a conversation's
// messages are shared from one request to the next, and comparing a
// string with itself does not read it. reflect.DeepEqual did the same
// for 4,000 messages in 0.7 ms a request.
func sameMessage(a, b *chat.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || a.Reasoning != b.Reasoning ||
		len(a.ToolCalls) != len(b.ToolCalls) || len(a.Images) != len(b.Images) || (a.Extra == nil) != (b.Extra == nil) ||
		(a.ToolCalls == nil) != (b.ToolCalls == nil) || (a.Images == nil) != (b.Images == nil) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || x.Arguments != y.Arguments ||
			(len(x.Extra) > 0 || len(y.Extra) > 0) && !reflect.DeepEqual(x.Extra, y.Extra) {
			return false
		}
	}
	for i := range a.Images {
		ai, bi := &a.Images[i], &b.Images[i]
		if ai.MIMEType != bi.MIMEType || ai.Path != bi.Path || ai.SHA256 != bi.SHA256 || !bytes.Equal(ai.Data, bi.Data) {
			return false
		}
	}
	return a.Extra == nil || reflect.DeepEqual(a.Extra, b.Extra)
}
