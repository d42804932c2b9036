package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tackle-dev/tackle/tools"
)

// tackle reads each server's messages as they arrive, before the SDK
// does (a sniffer on the bytes of a stdio server's stdout, and of a
// remote server's response bodies), for what the SDK does not give in
// time or at all:
//
//   - a list_changed notification: the SDK hands notifications to a
//     goroutine of their own, so a call's answer that came after one
//     could reach the model before the new list was read. Seen here, the
//     refresh is under way before the SDK reads the answer, and the call
//     waits for it (server.settle).
//   - a progress notification, passed on to its call here for the same
//     reason: before its call has ended.
//   - a tool's execution.taskSupport, which the SDK's Tool type drops.
//   - a request for sampling or elicitation, which tackle refuses: in
//     the older protocol a request of its own, in the newer one inside
//     a call's input_required result, where the SDK refuses it without
//     a word to tackle.

// maxSniffed bounds a message the sniffer reads; a longer one (a large
// tool result) is passed on unread.
const maxSniffed = 4 << 20

// sniffMode is how messages are framed in the bytes a sniffer reads.
type sniffMode int

const (
	sniffLines sniffMode = iota // one message a line (stdio)
	sniffSSE                    // Server-Sent Events: a message is a "data:" line
	sniffWhole                  // the whole body is one message (application/json)
)

// sniffer passes the bytes of r on unchanged and gives each message in
// them to seen, before the reader gets the bytes that follow it.
type sniffer struct {
	r    io.Reader
	mode sniffMode
	seen func(msg []byte)
	buf  []byte
	over bool // the message in buf passed maxSniffed: it is skipped
}

func (f *sniffer) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.feed(p[:n])
	if err != nil {
		f.flush() // a last message without a newline
	}
	return n, err
}

// Close closes r when it is a Closer (a response body).
func (f *sniffer) Close() error {
	if c, ok := f.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func (f *sniffer) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 || f.mode == sniffWhole {
			f.add(b)
			return
		}
		f.add(b[:i])
		f.flush()
		b = b[i+1:]
	}
}

func (f *sniffer) add(b []byte) {
	if f.over {
		return
	}
	if len(f.buf)+len(b) > maxSniffed {
		f.over, f.buf = true, f.buf[:0]
		return
	}
	f.buf = append(f.buf, b...)
}

func (f *sniffer) flush() {
	msg := bytes.TrimSpace(f.buf)
	if f.mode == sniffSSE {
		data, ok := bytes.CutPrefix(msg, []byte("data:"))
		msg = bytes.TrimSpace(data)
		if !ok {
			msg = nil
		}
	}
	if !f.over && len(msg) > 0 {
		f.seen(msg)
	}
	f.buf, f.over = f.buf[:0], false
}

// sniffTransport wraps the bodies of a remote server's answers in a
// sniffer.
type sniffTransport struct {
	next http.RoundTripper
	seen func(msg []byte)
}

func (t sniffTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if err != nil || res.Body == nil {
		return res, err
	}
	ct := res.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		res.Body = &sniffer{r: res.Body, mode: sniffSSE, seen: t.seen}
	case strings.HasPrefix(ct, "application/json"):
		res.Body = &sniffer{r: res.Body, mode: sniffWhole, seen: t.seen}
	}
	return res, nil
}

// sniffed is what the sniffer reads of a message.
type sniffed struct {
	Method string `json:"method"`
	Params *struct {
		ProgressToken any     `json:"progressToken"`
		Progress      float64 `json:"progress"`
		Total         float64 `json:"total"`
		Message       string  `json:"message"`
	} `json:"params"`
	Result *struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	} `json:"result"`
}

// The methods of the requests a server may make of tackle that tackle
// refuses.
const (
	methodSampling    = "sampling/createMessage"
	methodElicitation = "elicitation/create"
)

// observe reads one message of connection c's server.
func (s *server) observe(c *conn, msg []byte) {
	// Most messages are answers that need no decoding: tools/list's and
	// input_required results hold one of these words.
	if !bytes.Contains(msg, []byte(`"method"`)) && !bytes.Contains(msg, []byte(`"taskSupport"`)) {
		return
	}
	var m sniffed
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	switch m.Method {
	case "notifications/tools/list_changed":
		s.changed(c, listTools)
	case "notifications/resources/list_changed":
		s.changed(c, listResources)
	case "notifications/prompts/list_changed":
		s.changed(c, listPrompts)
	case "notifications/progress":
		if p := m.Params; p != nil {
			token, _ := p.ProgressToken.(string)
			s.progressed(token, tools.Progress{Done: p.Progress, Total: p.Total, Message: p.Message})
		}
	case methodSampling, methodElicitation:
		s.refuse(c, m.Method)
	}
	if m.Result == nil {
		return
	}
	for _, ir := range m.Result.InputRequests {
		if ir.Method == methodSampling || ir.Method == methodElicitation {
			s.refuse(c, ir.Method)
		}
	}
	if len(m.Result.Tools) > 0 {
		s.mu.Lock()
		for _, t := range m.Result.Tools {
			if t.Execution != nil && t.Execution.TaskSupport == "required" {
				c.taskRequired[t.Name] = true
			} else {
				delete(c.taskRequired, t.Name)
			}
		}
		s.mu.Unlock()
	}
}

// refuse tells the user, once per connection and method, that the
// server asked for what tackle refuses; the SDK answers the server.
func (s *server) refuse(c *conn, method string) {
	s.mu.Lock()
	c.refusals++
	c.refused = method
	first := !c.told[method]
	c.told[method] = true
	s.mu.Unlock()
	what := "to use tackle's model (sampling/createMessage): tackle refused; it does not let servers sample its model"
	if method == methodElicitation {
		what = "for the user's input (elicitation/create): tackle refused; it does not support elicitation"
	}
	s.log.Note("the server asked %s", what)
	if first {
		s.set.warn(fmt.Sprintf("MCP server %s asked %s", s.name, what))
	}
}
