package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/chat"
)

const llmScripts = "../testdata/llm/"

// sleeper is an injected Sleep that records the waits and returns at once.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func (s *sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waits)
}

// recorder collects the events a Stream emits.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) deltas() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if d, ok := e.(TextDelta); ok {
			out = append(out, d.Text)
		}
	}
	return out
}

func (r *recorder) retries() []ModelRetry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ModelRetry
	for _, e := range r.events {
		if m, ok := e.(ModelRetry); ok {
			out = append(out, m)
		}
	}
	return out
}

// newTestOpenAI returns a client for srv that never sleeps, with a fixed
// jitter of one half; cfg may override anything.
func newTestOpenAI(srv *llmtest.Server, cfg OpenAIConfig) (*OpenAI, *sleeper) {
	s := &sleeper{}
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.URL()
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test"
	}
	if cfg.Sleep == nil {
		cfg.Sleep = s.Sleep
	}
	if cfg.Jitter == nil {
		cfg.Jitter = func() float64 { return 0.5 }
	}
	return NewOpenAI(cfg), s
}

func userRequest(text string) Request {
	return Request{Model: "gpt-test", Messages: []chat.Message{chat.UserMessage(text)}}
}

func TestOpenAIStreamsText(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"plain.json"))
	client, sl := newTestOpenAI(srv, OpenAIConfig{})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Hello! How can I help? ✓"
	deltas := rec.deltas()
	if len(deltas) < 2 || strings.Join(deltas, "") != want {
		t.Errorf("deltas = %q, want several making %q", deltas, want)
	}
	if reply.Message.Role != chat.RoleAssistant || reply.Message.Content != want || len(reply.Message.ToolCalls) != 0 {
		t.Errorf("message = %+v", reply.Message)
	}
	if reply.FinishReason != "stop" {
		t.Errorf("finish reason = %q", reply.FinishReason)
	}
	u := reply.Usage
	if u.PromptTokens == 0 || u.CompletionTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v", u)
	}
	if len(sl.Waits()) != 0 || len(rec.retries()) != 0 {
		t.Errorf("retried a clean stream")
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "gpt-test" || !r.Stream || !r.IncludeUsage {
		t.Errorf("model %q, stream %v, include usage %v", r.Model, r.Stream, r.IncludeUsage)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestOpenAIReportsScriptedUsage(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Response{
		Content: "ok",
		Usage:   &llmtest.Usage{PromptTokens: 1234, CompletionTokens: 56},
	}))
	client, _ := newTestOpenAI(srv, OpenAIConfig{})
	reply, err := client.Stream(t.Context(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (chat.Usage{PromptTokens: 1234, CompletionTokens: 56, TotalTokens: 1290}); reply.Usage != want {
		t.Errorf("usage = %+v, want %+v", reply.Usage, want)
	}
}

func TestOpenAIAssemblesToolCall(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"tool_call.json"))
	client, _ := newTestOpenAI(srv, OpenAIConfig{})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("say hi"), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"echo hi"}`}}
	if !reflect.DeepEqual(reply.Message.ToolCalls, want) {
		t.Errorf("tool calls = %+v, want %+v", reply.Message.ToolCalls, want)
	}
	if reply.Message.Content != "" || len(rec.deltas()) != 0 {
		t.Errorf("content %q, deltas %q", reply.Message.Content, rec.deltas())
	}
	if reply.FinishReason != "tool_calls" {
		t.Errorf("finish reason = %q", reply.FinishReason)
	}
}

func TestOpenAIAssemblesInterleavedToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"interleaved_tool_calls.json"))
	client, _ := newTestOpenAI(srv, OpenAIConfig{})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("look"), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "call_b", Name: "read_file", Arguments: `{"path":"b.go"}`},
	}
	if !reflect.DeepEqual(reply.Message.ToolCalls, want) {
		t.Errorf("tool calls = %+v, want %+v", reply.Message.ToolCalls, want)
	}
	if reply.Message.Content != "Let me look." || strings.Join(rec.deltas(), "") != "Let me look." {
		t.Errorf("content %q, deltas %q", reply.Message.Content, rec.deltas())
	}
}

func TestAssemblerHandlesOddOrders(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []chat.ToolCall
	}{{
		name: "indices out of order",
		chunks: []string{
			`{"index":1,"id":"call_b","type":"function","function":{"name":"grep","arguments":""}}`,
			`{"index":0,"id":"call_a","type":"function","function":{"name":"glob","arguments":"{\"pat"}}`,
			`{"index":1,"function":{"arguments":"{\"q\":"}}`,
			`{"index":0,"function":{"arguments":"tern\":\"*\"}"}}`,
			`{"index":1,"function":{"arguments":"\"x\"}"}}`,
		},
		want: []chat.ToolCall{
			{ID: "call_a", Name: "glob", Arguments: `{"pattern":"*"}`},
			{ID: "call_b", Name: "grep", Arguments: `{"q":"x"}`},
		},
	}, {
		name: "every call at index 0, name repeated",
		chunks: []string{
			`{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}`,
			`{"index":0,"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}`,
			`{"index":0,"id":"call_2","function":{"name":"read_file","arguments":"\"a\"}"}}`,
		},
		want: []chat.ToolCall{
			{ID: "call_1", Name: "bash", Arguments: `{}`},
			{ID: "call_2", Name: "read_file", Arguments: `{"path":"a"}`},
		},
	}, {
		name: "missing IDs",
		chunks: []string{
			`{"index":0,"type":"function","function":{"name":"list_dir","arguments":"{}"}}`,
			`{"index":1,"type":"function","function":{"name":"list_dir","arguments":"{}"}}`,
		},
		want: []chat.ToolCall{
			{ID: "chatcmpl-x_call_0", Name: "list_dir", Arguments: `{}`},
			{ID: "chatcmpl-x_call_1", Name: "list_dir", Arguments: `{}`},
		},
	}, {
		name: "no index, two calls in one delta, empty IDs",
		chunks: []string{
			`{"id":"","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}},` +
				`{"id":"","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}`,
		},
		want: []chat.ToolCall{
			{ID: "chatcmpl-x_call_0", Name: "read_file", Arguments: `{"path":"a"}`},
			{ID: "chatcmpl-x_call_1", Name: "read_file", Arguments: `{"path":"b"}`},
		},
	}, {
		name: "no index, pieces of one call, then a call with another ID",
		chunks: []string{
			`{"id":"c1","type":"function","function":{"name":"glob","arguments":"{\"pattern\":"}}`,
			`{"function":{"arguments":"\"*\"}"}}`,
			`{"id":"c2","type":"function","function":{"name":"glob","arguments":"{}"}}`,
		},
		want: []chat.ToolCall{
			{ID: "c1", Name: "glob", Arguments: `{"pattern":"*"}`},
			{ID: "c2", Name: "glob", Arguments: `{}`},
		},
	}, {
		name: "no index, no IDs, whole calls in separate deltas",
		chunks: []string{
			`{"type":"function","function":{"name":"glob","arguments":"{}"}}`,
			`{"type":"function","function":{"name":"grep","arguments":"{}"}}`,
		},
		want: []chat.ToolCall{
			{ID: "chatcmpl-x_call_0", Name: "glob", Arguments: `{}`},
			{ID: "chatcmpl-x_call_1", Name: "grep", Arguments: `{}`},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a assembler
			for _, tc := range tt.chunks {
				var ch openai.ChatCompletionChunk
				data := `{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[` + tc + `]},"finish_reason":null}]}`
				if err := json.Unmarshal([]byte(data), &ch); err != nil {
					t.Fatal(err)
				}
				a.add(ch, func(Event) { t.Error("emitted an event for a tool call delta") })
			}
			if got := a.reply().Message.ToolCalls; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tool calls = %+v\nwant %+v", got, tt.want)
			}
			if !a.replied {
				t.Error("tool call deltas did not count as a reply")
			}
		})
	}
}

