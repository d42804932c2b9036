package window

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// server answers like one kind of OpenAI-compatible server; the routes it
// does not know are 404, as on the real thing.
func server(t *testing.T, routes map[string]string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		key := r.Method + " " + r.URL.Path
		body, ok := routes[key]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var req map[string]string
			if json.Unmarshal(b, &req) != nil || req["model"] == "" {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestServersSayItTheirWay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		model  string
		routes map[string]string
		want   int
		source string
	}{
		{"vLLM", "Qwen/Qwen2.5-Coder-32B", map[string]string{
			"GET /v1/models": `{"object":"list","data":[{"id":"Qwen/Qwen2.5-Coder-32B","object":"model","owned_by":"vllm","max_model_len":32768}]}`,
		}, 32768, "max_model_len"},
		{"OpenRouter", "anthropic/claude-sonnet-4", map[string]string{
			"GET /v1/models": `{"data":[{"id":"openai/gpt-4o","context_length":128000},{"id":"anthropic/claude-sonnet-4","context_length":1000000,"top_provider":{"context_length":200000}}]}`,
		}, 1000000, "context_length"},
		{"llama.cpp", "qwen2.5-coder-7b", map[string]string{
			"GET /v1/models": `{"object":"list","data":[{"id":"qwen2.5-coder-7b","meta":{"n_ctx_train":131072}}]}`,
			"GET /props":     `{"default_generation_settings":{"n_ctx":16384},"total_slots":1}`,
		}, 16384, "/props"},
		{"Ollama with num_ctx", "qwen2.5-coder:14b", map[string]string{
			"GET /v1/models": `{"object":"list","data":[{"id":"qwen2.5-coder:14b","object":"model"}]}`,
			"POST /api/show": `{"parameters":"temperature 0.2\nnum_ctx                        32768","model_info":{"qwen2.context_length":131072}}`,
		}, 32768, "num_ctx"},
		{"Ollama default", "llama3.2:1b", map[string]string{
			"GET /v1/models": `{"object":"list","data":[{"id":"llama3.2:1b"}]}`,
			"POST /api/show": `{"parameters":"stop \"<|eot_id|>\"","model_info":{"llama.context_length":131072}}`,
		}, 4096, "Ollama's default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := server(t, tc.routes)
			w := Lookup(context.Background(), Options{Model: tc.model, BaseURL: srv.URL + "/v1", Now: func() time.Time { return now }})
			if w.Tokens != tc.want || !strings.Contains(w.Source, tc.source) {
				t.Errorf("Lookup = %+v, want %d from %s", w, tc.want, tc.source)
			}
		})
	}
}

func TestConfigWinsThenServerThenTable(t *testing.T) {
	srv, hits := server(t, map[string]string{"GET /v1/models": `{"data":[{"id":"gpt-4o","max_model_len":8192}]}`})
	o := Options{Model: "gpt-4o", BaseURL: srv.URL + "/v1"}
	o.Configured = map[string]int{"gpt-4o": 50000, "*": 7}
	if w := Lookup(context.Background(), o); w.Tokens != 50000 || w.Source != "config" {
		t.Errorf("by name: %+v", w)
	}
	o.Configured = map[string]int{"*": 7000}
	if w := Lookup(context.Background(), o); w.Tokens != 7000 {
		t.Errorf("for every model: %+v", w)
	}
	if hits.Load() != 0 {
		t.Errorf("the server was asked although the config says it")
	}
	o.Configured = nil
	if w := Lookup(context.Background(), o); w.Tokens != 8192 {
		t.Errorf("server: %+v", w)
	}
	// OpenAI itself does not say it: the table does.
	if w := Lookup(context.Background(), Options{Model: "gpt-4.1-mini"}); w.Tokens != 1047576 || !strings.Contains(w.Source, "gpt-4.1") {
		t.Errorf("table: %+v", w)
	}
	if w := Lookup(context.Background(), Options{Model: "my-finetune"}); w.Known() {
		t.Errorf("unknown model: %+v", w)
	}
}

