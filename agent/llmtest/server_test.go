package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/tackle-dev/tackle/tools/chat"
)

const streamBody = `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`

// post sends a chat completions request and returns the response.
func post(t *testing.T, ctx context.Context, srv *Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// frameData splits an SSE body into the data of its frames.
func frameData(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for f := range strings.SplitSeq(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(f, "data: ")
		if !ok {
			t.Fatalf("frame %q is not a data frame", f)
		}
		out = append(out, data)
	}
	return out
}

// wireChunk is a chunk as a client decodes it.
type wireChunk struct {
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

func decodeChunks(t *testing.T, frames []string) []wireChunk {
	t.Helper()
	var out []wireChunk
	for _, f := range frames {
		if f == "[DONE]" {
			continue
		}
		var c wireChunk
		if err := json.Unmarshal([]byte(f), &c); err != nil {
			t.Fatalf("frame %s: %v", f, err)
		}
		out = append(out, c)
	}
	return out
}

func TestServerStreamsExactFrames(t *testing.T) {
	srv := NewServer(t, NewScript(Response{
		Content:   "Hé!",
		ToolCalls: []ToolCall{Call("call_1", "f", `{"a":1}`)},
		ChunkSize: 2,
		Usage:     &Usage{PromptTokens: 3, CompletionTokens: 5},
	}))
	resp := post(t, t.Context(), srv, streamBody)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}

	head := `{"id":"chatcmpl-llmtest-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[`
	choice := func(delta, finish string) string {
		return head + `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}],"usage":null}`
	}
	want := []string{
		choice(`{"role":"assistant","content":""}`, "null"),
		choice(`{"content":"H"}`, "null"),
		choice(`{"content":"é"}`, "null"),
		choice(`{"content":"!"}`, "null"),
		choice(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`, "null"),
		choice(`{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}`, "null"),
		choice(`{"tool_calls":[{"index":0,"function":{"arguments":"a\""}}]}`, "null"),
		choice(`{"tool_calls":[{"index":0,"function":{"arguments":":1"}}]}`, "null"),
		choice(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`, "null"),
		choice(`{}`, `"tool_calls"`),
		head + `],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`,
		`[DONE]`,
	}
	var wantBody strings.Builder
	for _, w := range want {
		wantBody.WriteString("data: " + w + "\n\n")
	}
	if string(body) != wantBody.String() {
		t.Errorf("body:\n%s\nwant:\n%s", body, wantBody.String())
	}
}

func TestServerWithoutUsageOmitsUsage(t *testing.T) {
	srv := NewServer(t, NewScript(Text("ok")))
	resp := post(t, t.Context(), srv, `{"model":"m","messages":[],"stream":true}`)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(body, []byte("usage")) {
		t.Errorf("usage sent though not asked for:\n%s", body)
	}
	frames := frameData(t, body)
	if len(frames) != 4 || frames[3] != "[DONE]" {
		t.Errorf("frames = %q, want role, content, finish, [DONE]", frames)
	}
	var last wireChunk
	if err := json.Unmarshal([]byte(frames[2]), &last); err != nil {
		t.Fatal(err)
	}
	if got := last.Choices[0].FinishReason; got == nil || *got != "stop" {
		t.Errorf("finish_reason = %v, want stop", got)
	}
}

func TestServerHonoursChunkSize(t *testing.T) {
	text := "naïve café — 日本語 ok 🎉!"
	args := `{"path":"ü/日本.go","n":12345}`
	for _, size := range []int{1, 2, 3, 4, 7, 64} {
		srv := NewServer(t, NewScript(Response{
			Content:   text,
			ToolCalls: []ToolCall{Call("c", "write_file", args)},
			ChunkSize: size,
		}))
		body, err := io.ReadAll(post(t, t.Context(), srv, streamBody).Body)
		if err != nil {
			t.Fatal(err)
		}
		var content, arguments strings.Builder
		argPieces := 0
		check := func(piece string) {
			if !utf8.ValidString(piece) {
				t.Errorf("size %d: piece %q splits a character", size, piece)
			}
			if len(piece) > size && utf8.RuneCountInString(piece) > 1 {
				t.Errorf("size %d: piece %q is longer than the chunk size", size, piece)
			}
		}
		for _, c := range decodeChunks(t, frameData(t, body)) {
			if len(c.Choices) == 0 {
				continue
			}
			d := c.Choices[0].Delta
			if d.Content != nil {
				check(*d.Content)
				content.WriteString(*d.Content)
			}
			for _, tc := range d.ToolCalls {
				if tc.Function.Arguments != "" {
					check(tc.Function.Arguments)
					arguments.WriteString(tc.Function.Arguments)
					argPieces++
				}
			}
		}
		if content.String() != text {
			t.Errorf("size %d: content = %q", size, content.String())
		}
		if arguments.String() != args {
			t.Errorf("size %d: arguments = %q", size, arguments.String())
		}
		if size < len(args) && argPieces < 2 {
			t.Errorf("size %d: arguments came in %d pieces, want them split", size, argPieces)
		}
	}
}

func TestServerInterleavesToolCalls(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		srv := NewServer(t, NewScript(Response{
			ToolCalls: []ToolCall{
				Call("call_a", "read_file", `{"path":"a.go"}`),
				Call("call_b", "read_file", `{"path":"b.go"}`),
			},
			Interleave: interleave,
		}))
		body, err := io.ReadAll(post(t, t.Context(), srv, streamBody).Body)
		if err != nil {
			t.Fatal(err)
		}
		var indices []int
		args := map[int]string{}
		ids := map[int]string{}
		for _, c := range decodeChunks(t, frameData(t, body)) {
			if len(c.Choices) == 0 {
				continue
			}
			for _, tc := range c.Choices[0].Delta.ToolCalls {
				indices = append(indices, tc.Index)
				args[tc.Index] += tc.Function.Arguments
				if tc.ID != "" {
					ids[tc.Index] = tc.ID
				}
			}
		}
		if args[0] != `{"path":"a.go"}` || args[1] != `{"path":"b.go"}` || ids[0] != "call_a" || ids[1] != "call_b" {
			t.Errorf("interleave=%v: args %v, ids %v", interleave, args, ids)
		}
		// Every call has 1 + 4 deltas (15 bytes of arguments in 4s).
		want := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
		if interleave {
			want = []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
		}
		if !slices.Equal(indices, want) {
			t.Errorf("interleave=%v: indices %v, want %v", interleave, indices, want)
		}
	}
}