func TestOpenAIRetriesAfterRateLimit(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"rate_limit_then_answer.json"))
	client, sl := newTestOpenAI(srv, OpenAIConfig{})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Message.Content != "Answer after the rate limit." {
		t.Errorf("content = %q", reply.Message.Content)
	}
	if waits := sl.Waits(); !slices.Equal(waits, []time.Duration{7 * time.Second}) {
		t.Errorf("waits = %v, want the Retry-After of 7s", waits)
	}
	retries := rec.retries()
	if len(retries) != 1 || retries[0].Attempt != 1 || retries[0].Wait != 7*time.Second ||
		!strings.HasPrefix(retries[0].Err, "429 Too Many Requests: Rate limit reached for gpt-test") {
		t.Errorf("retry events = %+v", retries)
	}
	reqs := srv.Requests()
	if n := len(reqs); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	// The body goes in pieces, in place of openai-go's placeholder: each
	// attempt sends it whole, once, with its length.
	for i, r := range reqs {
		if !bytes.Equal(r.Raw, reqs[0].Raw) || !json.Valid(r.Raw) || bytes.Count(r.Raw, []byte(`"stream"`)) != 1 ||
			!bytes.HasPrefix(r.Raw, []byte(`{"stream":true,"messages":[{"content":"hi","role":"user"}]`)) {
			t.Errorf("request %d: body %s", i, r.Raw)
		}
		if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(r.Raw)) {
			t.Errorf("request %d: Content-Length %s for %d bytes", i, cl, len(r.Raw))
		}
	}
}

