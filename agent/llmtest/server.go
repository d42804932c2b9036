// Package llmtest is a scripted OpenAI-compatible chat completions server
// for tests: a real HTTP server that streams Server-Sent Events exactly as
// the OpenAI API does, answering each request with the next response of a
// Script (usually a JSON file under testdata/llm/).
//
//	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "../testdata/llm/plain.json"))
//	client := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL()})
//
// A script file looks like this (see Response and Fault for every field):
//
//	{"responses": [
//	  {"content": "Hello! How can I help?", "chunk_size": 4},
//	  {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"}]},
//	  {"fault": {"status": 429, "retry_after": "1"}},
//	  {"content": "partial", "fault": {"stall_after": 2}},
//	  {"content": "Still wrong.", "repeat": true}
//	]}
//
// A response with "times": N answers N requests in a row. Rules answer,
// out of sequence, every request whose last message contains a text
// (a compaction's summary request, whenever it comes):
//
//	{"rules": [{"last_contains": "<conversation>", "response": {"content": "The summary."}}],
//	 "responses": [{"tool_calls": [...], "times": 200}, {"content": "Done."}]}
//
// or, in turn, the requests of the conversation whose first user message
// contains a text (a subagent's, whose task names it); a response can
// await another conversation's request (two that await each other prove
// they run at the same time):
//
//	{"rules": [{"first_user_contains": "ALPHA", "responses": [{"content": "a", "await": "BETA"}]},
//	           {"first_user_contains": "BETA", "responses": [{"content": "b", "await": "ALPHA"}]}],
//	 "responses": [...]}
//
// A request the script has no response for is answered with a 500 (with
// x-should-retry: false) and fails the test when the server is cleaned
// up; so does a request the server cannot decode or a request to any
// other endpoint, except those a client asks to learn a model's context
// window: GET /v1/models lists the script's Models (none by default),
// and llama.cpp's /props and Ollama's /api/show are not found, as on
// OpenAI's API. Non-streaming requests are answered with a 400.
//
// A response can also be a real server's stream, replayed byte for byte
// from a file (see Response.SSE and Replay):
//
//	{"responses": [{"sse": "../sse/vllm-old-error.sse"}]}
package llmtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Server is a running scripted server. Its methods are safe for concurrent
// use.
type Server struct {
	tb      testing.TB
	srv     *httptest.Server
	script  Script
	closing chan struct{}

	mu   sync.Mutex
	next int // the response for the next streaming request
	used int // the requests the response at next has answered
	// ruleUsed counts the requests each rule with Responses answered.
	ruleUsed map[int]int
	requests []Request
	probes   []string // "GET /v1/models", ...
	stalls   int
	errs     []string
	changed  chan struct{} // closed and replaced on every change
	stalled  chan struct{} // closed at the first stall
	release  chan struct{} // closed by Release: held responses go
	released sync.Once
}

// Request is one request the server received.
type Request struct {
	Model string
	// Messages are decoded from the wire: a content given as an array of
	// text parts is joined into one string.
	Messages []chat.Message
	// Tools are the names of the function tools, in order; ToolSpecs are
	// the tools in full.
	Tools        []string
	ToolSpecs    []chat.ToolSpec
	Stream       bool
	IncludeUsage bool
	Header       http.Header
	// Raw is the request body as sent.
	Raw []byte
}

// NewServer starts a server for the script and stops it when the test
// ends; it fails the test at once when the script is invalid.
func NewServer(tb testing.TB, s Script) *Server {
	tb.Helper()
	if err := s.Validate(); err != nil {
		tb.Fatalf("%v", err)
	}
	srv := &Server{
		tb:      tb,
		script:  s,
		closing: make(chan struct{}),
		changed: make(chan struct{}),
		stalled: make(chan struct{}),
		release: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", srv.chatCompletions)
	mux.HandleFunc("GET /v1/models", srv.models)
	mux.HandleFunc("GET /props", srv.notFound)
	mux.HandleFunc("POST /api/show", srv.notFound)
	mux.HandleFunc("/", srv.unexpected)
	srv.srv = httptest.NewServer(mux)
	tb.Cleanup(srv.close)
	return srv
}

// URL returns the base URL of the API, ending in /v1: what OPENAI_BASE_URL
// is set to.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Probes returns the requests made to learn a model's context window
// ("GET /v1/models", "GET /props", "POST /api/show"), in order.
func (s *Server) Probes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.probes...)
}

