package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"

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
	enc  [][]byte       // their encodings
}

// body returns the request body of req: `"stream":true` first (openai-go
// sets it again and finds it at once), then the messages, then the other
// parameters as openai-go encodes them.
func (c *requestBodies) body(req Request) ([]byte, error) {
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
	enc, err := c.messages(req.Messages)
	if err != nil {
		return nil, err
	}
	size := len(rest) + len(enc) + 32
	for _, e := range enc {
		size += len(e)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"stream":true,"messages":[`...)
	for i, e := range enc {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	b = append(b, ']')
	if rest = bytes.TrimSpace(rest[1:]); rest[0] != '}' {
		b = append(b, ',')
	}
	return append(b, rest...), nil
}

// messages returns the encoding of each message, reusing those of the
// last body's shared prefix.
func (c *requestBodies) messages(msgs []chat.Message) ([][]byte, error) {
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
		return nil, fmt.Errorf("message %d: %w", same+i, err)
	}
	c.msgs, c.enc = append(c.msgs, msgs[same:]...), append(c.enc, enc...)
	// A copy: the next call may change the cache while this body is built.
	return slices.Clone(c.enc), nil
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
				e, err := encodeMessage(msgs[i])
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

// encodeMessage is a message's encoding as openai-go makes it: its own
// MarshalJSON, called directly (json.Marshal would check and compact
// what it returns again: a third of the time).
func encodeMessage(m chat.Message) ([]byte, error) {
	p, err := messageParam(m)
	if err != nil {
		return nil, err
	}
	return p.MarshalJSON()
}

// sameMessage reports whether a and b are the same message. Every field
// counts (reflect.DeepEqual, so a field added to chat.Message is never
// forgotten here); the strings of a conversation's messages are shared
// from one request to the next, and comparing a string with itself does
// not read it.
func sameMessage(a, b *chat.Message) bool {
	return reflect.DeepEqual(a, b)
}
