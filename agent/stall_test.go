package agent

import (
	"cmp"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

// fakeTimers is an injected AfterFunc: its timers fire only when the test
// says so, and it records how each was armed.
type fakeTimers struct {
	mu      sync.Mutex
	timers  []*fakeTimer // the first-token and idle bounds, one per attempt
	wholes  []*fakeTimer // the bounds of whole attempts (DefaultReplyTimeout, or whole)
	whole   time.Duration
	changed chan struct{} // closed and replaced on every change
}

type fakeTimer struct {
	owner *fakeTimers
	f     func()
	armed []time.Duration // the first bound and every Reset
	live  bool
}

func (ft *fakeTimers) AfterFunc(d time.Duration, f func()) Timer {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	t := &fakeTimer{owner: ft, f: f, armed: []time.Duration{d}, live: true}
	if d == cmp.Or(ft.whole, DefaultReplyTimeout) {
		ft.wholes = append(ft.wholes, t)
		ft.notify()
		return t
	}
	ft.timers = append(ft.timers, t)
	ft.notify()
	return t
}

// notify wakes waitArmed; ft.mu must be held.
func (ft *fakeTimers) notify() {
	if ft.changed != nil {
		close(ft.changed)
	}
	ft.changed = make(chan struct{})
}

// waitArmed waits until the n-th timer (from 1) has been armed k times:
// the attempt has taken in k-1 chunks after its first token.
func (ft *fakeTimers) waitArmed(t *testing.T, n, k int) {
	t.Helper()
	for {
		ft.mu.Lock()
		if ft.changed == nil {
			ft.changed = make(chan struct{})
		}
		ok, changed := len(ft.timers) >= n && len(ft.timers[n-1].armed) >= k, ft.changed
		ft.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-t.Context().Done():
			t.Fatalf("timer %d was never armed %d times", n, k)
		}
	}
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.owner.mu.Lock()
	defer t.owner.mu.Unlock()
	was := t.live
	t.armed, t.live = append(t.armed, d), true
	t.owner.notify()
	return was
}

func (t *fakeTimer) Stop() bool {
	t.owner.mu.Lock()
	defer t.owner.mu.Unlock()
	was := t.live
	t.live = false
	return was
}

// fire fires the newest timer, as if its bound ran out; it fails the test
// when that timer is not armed.
func (ft *fakeTimers) fire(t *testing.T) {
	t.Helper()
	ft.mu.Lock()
	if len(ft.timers) == 0 || !ft.timers[len(ft.timers)-1].live {
		ft.mu.Unlock()
		t.Fatal("no armed timer to fire")
	}
	tm := ft.timers[len(ft.timers)-1]
	tm.live = false
	ft.mu.Unlock()
	tm.f()
}

// armed returns how each timer was armed, in order.
func (ft *fakeTimers) armed() [][]time.Duration {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	var out [][]time.Duration
	for _, t := range ft.timers {
		out = append(out, append([]time.Duration(nil), t.armed...))
	}
	return out
}

type streamResult struct {
	reply Reply
	err   error
}

// startStream runs Stream in the background.
func startStream(t *testing.T, client *OpenAI, rec *recorder) <-chan streamResult {
	done := make(chan streamResult, 1)
	go func() {
		reply, err := client.Stream(t.Context(), userRequest("hi"), rec.emit)
		done <- streamResult{reply, err}
	}()
	return done
}

// waitStalls waits until the server has stalled n times, failing the test
// if Stream returns first.
func waitStalls(t *testing.T, srv *llmtest.Server, n int, done <-chan streamResult) {
	t.Helper()
	stalled := make(chan error, 1)
	go func() { stalled <- srv.WaitStalls(t.Context(), n) }()
	select {
	case err := <-stalled:
		if err != nil {
			t.Fatal(err)
		}
	case r := <-done:
		t.Fatalf("Stream returned before stall %d: %+v, %v", n, r.reply, r.err)
	}
}

func TestOpenAIStreamIdleTimeoutEndsAStalledReply(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Stall(llmtest.Response{Content: "a long answer that never ends", ChunkSize: 4}, 3)))
	var timers fakeTimers
	client, sl := newTestOpenAI(srv, OpenAIConfig{
		FirstTokenTimeout: 7 * time.Second,
		StreamIdleTimeout: 3 * time.Second,
		AfterFunc:         timers.AfterFunc,
	})
	var rec recorder
	done := startStream(t, client, &rec)
	waitStalls(t, srv, 1, done)
	timers.waitArmed(t, 1, 3) // both content chunks were taken in
	timers.fire(t)
	r := <-done

	stall, ok := errors.AsType[*StallError](r.err)
	if !ok {
		t.Fatalf("error = %v, want a *StallError", r.err)
	}
	// Frames: the role chunk, then "a lo" and "ng a": 8 bytes.
	if stall.FirstToken || stall.Silence != 3*time.Second || stall.Bytes != 8 {
		t.Errorf("stall = %+v", stall)
	}
	for _, want := range []string{"sent nothing for 3s after 8 bytes", "--stream-idle-timeout", "stream_idle_timeout"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("error %q lacks %q", r.err, want)
		}
	}
	if r.reply.Message.Content != "" {
		t.Errorf("a partial reply escaped: %+v", r.reply)
	}
	// Part of the reply was shown: no retry.
	if n := len(srv.Requests()); n != 1 || len(sl.Waits()) != 0 {
		t.Errorf("requests = %d, waits = %v: a reply cut after its first token must not be retried", n, sl.Waits())
	}
	// The first-token bound, then the idle bound after each token chunk.
	if got := timers.armed(); len(got) != 1 || len(got[0]) != 3 || got[0][0] != 7*time.Second || got[0][1] != 3*time.Second || got[0][2] != 3*time.Second {
		t.Errorf("timer armed %v, want [[7s 3s 3s]]", got)
	}
}