func TestOpenAIServerAskedWaits(t *testing.T) {
	tests := []struct {
		name  string
		fault llmtest.Fault
		max   time.Duration
		want  time.Duration
	}{
		{"retry-after capped", llmtest.Fault{Status: 429, RetryAfter: "120"}, 10 * time.Second, 10 * time.Second},
		{"retry-after-ms", llmtest.Fault{Status: 429, RetryAfterMS: "1500"}, 0, 1500 * time.Millisecond},
		{"retry-after-ms wins", llmtest.Fault{Status: 503, RetryAfter: "9", RetryAfterMS: "250"}, 0, 250 * time.Millisecond},
		{"fractional seconds", llmtest.Fault{Status: 429, RetryAfter: "0.5"}, 0, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Response{Fault: &tt.fault}, llmtest.Text("ok")))
			client, sl := newTestOpenAI(srv, OpenAIConfig{MaxDelay: tt.max})
			if _, err := client.Stream(t.Context(), userRequest("hi"), nil); err != nil {
				t.Fatal(err)
			}
			if waits := sl.Waits(); !slices.Equal(waits, []time.Duration{tt.want}) {
				t.Errorf("waits = %v, want [%v]", waits, tt.want)
			}
		})
	}
}

func TestOpenAIRetriesServerError(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"server_error_then_answer.json"))
	client, sl := newTestOpenAI(srv, OpenAIConfig{BaseDelay: time.Second})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Message.Content != "Answer after the server error." {
		t.Errorf("content = %q", reply.Message.Content)
	}
	// Equal jitter: half of the 1s delay, plus the jitter (0.5) of the other half.
	if waits := sl.Waits(); !slices.Equal(waits, []time.Duration{750 * time.Millisecond}) {
		t.Errorf("waits = %v, want [750ms]", waits)
	}
	if r := rec.retries(); len(r) != 1 || !strings.HasPrefix(r[0].Err, "500 Internal Server Error: The server had an error") {
		t.Errorf("retry events = %+v", r)
	}
}

func TestOpenAIGivesUpAfterMaxRetries(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"always_overloaded.json"))
	client, sl := newTestOpenAI(srv, OpenAIConfig{
		MaxRetries: 3,
		BaseDelay:  time.Second,
		MaxDelay:   3 * time.Second,
		Jitter:     func() float64 { return 0 },
	})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
	if err == nil {
		t.Fatal("no error")
	}
	const want = "model request failed after 4 attempts: 503 Service Unavailable: The engine is currently overloaded, please try again later."
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Type != "server_error" {
		t.Errorf("error %#v is not the 503 APIError", err)
	}
	var oaiErr *openai.Error
	if !errors.As(err, &oaiErr) || oaiErr.StatusCode != 503 {
		t.Errorf("error does not unwrap to the openai-go error")
	}
	if !reflect.DeepEqual(reply, Reply{}) {
		t.Errorf("reply = %+v, want none", reply)
	}
	// 1s, 2s and 4s capped at 3s, each halved by a jitter of 0.
	wantWaits := []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond}
	if waits := sl.Waits(); !slices.Equal(waits, wantWaits) {
		t.Errorf("waits = %v, want %v", waits, wantWaits)
	}
	retries := rec.retries()
	if len(retries) != 3 || retries[2].Attempt != 3 || retries[2].Wait != 1500*time.Millisecond {
		t.Errorf("retry events = %+v", retries)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

func TestOpenAIDoesNotRetryClientErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 422} {
		srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Status(status)))
		client, sl := newTestOpenAI(srv, OpenAIConfig{})
		var rec recorder

		_, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != status {
			t.Errorf("%d: error = %v", status, err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d: %d requests, want exactly 1", status, n)
		}
		if len(sl.Waits()) != 0 || len(rec.retries()) != 0 {
			t.Errorf("%d: retried", status)
		}
	}
}