// TestOpenAIIsNotAsked: OpenAI's API says nothing of its models' windows;
// the table answers for it at once.
func TestOpenAIIsNotAsked(t *testing.T) {
	var asked atomic.Int32
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		asked.Add(1)
		return nil, errors.New("no network in this test")
	})}
	o := Options{Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1", Client: client, CacheFile: filepath.Join(t.TempDir(), "windows.json")}
	if w := Lookup(context.Background(), o); w.Tokens != 1047576 || !strings.Contains(w.Source, "table") {
		t.Errorf("Lookup = %+v", w)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests to OpenAI's API, want none", n)
	}
	o.Model = "my-finetune" // not in the table: OpenAI is asked (and says nothing)
	if w := Lookup(context.Background(), o); w.Known() || asked.Load() == 0 {
		t.Errorf("Lookup = %+v after %d requests", w, asked.Load())
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestAServerThatSaysNothingFallsBackToTheTable(t *testing.T) {
	srv, _ := server(t, map[string]string{"GET /v1/models": `{"data":[{"id":"other"}]}`})
	w := Lookup(context.Background(), Options{Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1"})
	if w.Tokens != 128000 {
		t.Errorf("Lookup = %+v", w)
	}
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{not json") }))
	defer broken.Close()
	if w := Lookup(context.Background(), Options{Model: "x", BaseURL: broken.URL + "/v1"}); w.Known() {
		t.Errorf("broken server: %+v", w)
	}
}

func TestServerAnswersAreCachedForADay(t *testing.T) {
	srv, hits := server(t, map[string]string{"GET /v1/models": `{"data":[{"id":"m","max_model_len":4000}]}`})
	clock := now
	o := Options{Model: "m", BaseURL: srv.URL + "/v1", CacheFile: filepath.Join(t.TempDir(), "state", "windows.json"), Now: func() time.Time { return clock }}
	for range 3 {
		if w := Lookup(context.Background(), o); w.Tokens != 4000 {
			t.Fatalf("Lookup = %+v", w)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1 (cached)", n)
	}
	clock = now.Add(25 * time.Hour)
	Lookup(context.Background(), o)
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests after a day, want 2", n)
	}
}

func TestServerSilenceIsCachedToo(t *testing.T) {
	// An OpenAI-compatible proxy that lists models without their size:
	// asked once a day, not at every session.
	srv, hits := server(t, map[string]string{"GET /v1/models": `{"data":[{"id":"gpt-4o"}]}`})
	o := Options{Model: "gpt-4o", BaseURL: srv.URL + "/v1", CacheFile: filepath.Join(t.TempDir(), "windows.json"), Now: func() time.Time { return now }}
	for range 3 {
		if w := Lookup(context.Background(), o); w.Tokens != 128000 || !strings.Contains(w.Source, "table") {
			t.Fatalf("Lookup = %+v", w)
		}
	}
	if n := hits.Load(); n != 3 {
		t.Errorf("%d requests, want 3 (one probe of each kind, once)", n)
	}
}

func TestACancelledProbeIsNotCached(t *testing.T) {
	srv, hits := server(t, map[string]string{"GET /v1/models": `{"data":[{"id":"m","max_model_len":4000}]}`})
	o := Options{Model: "m", BaseURL: srv.URL + "/v1", CacheFile: filepath.Join(t.TempDir(), "windows.json"), Now: func() time.Time { return now }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if w := Lookup(ctx, o); w.Known() {
		t.Errorf("cancelled Lookup = %+v", w)
	}
	if w := Lookup(context.Background(), o); w.Tokens != 4000 {
		t.Errorf("Lookup after a cancelled one = %+v (%d requests)", w, hits.Load())
	}
}

func TestLlamaCppSlotWindowWins(t *testing.T) {
	srv, _ := server(t, map[string]string{
		"GET /props": `{"default_generation_settings":{"n_ctx":8192},"n_ctx":32768,"total_slots":4}`,
	})
	if w := Lookup(context.Background(), Options{Model: "m", BaseURL: srv.URL + "/v1"}); w.Tokens != 8192 {
		t.Errorf("Lookup = %+v, want the slot's 8192", w)
	}
}

func TestAuthorizationIsSent(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		io.WriteString(w, `{"data":[{"id":"m","context_length":9000}]}`)
	}))
	defer srv.Close()
	if w := Lookup(context.Background(), Options{Model: "m", BaseURL: srv.URL + "/api/v1", APIKey: "sk-or-test"}); w.Tokens != 9000 {
		t.Errorf("Lookup = %+v", w)
	}
	if got.Load() != "Bearer sk-or-test" {
		t.Errorf("Authorization = %v", got.Load())
	}
}
