// Package window finds a model's context window: the number of tokens a
// request (prompt and reply) may hold. In order: the user's setting, what
// the server says (OpenRouter and vLLM in /v1/models, llama.cpp in /props,
// Ollama in /api/show), a small table of well-known models. Answers from
// servers are cached on disk for a day.
package window

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/tools/atomicfile"
)

// Window is a context window and where it was learned.
type Window struct {
	Tokens int    `json:"tokens"`
	Source string `json:"source"` // "config", "server /v1/models", "built-in table", ...
}

// Known reports whether the size is known.
func (w Window) Known() bool { return w.Tokens > 0 }

// Options are Lookup's inputs.
type Options struct {
	// Model is the model name as the endpoint knows it.
	Model string
	// BaseURL is the OpenAI-compatible endpoint, e.g.
	// http://localhost:8000/v1; empty is OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token to the endpoint's own routes.
	APIKey string
	// Configured are the user's settings: by model name, or "*" for
	// every model.
	Configured map[string]int
	// Client makes the requests; nil is a client with a 5 s timeout.
	Client *http.Client
	// CacheFile keeps servers' answers; empty disables the cache.
	CacheFile string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// cacheTTL is how long a server's answer is trusted.
const cacheTTL = 24 * time.Hour

// probeTimeout bounds each probe of the server.
const probeTimeout = 5 * time.Second

// Lookup returns the model's context window, or a zero Window when
// nothing knows it. Probes that fail are skipped; only a canceled ctx
// stops the lookup. The server's answer is cached, its silence too (the
// table answers then).
func Lookup(ctx context.Context, o Options) Window {
	if n, ok := o.Configured[o.Model]; ok && n > 0 {
		return Window{Tokens: n, Source: "config"}
	}
	if n, ok := o.Configured["*"]; ok && n > 0 {
		return Window{Tokens: n, Source: "config"}
	}
	if w := fromTable(o.Model); w.Known() && silent(o.BaseURL) {
		return w
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	key := o.BaseURL + "\x00" + o.Model
	w, cached := readCache(o.CacheFile, key, now())
	if !cached && o.BaseURL != "" {
		w = probe(ctx, o)
		if ctx.Err() == nil {
			// A server that says nothing is remembered too, so that it is
			// not asked again every session.
			writeCache(o.CacheFile, key, w, now())
		}
	}
	if w.Known() {
		return w
	}
	return fromTable(o.Model)
}

// silent reports whether the endpoint is OpenAI's own API, which says
// nothing of its models' windows: the table answers for it without the
// three requests that would learn nothing (another server running a
// well-known model may run it with another window, as OpenRouter's 1M
// Claude Sonnet 4: it is asked).
func silent(baseURL string) bool {
	if baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && u.Hostname() == "api.openai.com"
}

// probe asks the server, each way a known server says it.
func probe(ctx context.Context, o Options) Window {
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: probeTimeout}
	}
	base := strings.TrimSuffix(o.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	for _, p := range []func(context.Context, *http.Client, Options, string, string) Window{fromModels, fromLlamaProps, fromOllamaShow} {
		if ctx.Err() != nil {
			return Window{}
		}
		if w := p(ctx, client, o, base, root); w.Known() {
			return w
		}
	}
	return Window{}
}

// fromModels reads /v1/models: OpenRouter's context_length (or its top
// provider's), vLLM's max_model_len, llama.cpp's meta.n_ctx_train.
func fromModels(ctx context.Context, c *http.Client, o Options, base, _ string) Window {
	var body struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int    `json:"context_length"`
			MaxModelLen   int    `json:"max_model_len"`
			TopProvider   struct {
				ContextLength int `json:"context_length"`
			} `json:"top_provider"`
			Meta struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := getJSON(ctx, c, http.MethodGet, base+"/models", o.APIKey, nil, &body); err != nil {
		return Window{}
	}
	for _, m := range body.Data {
		if m.ID != o.Model {
			continue
		}
		switch {
		case m.MaxModelLen > 0:
			return Window{Tokens: m.MaxModelLen, Source: "server /v1/models max_model_len"}
		case m.ContextLength > 0:
			return Window{Tokens: m.ContextLength, Source: "server /v1/models context_length"}
		case m.TopProvider.ContextLength > 0:
			return Window{Tokens: m.TopProvider.ContextLength, Source: "server /v1/models top_provider.context_length"}
		}
		// llama.cpp's n_ctx_train is what the model was trained on, not
		// what the server runs with: /props says that.
	}
	return Window{}
}

// fromLlamaProps reads llama.cpp's /props: the n_ctx the server runs with.
func fromLlamaProps(ctx context.Context, c *http.Client, o Options, _, root string) Window {
	var body struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx int `json:"n_ctx"`
	}
	if err := getJSON(ctx, c, http.MethodGet, root+"/props", o.APIKey, nil, &body); err != nil {
		return Window{}
	}
	// default_generation_settings.n_ctx is a slot's: with -np 4, a
	// quarter of the -c the server was started with. A request must fit
	// one slot.
	if n := cmp.Or(body.Settings.NCtx, body.NCtx); n > 0 {
		return Window{Tokens: n, Source: "server /props n_ctx"}
	}
	return Window{}
}