func TestOpenAIDoesNotRetryAContextOverflow(t *testing.T) {
	// llama.cpp answers some requests too long for its context with a 500.
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Response{Fault: &llmtest.Fault{Status: 500, Body: "Context size has been exceeded."}}))
	client, sl := newTestOpenAI(srv, OpenAIConfig{})
	_, err := client.Stream(t.Context(), userRequest("hi"), nil)
	if !IsContextOverflow(err) || err.Error() != "model request failed: 500 Internal Server Error: Context size has been exceeded." {
		t.Errorf("error = %v", err)
	}
	if n := len(srv.Requests()); n != 1 || len(sl.Waits()) != 0 {
		t.Errorf("%d requests, %d waits: retried", n, len(sl.Waits()))
	}
}

func TestOpenAIErrorMessages(t *testing.T) {
	tests := []struct {
		name  string
		fault llmtest.Fault
		want  string
	}{{
		name:  "openai error",
		fault: llmtest.Fault{Status: 401},
		want:  "model request failed: 401 Unauthorized: Incorrect API key provided: sk-llmtest.",
	}, {
		name:  "error as a string",
		fault: llmtest.Fault{Status: 404, Body: `{"error":"model \"llama9\" not found, try pulling it first"}`},
		want:  `model request failed: 404 Not Found: model "llama9" not found, try pulling it first`,
	}, {
		name:  "detail",
		fault: llmtest.Fault{Status: 422, Body: `{"detail":"messages: field required"}`},
		want:  "model request failed: 422 Unprocessable Entity: messages: field required",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Response{Fault: &tt.fault}))
			client, _ := newTestOpenAI(srv, OpenAIConfig{})
			_, err := client.Stream(t.Context(), userRequest("hi"), nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestOpenAICutMidToolCall(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"cut_mid_tool_call.json"))
	client, sl := newTestOpenAI(srv, OpenAIConfig{})

	reply, err := client.Stream(t.Context(), userRequest("write it"), nil)
	if !errors.Is(err, ErrStreamCut) {
		t.Fatalf("error = %v, want ErrStreamCut", err)
	}
	if !strings.HasPrefix(err.Error(), "model stream cut after ") {
		t.Errorf("error = %q", err)
	}
	if !reflect.DeepEqual(reply, Reply{}) {
		t.Errorf("reply = %+v, want none", reply)
	}
	if n := len(srv.Requests()); n != 1 || len(sl.Waits()) != 0 {
		t.Errorf("%d requests, waits %v: a stream cut after a tool call began was retried", n, sl.Waits())
	}
}

func TestOpenAICutAfterTextIsNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Cut(llmtest.Text("hello world"), 3)))
	client, _ := newTestOpenAI(srv, OpenAIConfig{})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
	if !errors.Is(err, ErrStreamCut) || !reflect.DeepEqual(reply, Reply{}) {
		t.Fatalf("reply %+v, error %v", reply, err)
	}
	if got := rec.deltas(); !slices.Equal(got, []string{"hell", "o wo"}) {
		t.Errorf("deltas = %q: text must go out as it arrives", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestOpenAIRetriesCutBeforeFirstToken(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(
		llmtest.Cut(llmtest.Text("lost"), 1), // only the role chunk
		llmtest.Text("hello"),
	))
	client, sl := newTestOpenAI(srv, OpenAIConfig{})
	var rec recorder

	reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Message.Content != "hello" || strings.Join(rec.deltas(), "") != "hello" {
		t.Errorf("content %q, deltas %q", reply.Message.Content, rec.deltas())
	}
	if r := rec.retries(); len(r) != 1 || !strings.Contains(r[0].Err, "model stream cut") || len(sl.Waits()) != 1 {
		t.Errorf("retry events = %+v", r)
	}
}

func TestOpenAIRetriesRefusedConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	s := &sleeper{}
	client := NewOpenAI(OpenAIConfig{BaseURL: "http://" + addr + "/v1", MaxRetries: 2, Sleep: s.Sleep})
	_, err = client.Stream(t.Context(), userRequest("hi"), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "model request failed after 3 attempts: ") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error = %v", err)
	}
	if len(s.Waits()) != 2 {
		t.Errorf("waits = %v, want 2", s.Waits())
	}
}