func TestServerCutDropsConnection(t *testing.T) {
	srv := NewServer(t, LoadScript(t, "../../testdata/llm/cut_mid_tool_call.json"))
	resp := post(t, t.Context(), srv, streamBody)
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error = %v, want unexpected EOF", err)
	}
	frames := frameData(t, body)
	if len(frames) != 3 {
		t.Fatalf("got %d frames before the cut, want 3:\n%s", len(frames), body)
	}
	for _, c := range decodeChunks(t, frames) {
		if c.Choices[0].FinishReason != nil {
			t.Errorf("finish_reason sent before the cut")
		}
	}
	if bytes.Contains(body, []byte("[DONE]")) {
		t.Error("[DONE] sent before the cut")
	}
}

func TestServerStallBlocksUntilClientLeaves(t *testing.T) {
	srv := NewServer(t, LoadScript(t, "../../testdata/llm/stall.json"))
	ctx, cancel := context.WithCancel(t.Context())
	resp := post(t, ctx, srv, streamBody)

	<-srv.Stalled()
	if err := srv.WaitStalls(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("read error = %v, want context.Canceled", err)
	}
	if got := len(frameData(t, body)); got != 2 {
		t.Errorf("got %d frames before the stall, want 2", got)
	}
}

func TestServerCloseReleasesStall(t *testing.T) {
	tb := &fakeTB{TB: t}
	srv := NewServer(tb, NewScript(Stall(Text("never finished"), 1)))
	resp := post(t, t.Context(), srv, streamBody)
	<-srv.Stalled()
	tb.runCleanups() // would hang if the stalled handler were not released
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("stalled stream ended cleanly when the server closed")
	}
	if len(tb.errors) != 0 {
		t.Errorf("errors: %q", tb.errors)
	}
}

