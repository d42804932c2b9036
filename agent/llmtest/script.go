package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// DefaultChunkSize is how many bytes of content or arguments go into one
// delta when a response does not set ChunkSize.
const DefaultChunkSize = 4

// Script is a scripted conversation: each request to the server is answered
// by the next response, in order.
type Script struct {
	Responses []Response `json:"responses"`
	// Rules answer the requests they match instead of the next response,
	// which stays for the request after: a summary request of a
	// compaction, whenever it comes.
	Rules []Rule `json:"rules,omitempty"`
	// Models are what GET /v1/models lists, as vLLM does (with each
	// model's max_model_len); none by default.
	Models []Model `json:"models,omitempty"`
	// NoImages makes the server a model without image input: a request
	// that carries images is answered 400, as llama.cpp answers for a
	// model without a vision projector, and uses no response.
	NoImages bool `json:"no_images,omitempty"`
}

// Rule answers the requests whose last message contains a text
// (LastContains), or those of the conversation whose first user message
// contains one (FirstUserContains: a subagent's, whose task names it) —
// exactly one of the two. Response answers every such request; Responses
// answer them one after the other (a conversation's turns), and a request
// after the last is one the script has no response for.
type Rule struct {
	LastContains      string     `json:"last_contains,omitempty"`
	FirstUserContains string     `json:"first_user_contains,omitempty"`
	Response          Response   `json:"response,omitzero"`
	Responses         []Response `json:"responses,omitempty"`
}

// matches reports whether the rule answers a request of msgs.
func (r Rule) matches(msgs []chat.Message) bool {
	if r.LastContains != "" {
		return len(msgs) > 0 && strings.Contains(msgs[len(msgs)-1].Content, r.LastContains)
	}
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			return strings.Contains(m.Content, r.FirstUserContains)
		}
	}
	return false
}

// Model is a model as vLLM's /v1/models lists it.
type Model struct {
	ID string `json:"id"`
	// MaxModelLen is the model's context window in tokens.
	MaxModelLen int `json:"max_model_len,omitempty"`
}

// Response is the answer to one request: a streamed assistant message, or a
// fault, or a message that breaks down part way (a fault with CutAfter or
// StallAfter).
type Response struct {
	// Reasoning is streamed first, as reasoning_content deltas (DeepSeek's
	// and llama.cpp's form).
	Reasoning string `json:"reasoning,omitempty"`
	// Content is the assistant text, streamed after the reasoning.
	Content string `json:"content,omitempty"`
	// ToolCalls are streamed after the content, one call after the other,
	// or round-robin when Interleave is set.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	Interleave bool       `json:"interleave,omitempty"`
	// ChunkSize is the most bytes of content or arguments per delta
	// (DefaultChunkSize when zero). A UTF-8 character is never split: one
	// wider than ChunkSize travels whole.
	ChunkSize int `json:"chunk_size,omitempty"`
	// IntervalMS paces the stream: the server waits that many
	// milliseconds before each frame after the first, as a model does
	// while it generates. For benchmarks: tests wait on events, never on
	// time.
	IntervalMS int `json:"interval_ms,omitempty"`
	// FinishReason overrides the finish reason ("stop", or "tool_calls"
	// when there are tool calls), e.g. "length".
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage is reported when the request asked for it; when nil the server
	// makes up a deterministic count (about four bytes a token).
	Usage *Usage `json:"usage,omitempty"`
	// Fault makes the response fail.
	Fault *Fault `json:"fault,omitempty"`
	// Hold makes the server wait for Server.Release before it answers:
	// the test lets the reply go once something else has happened (a
	// server the client starts in the background is ready).
	Hold bool `json:"hold,omitempty"`
	// Await makes the server wait, before it answers, until it has
	// received a request one of whose messages contains this text: two
	// conversations that each await the other's request prove that they
	// run at the same time (one after the other, neither would answer).
	Await string `json:"await,omitempty"`
	// Repeat makes this response answer every request from now on. It must
	// be the last response of the script.
	Repeat bool `json:"repeat,omitempty"`
	// Times makes this response answer that many requests in a row (1
	// when zero).
	Times int `json:"times,omitempty"`
	// SSE names a file whose bytes are the whole response body, served
	// byte for byte as a 200 text/event-stream (a real server's stream,
	// quirks and all: nothing is added, not even [DONE]). A relative path
	// is relative to the script file's directory (LoadScript) or to the
	// working directory (ParseScript). It excludes every field above but
	// Repeat and Times.
	SSE string `json:"sse,omitempty"`
	// Body is the body SSE names, read when the script is loaded; Replay
	// sets it directly.
	Body []byte `json:"-"`
}