func TestOpenAIStallThenCancel(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"stall.json"))
	client, sl := newTestOpenAI(srv, OpenAIConfig{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	type result struct {
		reply Reply
		err   error
	}
	done := make(chan result, 1)
	go func() {
		reply, err := client.Stream(ctx, userRequest("hi"), nil)
		done <- result{reply, err}
	}()
	select {
	case <-srv.Stalled():
	case r := <-done:
		t.Fatalf("returned before the stall: %+v", r)
	}
	cancel()
	r := <-done
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", r.err)
	}
	if !reflect.DeepEqual(r.reply, Reply{}) {
		t.Errorf("reply = %+v, want none", r.reply)
	}
	if len(sl.Waits()) != 0 {
		t.Errorf("retried after cancel")
	}
}

func TestOpenAICancelDuringBackoff(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Status(503), llmtest.Text("never asked for")))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sleeping := make(chan time.Duration, 1)
	client, _ := newTestOpenAI(srv, OpenAIConfig{
		Sleep: func(ctx context.Context, d time.Duration) error {
			sleeping <- d
			<-ctx.Done()
			return ctx.Err()
		},
	})
	var rec recorder

	done := make(chan error, 1)
	go func() {
		_, err := client.Stream(ctx, userRequest("hi"), rec.emit)
		done <- err
	}()
	<-sleeping
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if r := rec.retries(); len(r) != 1 {
		t.Errorf("retry events = %+v, want the one announcing the wait", r)
	}
}

func TestDefaultSleepStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep = %v, want context.Canceled at once", err)
	}
	if err := sleep(t.Context(), 0); err != nil {
		t.Errorf("sleep(0) = %v", err)
	}
}