func TestServerFaultStatus(t *testing.T) {
	srv := NewServer(t, NewScript(
		Response{Fault: &Fault{Status: 429, RetryAfter: "2", RetryAfterMS: "1500"}},
		Response{Fault: &Fault{Status: 500, Body: "boom"}},
		Response{Fault: &Fault{Status: 400, Body: `{"error":{"message":"custom","type":"x","param":"messages","code":"c"}}`}},
		Text("finally"),
	))
	type apiError struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	read := func(resp *http.Response) apiError {
		t.Helper()
		var e apiError
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		return e
	}

	resp := post(t, t.Context(), srv, streamBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("retry-after-ms") != "1500" {
		t.Errorf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	if e := read(resp); e.Error.Code == nil || *e.Error.Code != "rate_limit_exceeded" || e.Error.Message == "" {
		t.Errorf("429 body = %+v", e)
	}

	resp = post(t, t.Context(), srv, streamBody)
	if e := read(resp); resp.StatusCode != 500 || e.Error.Message != "boom" || e.Error.Type != "server_error" {
		t.Errorf("500: status %d, body %+v", resp.StatusCode, e)
	}
	if resp.Header.Get("Retry-After") != "" {
		t.Errorf("Retry-After sent without being scripted")
	}

	resp = post(t, t.Context(), srv, streamBody)
	if e := read(resp); resp.StatusCode != 400 || e.Error.Message != "custom" {
		t.Errorf("400: status %d, body %+v", resp.StatusCode, e)
	}

	resp = post(t, t.Context(), srv, streamBody)
	if resp.StatusCode != 200 {
		t.Errorf("after the faults: status %d", resp.StatusCode)
	}
}

func TestServerRepeat(t *testing.T) {
	srv := NewServer(t, NewScript(Text("first"), Repeat(Text("again"))))
	for i, want := range []string{"first", "again", "again", "again"} {
		body, err := io.ReadAll(post(t, t.Context(), srv, streamBody).Body)
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, c := range decodeChunks(t, frameData(t, body)) {
			if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
				got.WriteString(*c.Choices[0].Delta.Content)
			}
		}
		if got.String() != want {
			t.Errorf("request %d: %q, want %q", i+1, got.String(), want)
		}
	}
}

func TestServerReportsExhaustion(t *testing.T) {
	tb := &fakeTB{TB: t}
	srv := NewServer(tb, NewScript(Text("only one")))
	if _, err := io.ReadAll(post(t, t.Context(), srv, streamBody).Body); err != nil {
		t.Fatal(err)
	}
	resp := post(t, t.Context(), srv, streamBody)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(body), "llmtest: script exhausted") {
		t.Errorf("status %d, body %s", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Should-Retry") != "false" {
		t.Error("exhaustion answer invites retries")
	}
	if len(tb.errors) != 0 {
		t.Errorf("reported before cleanup: %q", tb.errors)
	}
	tb.runCleanups()
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "script exhausted: request 2") {
		t.Errorf("errors at cleanup = %q", tb.errors)
	}
}

func TestServerReportsBadRequests(t *testing.T) {
	tb := &fakeTB{TB: t}
	srv := NewServer(tb, NewScript(Text("unused")))

	resp := post(t, t.Context(), srv, `{"model":`)
	if resp.StatusCode != 400 {
		t.Errorf("malformed body: status %d", resp.StatusCode)
	}
	resp = post(t, t.Context(), srv, `{"model":"m","messages":[]}`)
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 400 || !strings.Contains(string(body), "only streaming") {
		t.Errorf("non-streaming: status %d, body %s", resp.StatusCode, body)
	}
	other, err := http.Get(srv.URL() + "/embeddings")
	if err != nil {
		t.Fatal(err)
	}
	other.Body.Close()
	if other.StatusCode != 404 {
		t.Errorf("other endpoint: status %d", other.StatusCode)
	}

	if got := len(srv.Requests()); got != 2 {
		t.Errorf("recorded %d requests, want 2", got)
	}
	tb.runCleanups()
	if len(tb.errors) != 2 || !strings.Contains(tb.errors[0], "decode request") ||
		!strings.Contains(tb.errors[1], "unexpected request GET /v1/embeddings") {
		t.Errorf("errors at cleanup = %q", tb.errors)
	}
}