// received reports whether a request one of whose messages contains text
// has been received; s.mu is held.
func (s *Server) received(text string) bool {
	for _, r := range s.requests {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, text) {
				return true
			}
		}
	}
	return false
}

// await waits until a request one of whose messages contains text has
// been received (Response.Await); false when ctx ends or the server
// closes first.
func (s *Server) await(ctx context.Context, text string) bool {
	for {
		s.mu.Lock()
		ok, changed := s.received(text), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		case <-s.closing:
			return false
		}
	}
}

// WaitRequests waits until at least n requests have been received.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return len(s.requests) >= n })
}

// Release lets the held responses (Response.Hold) answer, now and from
// now on.
func (s *Server) Release() { s.released.Do(func() { close(s.release) }) }

// Stalled returns a channel closed when the first stalled response has sent
// its frames and begun to block. A test waits for it, then cancels the
// client's context.
func (s *Server) Stalled() <-chan struct{} { return s.stalled }

// WaitStalls waits until n stalled responses have begun to block.
func (s *Server) WaitStalls(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return s.stalls >= n })
}

func (s *Server) wait(ctx context.Context, done func() bool) error {
	for {
		s.mu.Lock()
		ok, changed := done(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("llmtest: wait: %w", ctx.Err())
		case <-changed:
		}
	}
}

// notify wakes the waiters; s.mu must be held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// fail records a problem the test is told about at cleanup.
func (s *Server) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func (s *Server) close() {
	close(s.closing) // releases stalled handlers, which Close waits for
	s.srv.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.errs {
		s.tb.Errorf("llmtest: %s", e)
	}
}

func (s *Server) unexpected(w http.ResponseWriter, r *http.Request) {
	s.fail("unexpected request %s %s", r.Method, r.URL.Path)
	writeError(w, http.StatusNotFound, "llmtest: no endpoint "+r.Method+" "+r.URL.Path, "invalid_request_error", nil)
}

// models lists the script's models, as vLLM does.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.probe(r)
	data := s.script.Models
	if data == nil {
		data = []Model{}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(encode(map[string]any{"object": "list", "data": data}))
}

// notFound answers a route of another kind of server, as OpenAI does.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.probe(r)
	writeError(w, http.StatusNotFound, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", nil)
}

