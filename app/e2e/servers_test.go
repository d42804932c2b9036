package e2e

// End-to-end tests against real servers' streams, replayed byte for byte
// from testdata/sse (each file says where its shape comes from).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
)

// newReplay is newE2E with the responses given: replayed files
// (testdata/sse/NAME.sse) or scripted responses.
func newReplay(t *testing.T, responses ...llmtest.Response) *e2e {
	t.Helper()
	return &e2e{
		t:         t,
		srv:       llmtest.NewServer(t, llmtest.NewScript(responses...)),
		workspace: t.TempDir(),
		home:      t.TempDir(),
	}
}

func sse(t *testing.T, name string) llmtest.Response {
	return llmtest.ReplayFile(t, filepath.Join(testdataDir, "sse", name+".sse"))
}

func TestE2EServersAnswer(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"ollama-text", "Hello from Ollama."},
		{"vllm-text", "Hello from vLLM."},
		{"llamacpp-text", "Hello from llama.cpp."},
		{"lmstudio-text", "Hello from LM Studio."},
		{"deepseek-text", "Hello from DeepSeek."},
		{"openrouter-text", "Hello from OpenRouter."},
		{"gemini-text", "Hello from Gemini."},
		{"groq-text", "Hello from Groq."},
		{"mistral-text", "Hello from Mistral."},
		{"azure-text", "Hello from Azure."},
		{"xai-text", "Hello from xAI."},
	} {
		t.Run(tc.file, func(t *testing.T) {
			e := newReplay(t, sse(t, tc.file))
			r := e.run("-p", "hi")
			if r.code != app.ExitOK || strings.TrimSpace(r.stdout) != tc.want {
				t.Fatalf("exit %d, stdout %q; want 0, %q", r.code, r.stdout, tc.want)
			}
			if strings.Contains(r.stderr, "warning") {
				t.Errorf("a whole answer warned: %s", r.stderr)
			}
		})
	}
}

func TestE2EServersCallTools(t *testing.T) {
	for _, tc := range []struct {
		file  string
		calls int
	}{
		{"ollama-tool-call", 1},
		{"vllm-tool-call", 1},
		{"llamacpp-tool-call", 1},
		{"mistral-tool-call", 1},
		{"gemini-two-calls", 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			e := newReplay(t, sse(t, tc.file), llmtest.Text("Read them."))
			for name, body := range map[string]string{"notes.txt": "first note\n", "more.txt": "second note\n"} {
				if err := os.WriteFile(filepath.Join(e.workspace, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := e.run("-p", "read the notes")
			if r.code != app.ExitOK || strings.TrimSpace(r.stdout) != "Read them." {
				t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
			}
			reqs := e.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			var results []string
			for _, m := range reqs[1].Messages {
				if m.Role == "tool" {
					results = append(results, m.Content)
				}
			}
			if len(results) != tc.calls || !strings.Contains(results[0], "first note") ||
				(tc.calls == 2 && !strings.Contains(results[1], "second note")) {
				t.Errorf("tool results = %q, want %d reading the notes", results, tc.calls)
			}
		})
	}
}

func TestE2ETruncatedAnswerExits6(t *testing.T) {
	e := newReplay(t, sse(t, "openai-length"))
	r := e.run("-p", "list the steps")
	if r.code != app.ExitIncomplete {
		t.Errorf("exit %d, want %d", r.code, app.ExitIncomplete)
	}
	if strings.TrimSpace(r.stdout) != "The three steps are: first" {
		t.Errorf("stdout %q: the part that came must be printed", r.stdout)
	}
	if !strings.Contains(r.stderr, `output token limit (finish_reason "length")`) {
		t.Errorf("stderr does not say the answer was cut: %s", r.stderr)
	}
}

func TestE2ECutToolCallNeverRuns(t *testing.T) {
	e := newReplay(t, sse(t, "openai-length-tool-call"), llmtest.Text("I will write less."))
	r := e.run("-p", "write it", "--yes")
	if r.code != app.ExitOK {
		t.Errorf("exit %d, want 0: the model went on and finished", r.code)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "cut.txt")); !os.IsNotExist(err) {
		t.Errorf("the cut write_file ran: %v", err)
	}
	if res := e.toolResult(1, "call_cut1"); !strings.Contains(res, "Not run") || !strings.Contains(res, `"length"`) {
		t.Errorf("the model was told %q", res)
	}
	if !strings.Contains(r.stderr, "were not run") {
		t.Errorf("no warning: %s", r.stderr)
	}
}

func TestE2EContentFilterNamesTheFilter(t *testing.T) {
	e := newReplay(t, sse(t, "azure-content-filter"))
	r := e.run("-p", "hi")
	if r.code != app.ExitIncomplete {
		t.Errorf("exit %d, want %d", r.code, app.ExitIncomplete)
	}
	if !strings.Contains(r.stderr, `content filter (finish_reason "content_filter"; flagged: violence)`) {
		t.Errorf("stderr does not name the filter: %s", r.stderr)
	}
}

func TestE2EUnknownFinishReasonWarns(t *testing.T) {
	e := newReplay(t, sse(t, "tgi-eos-token"))
	r := e.run("-p", "hi")
	if r.code != app.ExitOK || strings.TrimSpace(r.stdout) != "Hello from TGI." {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, `warning: the model's reply ended with finish_reason "eos_token"`) {
		t.Errorf("no warning: %s", r.stderr)
	}
}

// TestE2EInStreamErrors: every error shape ends the run with the server's
// own message and exit 1, and a 4xx-class one is sent once.
func TestE2EInStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		file, msg string
		requests  int
	}{
		{"vllm-old-error", "400 Bad Request: This model's maximum context length is 8192 tokens", 1},
		{"vllm-error", "400 Bad Request: Sampled token IDs exceed the max model length.", 1},
		{"openrouter-error", "502 Bad Gateway: Provider disconnected unexpectedly", 1},
		{"openai-error", "model stream error: The server had an error while processing your request.", 1},
		{"mistral-finish-error", `the server ended the reply with finish_reason "error"`, 1},
		{"llamacpp-error-line", "400 Bad Request: failed to parse grammar: unexpected end of input", 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			e := newReplay(t, llmtest.Repeat(sse(t, tc.file)))
			r := e.run("-p", "hi")
			if r.code != app.ExitError || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, tc.msg)
			}
			if n := len(e.requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}