// ToolCall is one call in a scripted reply. An empty ID is left out of the
// stream (some servers do that).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is a scripted token count; the total is their sum.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Fault breaks a response. Status answers with an HTTP error instead of a
// stream; CutAfter and StallAfter stream the reply's first N frames (role,
// reasoning, content, tool-call, finish and usage chunks, in that order) and then drop
// the connection without finish or [DONE], or block until the client goes
// away or the server closes.
type Fault struct {
	// Status is the HTTP status of an error answer (400-599), with an
	// OpenAI-style error body.
	Status int `json:"status,omitempty"`
	// RetryAfter and RetryAfterMS set the Retry-After (seconds or an HTTP
	// date) and retry-after-ms headers of an error answer. JSON numbers
	// and strings are both accepted.
	RetryAfter   HeaderValue `json:"retry_after,omitempty"`
	RetryAfterMS HeaderValue `json:"retry_after_ms,omitempty"`
	// Body is the error message of an error answer; when it is a JSON
	// object it is sent verbatim instead.
	Body string `json:"body,omitempty"`
	// Type and Code replace the error type and code OpenAI gives for the
	// status, e.g. "invalid_request_error" and "context_length_exceeded".
	Type string `json:"type,omitempty"`
	Code string `json:"code,omitempty"`
	// CutAfter sends that many frames, then drops the connection.
	CutAfter *int `json:"cut_after,omitempty"`
	// StallAfter sends that many frames, then blocks.
	StallAfter *int `json:"stall_after,omitempty"`
	// EmptyDeltas, with CutAfter or StallAfter, sends that many chunks
	// whose delta carries nothing ({"content":""}) before the connection
	// drops or the server blocks: a server that keeps the stream alive
	// without making progress.
	EmptyDeltas int `json:"empty_deltas,omitempty"`
}

// HeaderValue is a header value written in a script as a JSON string or
// number.
type HeaderValue string

// UnmarshalJSON accepts a string or a number.
func (v *HeaderValue) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*v = HeaderValue(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("header value must be a string or a number, got %s", data)
	}
	*v = HeaderValue(n.String())
	return nil
}

// ParseScript decodes and checks a script. Unknown fields are errors, so a
// typo in a script does not go unnoticed.
func ParseScript(data []byte) (Script, error) { return parseScript(data, ".") }

// parseScript is ParseScript with SSE files relative to dir.
func parseScript(data []byte, dir string) (Script, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("llmtest: parse script: %w", err)
	}
	if dec.More() {
		return Script{}, errors.New("llmtest: parse script: data after the script object")
	}
	if err := s.load(dir); err != nil {
		return Script{}, err
	}
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