func (s *Server) probe(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.probes = append(s.probes, r.Method+" "+r.URL.Path)
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req, err := decodeRequest(raw)
	req.Header = r.Header.Clone()
	req.Raw = raw

	refuse := err == nil && s.script.NoImages && slices.ContainsFunc(req.Messages, func(m chat.Message) bool { return len(m.Images) > 0 })
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	resp, scripted := Response{}, false
	if err == nil && req.Stream && !refuse {
		resp, scripted = s.take(req)
	}
	s.notify()
	s.mu.Unlock()

	switch {
	case err != nil:
		s.fail("request %d: %v", n, err)
		writeError(w, http.StatusBadRequest, "llmtest: "+err.Error(), "invalid_request_error", nil)
		return
	case refuse:
		// llama.cpp's answer for a model without a vision projector.
		writeError(w, http.StatusBadRequest, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj", "invalid_request_error", nil)
		return
	case !req.Stream:
		writeError(w, http.StatusBadRequest, "llmtest: only streaming requests are supported", "invalid_request_error", nil)
		return
	case !scripted:
		msg := fmt.Sprintf("llmtest: script exhausted: request %d, but the script has %d responses", n, len(s.script.Responses))
		s.fail("%s", strings.TrimPrefix(msg, "llmtest: "))
		w.Header().Set("X-Should-Retry", "false")
		writeError(w, http.StatusInternalServerError, msg, "server_error", nil)
		return
	case resp.Fault != nil && resp.Fault.Status != 0:
		writeFault(w, resp.Fault)
		return
	case resp.Body != nil:
		replay(w, resp.Body)
		return
	}
	if resp.Hold {
		select {
		case <-s.release:
		case <-s.closing:
			return
		case <-r.Context().Done():
			return
		}
	}
	if resp.Await != "" && !s.await(r.Context(), resp.Await) {
		return // the client went away, or the server closes
	}

	st := stream{
		id:           fmt.Sprintf("chatcmpl-llmtest-%d", n),
		model:        req.Model,
		includeUsage: req.IncludeUsage,
		requestBytes: len(raw),
	}
	s.serveStream(w, r, st.frames(resp), st.emptyDelta(), resp.Fault, time.Duration(resp.IntervalMS)*time.Millisecond)
}

// take returns the response for req: a rule's that matches it, else the
// next of the sequence; s.mu must be held.
func (s *Server) take(req Request) (Response, bool) {
	for i, rule := range s.script.Rules {
		if !rule.matches(req.Messages) {
			continue
		}
		if len(rule.Responses) == 0 {
			return rule.Response, true
		}
		if s.ruleUsed == nil {
			s.ruleUsed = map[int]int{}
		}
		n := s.ruleUsed[i]
		if n >= len(rule.Responses) {
			return Response{}, false
		}
		s.ruleUsed[i]++
		return rule.Responses[n], true
	}
	rs := s.script.Responses
	if s.next < len(rs) {
		r := rs[s.next]
		s.used++
		if !r.Repeat && s.used >= max(r.Times, 1) {
			s.next++
			s.used = 0
		}
		return r, true
	}
	return Response{}, false
}

// serveStream writes the frames as SSE, flushing after each, and then
// [DONE], or breaks down as the fault says (after the fault's empty
// deltas, each an empty frame).
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, frames [][]byte, empty []byte, f *Fault, interval time.Duration) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	send := func(data []byte) bool {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		return rc.Flush() == nil
	}

	limit := f.frameCount()
	for i, data := range frames {
		if i == limit {
			break
		}
		if i > 0 && interval > 0 && !pause(r.Context(), interval) {
			return
		}
		if !send(data) {
			return
		}
	}
	if f != nil {
		for range f.EmptyDeltas {
			if !send(empty) {
				return
			}
		}
	}
	switch {
	case f != nil && f.CutAfter != nil:
		// Drop the connection without ending the chunked body, so the
		// client reads an unexpected EOF.
		panic(http.ErrAbortHandler)
	case f != nil && f.StallAfter != nil:
		s.mu.Lock()
		s.stalls++
		if s.stalls == 1 {
			close(s.stalled)
		}
		s.notify()
		s.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-s.closing:
			panic(http.ErrAbortHandler) // the client sees a dropped connection
		}
		return
	}
	send([]byte("[DONE]"))
}

// pause waits d, or until ctx ends (then it returns false).
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// replay writes a recorded stream body exactly as it is, flushing after
// each event (each blank line), as a server does.
func replay(w http.ResponseWriter, body []byte) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for len(body) > 0 {
		end := len(body)
		if i := bytes.Index(body, []byte("\n\n")); i >= 0 {
			end = i + 2
		}
		if _, err := w.Write(body[:end]); err != nil || rc.Flush() != nil {
			return
		}
		body = body[end:]
	}
}

// writeFault answers with a scripted HTTP error.
func writeFault(w http.ResponseWriter, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", string(f.RetryAfter))
	}
	if f.RetryAfterMS != "" {
		w.Header().Set("Retry-After-Ms", string(f.RetryAfterMS))
	}
	if body := strings.TrimSpace(f.Body); strings.HasPrefix(body, "{") && json.Valid([]byte(body)) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, body)
		return
	}
	msg, typ, code := defaultError(f.Status)
	if f.Body != "" {
		msg = f.Body
	}
	if f.Type != "" {
		typ = f.Type
	}
	if f.Code != "" {
		code = f.Code
	}
	writeError(w, f.Status, msg, typ, code)
}