func TestServerAnswersContextWindowProbes(t *testing.T) {
	get := func(srv *Server, method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.srv.URL+path, strings.NewReader(`{"model":"m"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	srv := NewServer(t, NewScript(Text("unused")))
	if code, body := get(srv, "GET", "/v1/models"); code != 200 || body != `{"data":[],"object":"list"}` {
		t.Errorf("models: %d %s", code, body)
	}
	for _, p := range []string{"GET /props", "POST /api/show"} {
		method, path, _ := strings.Cut(p, " ")
		if code, _ := get(srv, method, path); code != 404 {
			t.Errorf("%s: status %d, want 404", p, code)
		}
	}
	if got := srv.Probes(); !slices.Equal(got, []string{"GET /v1/models", "GET /props", "POST /api/show"}) {
		t.Errorf("probes = %q", got)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d chat requests recorded", n)
	}

	s, err := ParseScript([]byte(`{"responses":[{"content":"x"}],"models":[{"id":"qwen","max_model_len":8192}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv = NewServer(t, s)
	if code, body := get(srv, "GET", "/v1/models"); code != 200 || body != `{"data":[{"id":"qwen","max_model_len":8192}],"object":"list"}` {
		t.Errorf("models: %d %s", code, body)
	}
}

func TestFaultTypeAndCode(t *testing.T) {
	s, err := ParseScript([]byte(`{"responses":[{"fault":{"status":400,"body":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(t, s)
	resp := post(t, t.Context(), srv, `{"model":"m","messages":[],"stream":true}`)
	b, _ := io.ReadAll(resp.Body)
	want := `{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens.","param":null,"type":"invalid_request_error"}}`
	if resp.StatusCode != 400 || string(b) != want {
		t.Errorf("answer = %d %s\nwant %s", resp.StatusCode, b, want)
	}
	if _, err := ParseScript([]byte(`{"responses":[{"fault":{"cut_after":1,"code":"x"}}]}`)); err == nil || !strings.Contains(err.Error(), "need a fault status") {
		t.Errorf("code without status: %v", err)
	}
}

func TestServerRecordsRequests(t *testing.T) {
	srv := NewServer(t, NewScript(Text("ok")))
	body := `{
		"model": "gpt-test",
		"messages": [
			{"role": "system", "content": "be brief"},
			{"role": "user", "content": [{"type": "text", "text": "fix "}, {"type": "text", "text": "it"}]},
			{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]},
			{"role": "tool", "tool_call_id": "call_1", "content": "a.go"}
		],
		"tools": [{"type": "function", "function": {"name": "bash", "description": "run", "parameters": {"type": "object"}}}],
		"stream": true
	}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	if err := srv.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	want := []chat.Message{
		{Role: chat.RoleSystem, Content: "be brief"},
		{Role: chat.RoleUser, Content: "fix it"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`}}},
		{Role: chat.RoleTool, ToolCallID: "call_1", Content: "a.go"},
	}
	if got.Model != "gpt-test" || !got.Stream || got.IncludeUsage {
		t.Errorf("model %q, stream %v, include usage %v", got.Model, got.Stream, got.IncludeUsage)
	}
	if !slices.EqualFunc(got.Messages, want, messageEqual) {
		t.Errorf("messages = %+v\nwant %+v", got.Messages, want)
	}
	if !slices.Equal(got.Tools, []string{"bash"}) || string(got.ToolSpecs[0].Parameters) != `{"type": "object"}` {
		t.Errorf("tools = %q, specs %+v", got.Tools, got.ToolSpecs)
	}
	if got.Header.Get("Authorization") != "Bearer sk-test" || string(got.Raw) != body {
		t.Errorf("header %v, raw %s", got.Header, got.Raw)
	}
}

func messageEqual(a, b chat.Message) bool {
	return reflect.DeepEqual(a, b)
}

func TestWaitRequestsHonoursContext(t *testing.T) {
	srv := NewServer(t, NewScript(Text("unused")))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.WaitRequests(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestParseScript(t *testing.T) {
	good := `{"responses":[
		{"content":"a","chunk_size":2,"usage":{"prompt_tokens":1,"completion_tokens":2}},
		{"fault":{"status":429,"retry_after":1,"retry_after_ms":"250","body":"slow down"}},
		{"tool_calls":[{"id":"c","name":"bash","arguments":"{}"}],"fault":{"cut_after":0}},
		{"content":"x","fault":{"stall_after":2},"repeat":true}
	]}`
	s, err := ParseScript([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Responses[1].Fault; f.RetryAfter != "1" || f.RetryAfterMS != "250" {
		t.Errorf("retry headers = %q, %q", f.RetryAfter, f.RetryAfterMS)
	}
	if f := s.Responses[2].Fault; f.CutAfter == nil || *f.CutAfter != 0 {
		t.Errorf("cut_after 0 lost")
	}

	bad := map[string]string{
		"empty":                `{"responses":[]}`,
		"unknown field":        `{"responses":[{"contnet":"typo"}]}`,
		"repeat not last":      `{"responses":[{"content":"a","repeat":true},{"content":"b"}]}`,
		"two breaks":           `{"responses":[{"fault":{"status":500,"cut_after":1}}]}`,
		"empty fault":          `{"responses":[{"fault":{}}]}`,
		"status not an error":  `{"responses":[{"fault":{"status":200}}]}`,
		"retry without status": `{"responses":[{"fault":{"cut_after":1,"retry_after":"1"}}]}`,
		"negative chunk":       `{"responses":[{"content":"a","chunk_size":-1}]}`,
		"nameless call":        `{"responses":[{"tool_calls":[{"id":"c"}]}]}`,
		"trailing data":        `{"responses":[{"content":"a"}]} {}`,
	}
	for name, data := range bad {
		if _, err := ParseScript([]byte(data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestShippedScriptsParse(t *testing.T) {
	for _, name := range []string{
		"plain", "tool_call", "interleaved_tool_calls", "rate_limit_then_answer",
		"server_error_then_answer", "cut_mid_tool_call", "stall", "always_overloaded",
	} {
		LoadScript(t, "../../testdata/llm/"+name+".json")
	}
}

func TestSplitText(t *testing.T) {
	tests := []struct {
		in   string
		size int
		want []string
	}{
		{"", 4, nil},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"日本", 2, []string{"日", "本"}}, // each character is wider than size
		{"a日b", 3, []string{"a", "日", "b"}},
		{"ab日", 4, []string{"ab", "日"}},
	}
	for _, tt := range tests {
		if got := splitText(tt.in, tt.size); !slices.Equal(got, tt.want) {
			t.Errorf("splitText(%q, %d) = %q, want %q", tt.in, tt.size, got, tt.want)
		}
	}
}

// fakeTB records errors and cleanups, so a test can check what the server
// reports without failing itself.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) runCleanups() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for _, fn := range slices.Backward(fns) {
		fn()
	}
}

func TestTimesAndRules(t *testing.T) {
	s, err := ParseScript([]byte(`{
		"rules": [{"last_contains": "<conversation>", "response": {"content": "summary"}}],
		"responses": [{"content": "again", "times": 3}, {"content": "last"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(t, s)
	ask := func(last string) string {
		t.Helper()
		body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"user","content":%q}],"stream":true}`, last)
		resp := post(t, t.Context(), srv, body)
		b, _ := io.ReadAll(resp.Body)
		var text strings.Builder
		for _, line := range strings.Split(string(b), "\n") {
			var c struct {
				Choices []struct {
					Delta struct{ Content string } `json:"delta"`
				} `json:"choices"`
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &c) == nil && len(c.Choices) > 0 {
				text.WriteString(c.Choices[0].Delta.Content)
			}
		}
		return text.String()
	}
	var got []string
	for _, last := range []string{"a", "b", "here is the <conversation> to sum up", "c", "d"} {
		got = append(got, ask(last))
	}
	if want := []string{"again", "again", "summary", "again", "last"}; !slices.Equal(got, want) {
		t.Errorf("answers = %q, want %q", got, want)
	}
	for _, bad := range []string{
		`{"responses":[{"content":"x","times":-1}]}`,
		`{"responses":[{"content":"x","times":2,"repeat":true}]}`,
		`{"responses":[{"content":"x"}],"rules":[{"last_contains":"","response":{"content":"y"}}]}`,
		`{"responses":[{"content":"x"}],"rules":[{"last_contains":"a","response":{"content":"y","times":2}}]}`,
	} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) accepted it", bad)
		}
	}
}

func TestServerReplaysBodyByteForByte(t *testing.T) {
	body := []byte(": a comment line\n\ndata: {\"object\":\"error\",\"message\":\"too long\",\"code\":400}\r\n\r\ndata:{\"no\":\"space\"}\n\nerror: not even SSE\n")
	srv := NewServer(t, NewScript(Replay(body)))
	resp := post(t, context.Background(), srv, streamBody)
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !bytes.Equal(got, body) {
		t.Errorf("body =\n%q\nwant\n%q", got, body)
	}
}

func TestScriptReadsSSEFilesBesideIt(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sse"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sse", "x.sse"), []byte("data: [DONE]\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "s.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"sse":"sse/x.sse","times":2}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := LoadScript(t, script)
	if got := string(s.Responses[0].Body); got != "data: [DONE]\n\n" {
		t.Errorf("body = %q", got)
	}
	for name, data := range map[string]string{
		"missing file":     `{"responses":[{"sse":"nope.sse"}]}`,
		"sse with content": `{"responses":[{"sse":"` + filepath.Join(dir, "sse", "x.sse") + `","content":"a"}]}`,
	} {
		if _, err := ParseScript([]byte(data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestServerHoldWaitsForRelease: a held response answers only after
// Release; the request is recorded at once.
func TestServerHoldWaitsForRelease(t *testing.T) {
	srv := NewServer(t, Script{Responses: []Response{{Hold: true, Content: "held"}, {Hold: true, Content: "after"}}})
	got := make(chan []string, 1)
	go func() {
		resp := post(t, t.Context(), srv, streamBody)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- frameData(t, body)
	}()
	if err := srv.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	select {
	case frames := <-got:
		t.Fatalf("a held response answered before Release: %q", frames)
	default:
	}
	srv.Release()
	if frames := <-got; len(frames) == 0 || !strings.Contains(strings.Join(frames, ""), "held") {
		t.Errorf("frames after Release: %q", frames)
	}
	// Once released, a held response answers at once.
	resp := post(t, t.Context(), srv, streamBody)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"content":"afte"`) {
		t.Errorf("second response: %s", body)
	}
}

// TestConversationRules: a first_user_contains rule answers the requests
// of its conversation in turn, out of the sequence of responses; a request
// past its last response is one the script has none for.
func TestConversationRules(t *testing.T) {
	s, err := ParseScript([]byte(`{
		"rules": [{"first_user_contains": "TASK-A", "responses": [{"content": "a1"}, {"content": "a2"}]}],
		"responses": [{"content": "main1"}, {"content": "main2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(t, s)
	ask := func(first, last string) string {
		t.Helper()
		body := fmt.Sprintf(`{"model":"m","messages":[{"role":"system","content":"TASK-A in the system prompt counts not"},{"role":"user","content":%q},{"role":"user","content":%q}],"stream":true}`, first, last)
		b, _ := io.ReadAll(post(t, t.Context(), srv, body).Body)
		var text strings.Builder
		for _, data := range frameData(t, b) {
			var c wireChunk
			if json.Unmarshal([]byte(data), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
				text.WriteString(*c.Choices[0].Delta.Content)
			}
		}
		return text.String()
	}
	var got []string
	for _, q := range [][2]string{{"hi", "x"}, {"do TASK-A", "x"}, {"hi", "TASK-A later"}, {"do TASK-A", "y"}} {
		got = append(got, ask(q[0], q[1]))
	}
	if want := []string{"main1", "a1", "main2", "a2"}; !slices.Equal(got, want) {
		t.Errorf("answers = %q, want %q", got, want)
	}
	for _, bad := range []string{
		`{"responses":[{"content":"x"}],"rules":[{"first_user_contains":"a","last_contains":"b","response":{"content":"y"}}]}`,
		`{"responses":[{"content":"x"}],"rules":[{"first_user_contains":"a"}]}`,
		`{"responses":[{"content":"x"}],"rules":[{"first_user_contains":"a","response":{"content":"y"},"responses":[{"content":"z"}]}]}`,
	} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) accepted it", bad)
		}
	}
}

// TestAwaitHoldsUntilAnotherRequest: a response that awaits a text is
// sent only once a request carrying it has arrived.
func TestAwaitHoldsUntilAnotherRequest(t *testing.T) {
	srv := NewServer(t, Script{Responses: []Response{{Await: "second", Content: "first done"}, {Content: "second done"}}})
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(post(t, t.Context(), srv, streamBody).Body)
		got <- string(b)
	}()
	if err := srv.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	select {
	case body := <-got:
		t.Fatalf("the awaiting response answered before the request it awaits: %s", body)
	default:
	}
	b, _ := io.ReadAll(post(t, t.Context(), srv, strings.Replace(streamBody, `"hi"`, `"the second"`, 1)).Body)
	if !strings.Contains(string(b), `"content":"seco"`) {
		t.Errorf("second: %s", b)
	}
	if body := <-got; !strings.Contains(body, `"content":"firs"`) {
		t.Errorf("first: %s", body)
	}
}