func TestOpenAIFirstTokenTimeoutRetries(t *testing.T) {
	// The first answer stalls right after the headers, the second after
	// the role chunk (no token yet either), the third answers.
	srv := llmtest.NewServer(t, llmtest.NewScript(
		llmtest.Stall(llmtest.Text("never sent"), 0),
		llmtest.Stall(llmtest.Text("never sent"), 1),
		llmtest.Text("here at last"),
	))
	var timers fakeTimers
	client, sl := newTestOpenAI(srv, OpenAIConfig{FirstTokenTimeout: 5 * time.Second, AfterFunc: timers.AfterFunc})
	var rec recorder
	done := startStream(t, client, &rec)
	waitStalls(t, srv, 1, done)
	timers.fire(t)
	waitStalls(t, srv, 2, done)
	timers.fire(t)
	r := <-done
	if r.err != nil || r.reply.Message.Content != "here at last" {
		t.Fatalf("reply = %+v, err = %v", r.reply, r.err)
	}
	retries := rec.retries()
	if len(retries) != 2 || len(sl.Waits()) != 2 {
		t.Fatalf("retries = %+v, waits = %v, want 2", retries, sl.Waits())
	}
	if !strings.Contains(retries[0].Err, "no reply from the model within 5s") {
		t.Errorf("retry error = %q", retries[0].Err)
	}
	// A chunk without a token does not start the idle bound: the second
	// attempt's timer was never reset.
	if got := timers.armed(); len(got) != 3 || len(got[1]) != 1 || got[1][0] != 5*time.Second {
		t.Errorf("timers armed %v", got)
	}
}

func TestOpenAIFirstTokenTimeoutGivesUp(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Repeat(llmtest.Stall(llmtest.Text("never sent"), 0))))
	var timers fakeTimers
	client, _ := newTestOpenAI(srv, OpenAIConfig{MaxRetries: 2, FirstTokenTimeout: 90 * time.Second, AfterFunc: timers.AfterFunc})
	var rec recorder
	done := startStream(t, client, &rec)
	for n := 1; n <= 3; n++ {
		waitStalls(t, srv, n, done)
		timers.fire(t)
	}
	r := <-done
	if _, ok := errors.AsType[*StallError](r.err); !ok {
		t.Fatalf("error = %v, want a *StallError", r.err)
	}
	want := "model request failed after 3 attempts: no reply from the model within 1m30s (raise the bound with --first-token-timeout or first_token_timeout in the config)"
	if r.err.Error() != want {
		t.Errorf("error = %q\nwant    %q", r.err, want)
	}
}

func TestOpenAISilenceAfterTheFinishKeepsTheReply(t *testing.T) {
	// Role, content, finish and usage chunks arrive; [DONE] never does.
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Stall(llmtest.Response{Content: "done", ChunkSize: 8}, 4)))
	var timers fakeTimers
	client, _ := newTestOpenAI(srv, OpenAIConfig{AfterFunc: timers.AfterFunc})
	var rec recorder
	done := startStream(t, client, &rec)
	waitStalls(t, srv, 1, done)
	timers.waitArmed(t, 1, 4) // content, finish and usage chunks taken in
	timers.fire(t)
	r := <-done
	if r.err != nil || r.reply.Message.Content != "done" || r.reply.FinishReason != "stop" {
		t.Errorf("reply = %+v, err = %v", r.reply, r.err)
	}
}