// defaultError returns the message, type and code the OpenAI API gives
// for a status.
func defaultError(status int) (msg, typ string, code any) {
	switch status {
	case http.StatusUnauthorized:
		return "Incorrect API key provided: sk-llmtest. You can find your API key at https://platform.openai.com/account/api-keys.",
			"invalid_request_error", "invalid_api_key"
	case http.StatusNotFound:
		return "The model does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"
	case http.StatusTooManyRequests:
		return "Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded"
	case http.StatusInternalServerError:
		return "The server had an error while processing your request. Sorry about that!", "server_error", nil
	case http.StatusServiceUnavailable:
		return "The engine is currently overloaded, please try again later.", "server_error", nil
	}
	if status >= 500 {
		return http.StatusText(status), "server_error", nil
	}
	return http.StatusText(status), "invalid_request_error", nil
}

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, msg, typ string, code any) {
	body := map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(encode(body))
}

// The request body as far as the server reads it.
type (
	wireRequest struct {
		Model         string        `json:"model"`
		Messages      []wireMessage `json:"messages"`
		Tools         []wireTool    `json:"tools"`
		Stream        bool          `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	wireMessage struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	}
	wireTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
)

// decodeRequest decodes a chat completions request body. The Request it
// returns is filled as far as decoding went.
func decodeRequest(raw []byte) (Request, error) {
	var wr wireRequest
	if err := json.Unmarshal(raw, &wr); err != nil {
		return Request{}, fmt.Errorf("decode request: %w", err)
	}
	req := Request{
		Model:        wr.Model,
		Stream:       wr.Stream,
		IncludeUsage: wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage,
	}
	for _, t := range wr.Tools {
		if t.Type != "function" {
			return req, fmt.Errorf("tool %q has type %q, not function", t.Function.Name, t.Type)
		}
		req.Tools = append(req.Tools, t.Function.Name)
		req.ToolSpecs = append(req.ToolSpecs, chat.ToolSpec{
			Name:        t.Function.Name,
			Description: t.Function.Description,
			Parameters:  t.Function.Parameters,
		})
	}
	for i, wm := range wr.Messages {
		content, images, err := decodeContent(wm.Content)
		if err != nil {
			return req, fmt.Errorf("message %d: %w", i, err)
		}
		m := chat.Message{Role: chat.Role(wm.Role), Content: content, ToolCallID: wm.ToolCallID, Images: images}
		for _, tc := range wm.ToolCalls {
			if tc.Type != "function" {
				return req, fmt.Errorf("message %d: tool call %q has type %q, not function", i, tc.ID, tc.Type)
			}
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{
				ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
			})
		}
		req.Messages = append(req.Messages, m)
	}
	return req, nil
}

// decodeContent reads a message content: absent, null, a string, or an
// array of text parts (joined) and image_url parts with data URLs (the
// images).
func decodeContent(raw json.RawMessage) (string, []chat.Image, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, errors.New("content is neither a string nor an array of parts")
	}
	var b strings.Builder
	var images []chat.Image
	for _, p := range parts {
		switch {
		case p.Type == "text":
			b.WriteString(p.Text)
		case p.Type == "image_url" && p.ImageURL != nil:
			head, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ";base64,")
			img, err := base64.StdEncoding.DecodeString(data)
			if !ok || err != nil || !strings.HasPrefix(p.ImageURL.URL, "data:") {
				return "", nil, fmt.Errorf("image_url part whose url is not a base64 data URL: %.60q", p.ImageURL.URL)
			}
			images = append(images, chat.Image{MIMEType: head, Data: img})
		default:
			return "", nil, fmt.Errorf("content part of type %q, not text or image_url", p.Type)
		}
	}
	return b.String(), images, nil
}