// load reads the SSE files of the script's responses, relative to dir.
func (s *Script) load(dir string) error {
	read := func(r *Response) error {
		if r.SSE == "" || r.Body != nil {
			return nil
		}
		path := r.SSE
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("llmtest: sse: %w", err)
		}
		r.Body = body
		return nil
	}
	for i := range s.Responses {
		if err := read(&s.Responses[i]); err != nil {
			return err
		}
	}
	for i := range s.Rules {
		if err := read(&s.Rules[i].Response); err != nil {
			return err
		}
		for j := range s.Rules[i].Responses {
			if err := read(&s.Rules[i].Responses[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadScript reads and parses a script file, failing the test on error.
// A relative path is relative to the test's package directory.
func LoadScript(tb testing.TB, path string) Script {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("llmtest: %v", err)
	}
	s, err := parseScript(data, filepath.Dir(path))
	if err != nil {
		tb.Fatalf("llmtest: %s: %v", path, err)
	}
	return s
}

// Validate reports the first problem of a script.
func (s Script) Validate() error {
	if len(s.Responses) == 0 {
		return errors.New("llmtest: script has no responses")
	}
	for i, r := range s.Rules {
		if (r.LastContains == "") == (r.FirstUserContains == "") {
			return fmt.Errorf("llmtest: rule %d: give one of last_contains and first_user_contains", i)
		}
		one := !reflect.DeepEqual(r.Response, Response{})
		if one == (len(r.Responses) > 0) {
			return fmt.Errorf("llmtest: rule %d: give one of response and responses", i)
		}
		rs := r.Responses
		if one {
			rs = []Response{r.Response}
		}
		for j, resp := range rs {
			if err := resp.validate(); err != nil {
				return fmt.Errorf("llmtest: rule %d: response %d: %w", i, j, err)
			}
			if resp.Repeat || resp.Times != 0 {
				return fmt.Errorf("llmtest: rule %d: a rule answers each request it matches once: no repeat or times", i)
			}
		}
	}
	for i, r := range s.Responses {
		if err := r.validate(); err != nil {
			return fmt.Errorf("llmtest: response %d: %w", i, err)
		}
		if r.Repeat && i != len(s.Responses)-1 {
			return fmt.Errorf("llmtest: response %d repeats forever, so the %d after it are never used", i, len(s.Responses)-1-i)
		}
	}
	return nil
}

func (r Response) validate() error {
	if r.ChunkSize < 0 || r.IntervalMS < 0 {
		return fmt.Errorf("negative chunk_size %d or interval_ms %d", r.ChunkSize, r.IntervalMS)
	}
	if r.Times < 0 || (r.Times != 0 && r.Repeat) {
		return errors.New("times must be positive, and not with repeat")
	}
	if r.SSE != "" || r.Body != nil {
		if r.Content != "" || r.Reasoning != "" || r.ToolCalls != nil || r.Interleave || r.ChunkSize != 0 || r.IntervalMS != 0 || r.FinishReason != "" || r.Usage != nil || r.Fault != nil {
			return errors.New("an sse response is the whole body: no content, reasoning, tool_calls, interleave, chunk_size, interval_ms, finish_reason, usage or fault")
		}
		if r.Body == nil {
			return fmt.Errorf("sse file %s was not read", r.SSE)
		}
		return nil
	}
	for i, c := range r.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d has no name", i)
		}
	}
	f := r.Fault
	if f == nil {
		return nil
	}
	breaks := 0
	for _, set := range []bool{f.Status != 0, f.CutAfter != nil, f.StallAfter != nil} {
		if set {
			breaks++
		}
	}
	switch {
	case breaks == 0:
		return errors.New("fault needs one of status, cut_after, stall_after")
	case breaks > 1:
		return errors.New("fault has more than one of status, cut_after, stall_after")
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("fault status %d is not an HTTP error", f.Status)
	case f.Status == 0 && (f.RetryAfter != "" || f.RetryAfterMS != "" || f.Body != "" || f.Type != "" || f.Code != ""):
		return errors.New("retry_after, retry_after_ms, body, type and code need a fault status")
	case f.CutAfter != nil && *f.CutAfter < 0, f.StallAfter != nil && *f.StallAfter < 0, f.EmptyDeltas < 0:
		return errors.New("negative frame count")
	case f.EmptyDeltas > 0 && f.CutAfter == nil && f.StallAfter == nil:
		return errors.New("empty_deltas needs cut_after or stall_after")
	}
	return nil
}

// Text returns a response that streams content and stops.
func Text(content string) Response { return Response{Content: content} }

// ToolCalls returns a response that streams the calls, one after the other.
func ToolCalls(calls ...ToolCall) Response { return Response{ToolCalls: calls} }

// Call returns a tool call for ToolCalls.
func Call(id, name, arguments string) ToolCall {
	return ToolCall{ID: id, Name: name, Arguments: arguments}
}

// Replay returns a response whose body is body, served byte for byte.
func Replay(body []byte) Response { return Response{Body: body} }

// ReplayFile returns a Replay of the file at path (relative to the test's
// package directory), failing the test when it cannot be read.
func ReplayFile(tb testing.TB, path string) Response {
	tb.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("llmtest: %v", err)
	}
	return Response{SSE: path, Body: body}
}

// Status returns a response that fails with an HTTP status and the
// default OpenAI-style error message for it.
func Status(code int) Response { return Response{Fault: &Fault{Status: code}} }

// Cut returns r streamed up to frame n, then a dropped connection.
func Cut(r Response, n int) Response {
	r.Fault = &Fault{CutAfter: &n}
	return r
}

// Stall returns r streamed up to frame n, then a stall.
func Stall(r Response, n int) Response {
	r.Fault = &Fault{StallAfter: &n}
	return r
}

// Repeat returns r answering every request from now on.
func Repeat(r Response) Response {
	r.Repeat = true
	return r
}

// NewScript returns a script of the responses. NewServer checks it.
func NewScript(responses ...Response) Script { return Script{Responses: responses} }

// frameCount is the number of frames a fault lets through, or -1.
func (f *Fault) frameCount() int {
	switch {
	case f == nil:
		return -1
	case f.CutAfter != nil:
		return *f.CutAfter
	case f.StallAfter != nil:
		return *f.StallAfter
	}
	return -1
}