// TestOpenAIBoundsTheWaitForHeaders uses the real timers against a server
// that accepts the request and never answers: no headers, no body.
func TestOpenAIBoundsTheWaitForHeaders(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	client := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-test", MaxRetries: -1, FirstTokenTimeout: 50 * time.Millisecond})
	_, err := client.Stream(t.Context(), userRequest("hi"), nil)
	stall, ok := errors.AsType[*StallError](err)
	if !ok || !stall.FirstToken || stall.Silence != 50*time.Millisecond {
		t.Fatalf("error = %v, want a first-token *StallError of 50ms", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 1 {
		t.Errorf("requests = %d, want 1 (retries off)", requests)
	}
}

// A server that keeps the stream open with empty deltas after a token
// makes no progress: the idle bound is restarted by each token, never by
// an empty delta (before, every chunk restarted it, and a server sending
// empty deltas held the run forever).
func TestOpenAIEmptyDeltasDoNotRestartTheIdleBound(t *testing.T) {
	frame := func(delta string) string {
		return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	body := frame(`{"role":"assistant","content":""}`) + frame(`{"content":"tok"}`)
	for range 50 {
		body += frame(`{"content":""}`)
	}
	body += frame(`{"content":"en"}`) // then the stream ends without a finish
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Replay([]byte(body))))
	var timers fakeTimers
	client, _ := newTestOpenAI(srv, OpenAIConfig{FirstTokenTimeout: 7 * time.Second, StreamIdleTimeout: 3 * time.Second, AfterFunc: timers.AfterFunc})
	var rec recorder
	res := <-startStream(t, client, &rec)
	if !errors.Is(res.err, ErrStreamCut) {
		t.Fatalf("error = %v, want a cut stream", res.err)
	}
	if got := timers.armed(); len(got) != 1 || !slices.Equal(got[0], []time.Duration{7 * time.Second, 3 * time.Second, 3 * time.Second}) {
		t.Errorf("timer armed %v, want [[7s 3s 3s]]: once per token, never per empty delta", got)
	}
}

// The same server stalling after its empty deltas: the idle bound ends
// the reply.
func TestOpenAIEmptyDeltasThenSilenceEndAtTheIdleBound(t *testing.T) {
	r := llmtest.Stall(llmtest.Response{Content: "tok", ChunkSize: 8}, 2) // role, "tok"
	r.Fault.EmptyDeltas = 50
	srv := llmtest.NewServer(t, llmtest.NewScript(r))
	var timers fakeTimers
	client, _ := newTestOpenAI(srv, OpenAIConfig{FirstTokenTimeout: 7 * time.Second, StreamIdleTimeout: 3 * time.Second, AfterFunc: timers.AfterFunc})
	var rec recorder
	done := startStream(t, client, &rec)
	waitStalls(t, srv, 1, done)
	timers.waitArmed(t, 1, 2)
	timers.fire(t)
	res := <-done
	stall, ok := errors.AsType[*StallError](res.err)
	if !ok || stall.FirstToken || stall.Whole || stall.Bytes != 3 {
		t.Fatalf("error = %v (%+v), want an idle stall after 3 bytes", res.err, stall)
	}
}

// A reply that never ends, however steadily its chunks come, ends at
// ReplyTimeout, and says so.
func TestOpenAIReplyTimeoutEndsAnEndlessReply(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Stall(llmtest.Response{Content: "a long answer", ChunkSize: 4}, 3)))
	timers := fakeTimers{whole: 45 * time.Minute}
	client, _ := newTestOpenAI(srv, OpenAIConfig{ReplyTimeout: 45 * time.Minute, AfterFunc: timers.AfterFunc})
	var rec recorder
	done := startStream(t, client, &rec)
	waitStalls(t, srv, 1, done)
	timers.waitArmed(t, 1, 3)
	timers.mu.Lock()
	whole := timers.wholes
	timers.mu.Unlock()
	if len(whole) != 1 {
		t.Fatalf("%d bounds of the whole reply armed, want 1", len(whole))
	}
	whole[0].f()
	res := <-done
	stall, ok := errors.AsType[*StallError](res.err)
	if !ok || !stall.Whole || stall.Bytes != 8 {
		t.Fatalf("error = %v, want the whole-reply bound after 8 bytes", res.err)
	}
	for _, want := range []string{"took longer than 45m0s", "--reply-timeout", "reply_timeout"} {
		if !strings.Contains(res.err.Error(), want) {
			t.Errorf("error %q lacks %q", res.err, want)
		}
	}
}

// A 200 answer that is not an event stream (a proxy's login page, a base
// URL that serves a web site) is reported as what it is, and not retried:
// before, it was retried as "stream cut after 0 bytes".
func TestOpenAIAnswerThatIsNotAStream(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body, want string
	}{
		{"html", "text/html; charset=utf-8", "<!DOCTYPE html>\n<html><head><title>Sign in - Corp Proxy</title></head>\n<body>…</body></html>", `200 with text/html; charset=utf-8, not an event stream: "<!DOCTYPE html> <html><head><title>Sign in - Corp Proxy</title>`},
		{"json", "application/json", `{"id":"x","object":"chat.completion","choices":[]}`, `200 with application/json, not an event stream: "{\"id\":\"x\",\"object\":\"chat.completion\"`},
		{"text as a stream", "text/event-stream", "Service temporarily unavailable\n", `200 with text/event-stream, not an event stream: "Service temporarily unavailable"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				requests++
				mu.Unlock()
				w.Header().Set("Content-Type", tc.contentType)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			s := &sleeper{}
			client := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Sleep: s.Sleep})
			_, err := client.Stream(t.Context(), userRequest("hi"), nil)
			if _, ok := errors.AsType[*NotStreamError](err); !ok || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v\nwant a *NotStreamError containing %s", err, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if requests != 1 || len(s.Waits()) != 0 {
				t.Errorf("%d requests, waits %v: the same request gets the same page, so it is not retried", requests, s.Waits())
			}
		})
	}
}