func TestOpenAISendsWireFormat(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("done")))
	client, _ := newTestOpenAI(srv, OpenAIConfig{})
	schema := `{"type":"object","properties":{"command":{"type":"string","maxLength":1000},"timeout":{"type":"integer","minimum":1}},"required":["command"]}`
	messages := []chat.Message{
		{Role: chat.RoleSystem, Content: "You are tackle."},
		chat.UserMessage("list the files"),
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`},
			{ID: "call_2", Name: "read_file", Arguments: `{"path":"go.mod"}`},
		}},
		chat.ToolResult{CallID: "call_1", Status: chat.StatusOK, Content: "go.mod\nmain.go"}.Message(),
		chat.ToolResult{CallID: "call_2", Status: chat.StatusError, Content: ""}.Message(),
		{Role: chat.RoleAssistant, Content: "There are two files."},
		chat.UserMessage("thanks"),
	}
	req := Request{
		Model:    "gpt-test",
		Messages: messages,
		Tools: []chat.ToolSpec{
			{Name: "bash", Description: "Run a shell command.", Parameters: json.RawMessage(schema)},
			{Name: "list_dir", Description: "List a directory."},
		},
	}
	if _, err := client.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}

	got := srv.Requests()[0]
	if !reflect.DeepEqual(got.Messages, messages) {
		t.Errorf("messages on the wire:\n%+v\nwant\n%+v", got.Messages, messages)
	}
	if !slices.Equal(got.Tools, []string{"bash", "list_dir"}) {
		t.Errorf("tools = %q", got.Tools)
	}
	if s := got.ToolSpecs[0]; s.Description != "Run a shell command." || !jsonEqual(t, s.Parameters, []byte(schema)) {
		t.Errorf("bash tool = %s %s", s.Description, s.Parameters)
	}

	var raw struct {
		Messages []map[string]json.RawMessage `json:"messages"`
		Stream   bool                         `json:"stream"`
	}
	if err := json.Unmarshal(got.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if c, ok := raw.Messages[2]["content"]; ok && string(c) != "null" && string(c) != `""` {
		t.Errorf("assistant message with tool calls has content %s", c)
	}
	if string(raw.Messages[3]["tool_call_id"]) != `"call_1"` || string(raw.Messages[4]["content"]) != `""` {
		t.Errorf("tool results on the wire: %s, %s", raw.Messages[3], raw.Messages[4])
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestOpenAIWithoutKeySendsNoAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("ok")))
	client := NewOpenAI(OpenAIConfig{BaseURL: srv.URL()})
	if _, err := client.Stream(t.Context(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestOpenAIRejectsBadRequests(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"no model", Request{Messages: []chat.Message{chat.UserMessage("hi")}}, "no model set"},
		{"unknown role", Request{Model: "m", Messages: []chat.Message{{Role: "narrator", Content: "x"}}}, `message 0: unknown role "narrator"`},
		{"tool result without call", Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleTool, Content: "x"}}}, "message 0: tool message without a tool call ID"},
		{"bad schema", Request{Model: "m", Tools: []chat.ToolSpec{{Name: "f", Parameters: json.RawMessage(`[1]`)}}}, "tool f: parameters are not a JSON object"},
	}
	client := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Sleep: (&sleeper{}).Sleep})
	for _, tt := range tests {
		_, err := client.Stream(t.Context(), tt.req, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second, true},
		{map[string]string{"Retry-After": "1.25"}, 1250 * time.Millisecond, true},
		{map[string]string{"Retry-After-Ms": "40"}, 40 * time.Millisecond, true},
		{map[string]string{"Retry-After-Ms": "40", "Retry-After": "3"}, 40 * time.Millisecond, true},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": "1e300"}, time.Duration(1<<63 - 1), true},
		{map[string]string{"Retry-After": "-1"}, 0, false},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second, true},
		{nil, 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		got, ok := retryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAPIErrorRetryable(t *testing.T) {
	tests := []struct {
		status int
		header string
		want   bool
	}{
		{400, "", false}, {401, "", false}, {403, "", false}, {404, "", false}, {422, "", false},
		{408, "", true}, {429, "", true}, {500, "", true}, {502, "", true}, {503, "", true}, {504, "", true}, {529, "", true},
		{500, "false", false}, {400, "true", true},
	}
	for _, tt := range tests {
		e := &APIError{Status: tt.status, header: http.Header{}}
		if tt.header != "" {
			e.header.Set("X-Should-Retry", tt.header)
		}
		if got := e.Retryable(); got != tt.want {
			t.Errorf("%d (x-should-retry %q): retryable = %v", tt.status, tt.header, got)
		}
	}
}

func TestBodyMessage(t *testing.T) {
	tests := map[string]string{
		`{"error":{"message":"nested"}}`:  "nested",
		`{"error":"flat"}`:                "flat",
		`{"message":"top"}`:               "top",
		`{"detail":"fastapi"}`:            "fastapi",
		`{"other":1}`:                     "",
		"upstream timed out\nmore detail": "upstream timed out",
		"<html><body>502</body></html>":   "",
		"":                                "",
	}
	for body, want := range tests {
		if got := bodyMessage([]byte(body)); got != want {
			t.Errorf("bodyMessage(%q) = %q, want %q", body, got, want)
		}
	}
}

// The process environment does not reach the requests: openai-go reads
// OPENAI_ORG_ID and OPENAI_PROJECT_ID itself, and tackle passes only what
// its own (injected) environment says.
func TestOpenAIIgnoresTheProcessEnvironment(t *testing.T) {
	t.Setenv("OPENAI_ORG_ID", "org-from-the-process")
	t.Setenv("OPENAI_PROJECT_ID", "proj-from-the-process")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-From-Process: yes")
	var reqs []llmtest.Request
	given := OpenAIConfig{Organization: "org-given", Project: "proj-given", Headers: ParseCustomHeaders("X-Proxy-Token: tok en \nnot a header\n X-Team :core\n")}
	for _, cfg := range []OpenAIConfig{{}, given} {
		srv := llmtest.NewServer(t, llmtest.LoadScript(t, llmScripts+"plain.json"))
		client, _ := newTestOpenAI(srv, cfg)
		if _, err := client.Stream(t.Context(), userRequest("hi"), func(Event) {}); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, srv.Requests()...)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, h := range []http.Header{reqs[0].Header, reqs[1].Header} {
		if h.Get("X-From-Process") != "" {
			t.Errorf("the process's OPENAI_CUSTOM_HEADERS were sent: %v", h)
		}
	}
	if h := reqs[0].Header; h.Get("OpenAI-Organization") != "" || h.Get("OpenAI-Project") != "" {
		t.Errorf("the process's organization or project was sent: %v", h)
	}
	if h := reqs[1].Header; h.Get("OpenAI-Organization") != "org-given" || h.Get("OpenAI-Project") != "proj-given" ||
		h.Get("X-Proxy-Token") != "tok en" || h.Get("X-Team") != "core" {
		t.Errorf("the given organization, project and headers were not sent: %v", h)
	}
}

func TestAssemblerFinishAndErrors(t *testing.T) {
	chunk := func(t *testing.T, data string) openai.ChatCompletionChunk {
		var ch openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatal(err)
		}
		return ch
	}
	t.Run("content filter categories", func(t *testing.T) {
		var a assembler
		a.add(chunk(t, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter","content_filter_results":{"violence":{"filtered":true},"hate":{"filtered":true},"sexual":{"filtered":false}}}]}`), func(Event) {})
		r := a.reply()
		if r.FinishReason != "content_filter" || !slices.Equal(r.Filtered, []string{"hate", "violence"}) {
			t.Errorf("finish %q, filtered %q", r.FinishReason, r.Filtered)
		}
	})
	for _, tc := range []struct {
		name, data string
		want       APIError
		retryable  bool
	}{
		{"older vLLM", `{"object":"error","message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","param":null,"code":400}`,
			APIError{InStream: true, Status: 400, Message: "This model's maximum context length is 8192 tokens.", Type: "BadRequestError"}, false},
		{"finish error", `{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`,
			APIError{InStream: true, Message: `the server ended the reply with finish_reason "error"`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a assembler
			a.add(chunk(t, tc.data), func(Event) {})
			if a.err == nil || !sameAPIError(*a.err, tc.want) {
				t.Fatalf("err = %+v, want %+v", a.err, tc.want)
			}
			if a.err.Retryable() != tc.retryable {
				t.Errorf("retryable = %v", !tc.retryable)
			}
		})
	}
}

