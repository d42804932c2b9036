package agent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/option"
)

// Errors inside a stream. A server that has answered 200 OK and begun an
// SSE stream reports a later failure as an event of the stream, in one of
// these shapes (all but the third replayed from testdata/sse):
//
//	data: {"error":{"message":"…","type":"…","code":"…"}}          OpenAI, vLLM, Groq, SGLang
//	data: {"error":{"code":502,"message":"…"},"choices":[{…,"finish_reason":"error"}]}  OpenRouter
//	data: {"error":"…"}                                             some proxies (a bare string)
//	data: {"object":"error","message":"…","type":"BadRequestError","code":400}  older vLLM
//	data: {…,"choices":[{…,"finish_reason":"error"}]}               Mistral, LiteLLM: no message
//	error: {"code":500,"message":"…","type":"server_error"}         llama.cpp: an SSE field of its own
//
// Each ends the request with an *APIError whose InStream is set, carrying
// the server's message, type and code; a numeric code of 400-599 is its
// Status, so a 4xx-class error is not retried (see APIError.Retryable) and
// one about the context window reaches IsContextOverflow.

// inStreamError returns the error an error event's data reports: the
// object under "error", or the event itself for vLLM's older shape.
// fallback is the message when the event names none.
func inStreamError(data []byte, fallback string) *APIError {
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	e := &APIError{InStream: true}
	if json.Unmarshal(data, &ev) == nil && len(ev.Error) > 0 && string(ev.Error) != "null" {
		if json.Unmarshal(ev.Error, &e.Message) != nil {
			e.fill(ev.Error)
		}
	} else {
		e.fill(data)
	}
	if e.Message == "" {
		e.Message = fallback
	}
	return e
}

// fill reads an error object: message, type, and code as a string or
// a number (a number of 400-599 is also the status).
func (e *APIError) fill(obj []byte) {
	var body struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
	}
	if json.Unmarshal(obj, &body) != nil {
		return
	}
	e.Message, e.Type = body.Message, body.Type
	for _, raw := range []json.RawMessage{body.Code, body.Status} {
		var text string
		if json.Unmarshal(raw, &text) == nil {
			if e.Code == "" {
				e.Code = text
			}
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && n >= 400 && n <= 599 && e.Status == 0 {
			e.Status = n
		}
	}
}

// errorLineField is the SSE field llama.cpp's server writes an error in
// mid-stream ("error: {…}\n\n") instead of a data line. SSE readers,
// openai-go's among them, ignore fields they do not know, so without a
// look at the raw body such a stream would read as cut.
const errorLineField = "error:"

// maxErrorLine bounds the error line kept.
const maxErrorLine = 64 << 10

// errorLines watches a streamed response body for an error line. Its
// watch is an openai-go middleware; the body is read on the goroutine
// that reads the stream, so no lock is needed.
//
// It also keeps the start of the body, so that an answer that is not an
// event stream at all (a proxy's login page, a wrong base URL answered
// with a web page) can be reported as what it is.
type errorLines struct {
	cur      []byte // the current line, while it may be an error line
	skipping bool   // inside a line that is not one
	data     []byte // the last error line's payload
	head     []byte // the first bytes of the body (up to maxBodyHead)
}

// maxBodyHead bounds the start of a body kept for NotStreamError.
const maxBodyHead = 512

func (w *errorLines) watch(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err == nil && res != nil && res.Body != nil {
		res.Body = errorLineBody{ReadCloser: res.Body, w: w}
	}
	return res, err
}

// NotStreamError is a 2xx answer to a streaming request whose body held
// no event of a stream: an HTML page, a JSON document, plain text. It is
// not retried: the same request gets the same page.
type NotStreamError struct {
	Status      int
	ContentType string
	// Start is the start of the body, on one line.
	Start string
}

func (e *NotStreamError) Error() string {
	ct := cmp.Or(e.ContentType, "no content type")
	msg := fmt.Sprintf("the server answered %d with %s, not an event stream", e.Status, ct)
	if e.Start != "" {
		msg += ": " + strconv.Quote(e.Start)
	}
	return msg + " (is the base URL an OpenAI-compatible API, and is no proxy asking for a login?)"
}

// notStream returns the NotStreamError for a response whose body gave no
// event, when its start does not read as an event stream either.
func (w *errorLines) notStream(res *http.Response) *NotStreamError {
	if res == nil || res.StatusCode/100 != 2 || looksLikeSSE(w.head) {
		return nil
	}
	start := strings.Join(strings.Fields(strings.ToValidUTF8(string(w.head), "")), " ")
	if len(start) > 160 {
		start = strings.ToValidUTF8(start[:160], "") + "…"
	}
	return &NotStreamError{Status: res.StatusCode, ContentType: res.Header.Get("Content-Type"), Start: start}
}

// looksLikeSSE reports whether a body starts as an event stream may:
// nothing yet, or a first line that is a comment or a field SSE knows
// (llama.cpp's error: included).
func looksLikeSSE(head []byte) bool {
	line, _, _ := bytes.Cut(bytes.TrimLeft(head, "\r\n"), []byte("\n"))
	if len(line) == 0 {
		return true
	}
	if line[0] == ':' {
		return true
	}
	name, _, _ := bytes.Cut(line, []byte(":"))
	switch string(bytes.TrimSpace(name)) {
	case "data", "event", "id", "retry", "error":
		return true
	}
	return false
}

type errorLineBody struct {
	io.ReadCloser
	w *errorLines
}

func (b errorLineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := maxBodyHead - len(b.w.head); room > 0 {
		b.w.head = append(b.w.head, p[:min(n, room)]...)
	}
	b.w.scan(p[:n])
	return n, err
}

// scan looks at the next bytes of the body, keeping only what may be an
// error line.
func (w *errorLines) scan(p []byte) {
	for len(p) > 0 {
		nl := bytes.IndexByte(p, '\n')
		if w.skipping {
			if nl < 0 {
				return
			}
			w.skipping, p = false, p[nl+1:]
			continue
		}
		part := p
		if nl >= 0 {
			part = p[:nl]
		}
		w.cur = append(w.cur, part...)
		n := min(len(w.cur), len(errorLineField))
		if string(w.cur[:n]) != errorLineField[:n] || len(w.cur) > maxErrorLine {
			w.cur = w.cur[:0]
			if nl < 0 {
				w.skipping = true
				return
			}
			p = p[nl+1:]
			continue
		}
		if nl < 0 {
			return
		}
		if len(w.cur) >= len(errorLineField) {
			w.data = bytes.Clone(bytes.TrimSpace(w.cur[len(errorLineField):]))
		}
		w.cur, p = w.cur[:0], p[nl+1:]
	}
}