// ollamaDefault is the window Ollama runs a model with when neither its
// Modelfile nor the server sets num_ctx (the smallest of its defaults;
// it silently drops what does not fit).
const ollamaDefault = 4096

// numCtxRE finds num_ctx in Ollama's parameters; compiled on first use,
// not at start-up.
var numCtxRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)`) })

// fromOllamaShow reads Ollama's /api/show: num_ctx from the model's
// parameters, else Ollama's default capped by the model's own length.
func fromOllamaShow(ctx context.Context, c *http.Client, o Options, _, root string) Window {
	var body struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	req, _ := json.Marshal(map[string]string{"model": o.Model})
	if err := getJSON(ctx, c, http.MethodPost, root+"/api/show", o.APIKey, req, &body); err != nil {
		return Window{}
	}
	if m := numCtxRE().FindStringSubmatch(body.Parameters); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return Window{Tokens: n, Source: "server /api/show num_ctx"}
		}
	}
	trained := 0
	for k, v := range body.ModelInfo {
		if f, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
			trained = int(f)
		}
	}
	if trained == 0 && body.ModelInfo == nil {
		return Window{}
	}
	n := ollamaDefault
	if trained > 0 {
		n = min(n, trained)
	}
	return Window{Tokens: n, Source: "Ollama's default num_ctx (set context_window or OLLAMA_CONTEXT_LENGTH if the server runs larger)"}
}

// maxBody bounds a probe's response (OpenRouter's model list is large).
const maxBody = 16 << 20

func getJSON(ctx context.Context, c *http.Client, method, url, key string, body []byte, v any) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(v)
}

// table holds well-known models by name prefix; the longest prefix wins.
var table = map[string]int{
	"gpt-5":             400000,
	"gpt-4.1":           1047576,
	"gpt-4o":            128000,
	"gpt-4-turbo":       128000,
	"o1":                200000,
	"o3":                200000,
	"o4-mini":           200000,
	"claude-":           200000,
	"anthropic/claude-": 200000,
	"openai/gpt-4.1":    1047576,
	"openai/gpt-4o":     128000,
	"openai/gpt-5":      400000,
	"gemini-1.5-pro":    2097152,
	"gemini-2":          1048576,
	"google/gemini-2":   1048576,
	"deepseek-chat":     64000,
	"deepseek-reasoner": 64000,
}

func fromTable(model string) Window {
	best := ""
	for prefix := range table {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best = prefix
		}
	}
	if best == "" {
		return Window{}
	}
	return Window{Tokens: table[best], Source: "built-in table (" + best + "…)"}
}

// cache is the file of servers' answers, by endpoint and model.
type cache map[string]cacheEntry

type cacheEntry struct {
	Window
	At time.Time `json:"at"`
}

// readCache returns the cached answer of a server for key, which is a
// zero Window when the server said nothing, and whether there is one.
func readCache(file, key string, now time.Time) (Window, bool) {
	if file == "" {
		return Window{}, false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return Window{}, false
	}
	var c cache
	if json.Unmarshal(b, &c) != nil {
		return Window{}, false
	}
	e, ok := c[key]
	if !ok || now.Sub(e.At) > cacheTTL || now.Before(e.At) {
		return Window{}, false
	}
	return e.Window, true
}

// writeCache records a server's answer; a failure only costs a probe
// next time.
func writeCache(file, key string, w Window, now time.Time) {
	if file == "" {
		return
	}
	c := cache{}
	if b, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(b, &c) // a broken cache is replaced
	}
	for k, e := range c {
		if now.Sub(e.At) > cacheTTL {
			delete(c, k)
		}
	}
	c[key] = cacheEntry{w, now}
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return
	}
	atomicfile.WriteCache(file, b, 0o600) // a cache: a failed write is no loss
}