func TestInStreamErrorShapes(t *testing.T) {
	for data, want := range map[string]APIError{
		`{"error":{"message":"m","type":"server_error","code":null}}`:   {InStream: true, Message: "m", Type: "server_error"},
		`{"error":{"code":502,"message":"Provider disconnected"}}`:      {InStream: true, Status: 502, Message: "Provider disconnected"},
		`{"error":{"code":"context_length_exceeded","message":"long"}}`: {InStream: true, Code: "context_length_exceeded", Message: "long"},
		`{"error":"flat"}`: {InStream: true, Message: "flat"},
		`{"error":{}}`:     {InStream: true, Message: "fallback"},
	} {
		if got := inStreamError([]byte(data), "fallback"); !sameAPIError(*got, want) {
			t.Errorf("%s: got %+v, want %+v", data, *got, want)
		}
	}
	overflow := inStreamError([]byte(`{"object":"error","message":"This model's maximum context length is 8192 tokens.","code":400}`), "")
	if !IsContextOverflow(overflow) || retryable(overflow) {
		t.Errorf("an in-stream overflow must reach the compaction path and not be retried")
	}
	if got := overflow.Error(); got != "model stream error: 400 Bad Request: This model's maximum context length is 8192 tokens." {
		t.Errorf("message %q", got)
	}
}

func TestOpenAIDoesNotRetryAnInStream4xx(t *testing.T) {
	body := []byte("data: {\"object\":\"error\",\"message\":\"bad grammar\",\"code\":400}\n\ndata: [DONE]\n\n")
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Repeat(llmtest.Replay(body))))
	c, s := newTestOpenAI(srv, OpenAIConfig{})
	_, err := c.Stream(context.Background(), userRequest("hi"), nil)
	if err == nil || !strings.Contains(err.Error(), "400 Bad Request: bad grammar") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 1 || len(s.Waits()) != 0 {
		t.Errorf("%d requests, %d waits; want 1, 0", n, len(s.Waits()))
	}
}

// sameAPIError compares the fields a server sets.
func sameAPIError(a, b APIError) bool {
	return a.InStream == b.InStream && a.Status == b.Status && a.Message == b.Message && a.Type == b.Type && a.Code == b.Code
}
