package agent

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

// TestEndpointErrorsNameTheFix: the network cases a new user meets give
// an error that names the URL and the usual fix, and only what can
// succeed is retried, with short retry lines.
func TestEndpointErrorsNameTheFix(t *testing.T) {
	// Nothing listens: a port taken and given back.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/v1"
	l.Close()

	// Ollama's own routes without /v1: its 404 is a bare text page.
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			t.Errorf("the request went to /v1")
		}
		http.Error(w, "404 page not found", http.StatusNotFound)
	}))
	defer ollama.Close()
	// A web server that is no API (python3 -m http.server answers POST so).
	var webHits atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		webHits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotImplemented)
		w.Write([]byte("<html><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST').</p></body></html>"))
	}))
	defer web.Close()

	for _, tt := range []struct {
		name, base string
		attempts   int
		want       []string
	}{
		{"server down", down, 3, []string{
			"model request failed after 3 attempts: nothing answers at " + down + " (connection refused).",
			"Is the model server running (Ollama: ollama serve)", "--base-url or OPENAI_BASE_URL",
		}},
		{"no /v1", ollama.URL, 1, []string{
			"model request failed: 404 Not Found: 404 page not found (from " + ollama.URL + "/chat/completions).",
			"usually ends in /v1: try --base-url " + ollama.URL + "/v1",
		}},
		{"not an OpenAI API", web.URL + "/v1", 1, []string{
			"model request failed: 501 Not Implemented (from " + web.URL + "/v1/chat/completions).",
			"does not speak the OpenAI chat completions API",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := NewOpenAI(OpenAIConfig{BaseURL: tt.base, MaxRetries: 2, Sleep: (&sleeper{}).Sleep, Jitter: func() float64 { return 0.5 }})
			var rec recorder
			_, err := c.Stream(t.Context(), userRequest("hi"), rec.emit)
			var ee *EndpointError
			if !errors.As(err, &ee) || ee.Attempts != tt.attempts {
				t.Fatalf("error = %v (%T); want an EndpointError after %d attempts", err, err, tt.attempts)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			retries := rec.retries()
			if len(retries) != tt.attempts-1 {
				t.Fatalf("%d retries, want %d", len(retries), tt.attempts-1)
			}
			for i, r := range retries {
				if line := RetryLine(r); r.Retries != 2 || len(line) > 80 || !strings.Contains(line, "retry ") {
					t.Errorf("retry %d: %+v: %q", i, r, line)
				}
			}
			if len(retries) > 0 && retries[0].Err != "connection refused" {
				t.Errorf("the retry says %q, want the short reason", retries[0].Err)
			}
		})
	}
	if n := webHits.Load(); n != 1 {
		t.Errorf("the 501 server got %d requests: a 501 is not retried", n)
	}
}

// TestRetryableStatuses: what may succeed when sent again is retried;
// what answers the same every time is not.
func TestRetryableStatuses(t *testing.T) {
	for status, want := range map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 504: true, 501: false, 505: false, 400: false, 404: false, 405: false} {
		if got := (&APIError{Status: status}).Retryable(); got != want {
			t.Errorf("%d: Retryable = %v, want %v", status, got, want)
		}
	}
}

// TestListModels: the endpoint's /models list, sorted, sent with the key;
// a server without the route says so.
func TestListModels(t *testing.T) {
	script := llmtest.NewScript(llmtest.Text("unused"))
	script.Models = []llmtest.Model{{ID: "qwen3-coder:30b"}, {ID: "llama3.2"}, {ID: "qwen3-coder:30b"}}
	srv := llmtest.NewServer(t, script)
	got, err := ListModels(t.Context(), OpenAIConfig{BaseURL: srv.URL(), APIKey: "sk-x"})
	if err != nil || strings.Join(got, ",") != "llama3.2,qwen3-coder:30b" {
		t.Fatalf("ListModels = %q, %v", got, err)
	}
	if p := srv.Probes(); len(p) != 1 || p[0] != "GET /v1/models" {
		t.Errorf("probes %q", p)
	}
	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	if _, err := ListModels(t.Context(), OpenAIConfig{BaseURL: none.URL + "/v1"}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("no route: %v", err)
	}
}
