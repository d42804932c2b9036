package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// TestE2EReasoningNeverOnStdout: a thinking model's reasoning (Ollama's
// "reasoning", llama.cpp's "reasoning_content") is not part of the
// answer; --show-reasoning prints it on stderr, json carries it.
func TestE2EReasoningNeverOnStdout(t *testing.T) {
	for _, tc := range []struct{ file, answer, thought string }{
		{"ollama-reasoning", "Hello from Ollama.", "Greeting: answer briefly."},
		{"llamacpp-reasoning", "Hello from llama.cpp.", "Just greet."},
	} {
		t.Run(tc.file, func(t *testing.T) {
			e := newReplay(t, sse(t, tc.file), sse(t, tc.file), sse(t, tc.file))
			plain := e.run("-p", "hi")
			if plain.code != app.ExitOK || strings.TrimSpace(plain.stdout) != tc.answer {
				t.Fatalf("exit %d, stdout %q; want %q", plain.code, plain.stdout, tc.answer)
			}
			if strings.Contains(plain.stderr, tc.thought) {
				t.Errorf("reasoning on stderr without --show-reasoning:\n%s", plain.stderr)
			}
			shown := e.run("--show-reasoning", "-p", "hi")
			if strings.TrimSpace(shown.stdout) != tc.answer {
				t.Errorf("--show-reasoning changed stdout: %q", shown.stdout)
			}
			if !strings.Contains(shown.stderr, "thinking\n"+tc.thought+"\n") {
				t.Errorf("stderr lacks the reasoning %q:\n%s", tc.thought, shown.stderr)
			}
			js := e.run("-o", "json", "-p", "hi")
			var res struct{ Result, Reasoning string }
			if err := json.Unmarshal([]byte(js.stdout), &res); err != nil {
				t.Fatalf("json output: %v\n%s", err, js.stdout)
			}
			if res.Result != tc.answer || res.Reasoning != tc.thought {
				t.Errorf("json result %q reasoning %q; want %q, %q", res.Result, res.Reasoning, tc.answer, tc.thought)
			}
		})
	}
}

// TestE2EReasoningInStreamJSON: stream-json carries reasoning_delta events
// and the reasoning tokens the server counted.
func TestE2EReasoningInStreamJSON(t *testing.T) {
	e := newReplay(t, sse(t, "deepseek-reasoner-tool-call"), sse(t, "ollama-reasoning"))
	writeNotes(t, e)
	r := e.run("-o", "stream-json", "--yes", "-p", "read the notes")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var thought strings.Builder
	var reasoningTokens int64
	for line := range strings.Lines(r.stdout) {
		var ev struct {
			Type    string
			Text    string
			Request struct {
				ReasoningTokens int64 `json:"reasoning_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch ev.Type {
		case "reasoning_delta":
			thought.WriteString(ev.Text)
		case "usage":
			reasoningTokens += ev.Request.ReasoningTokens
		case "text_delta":
			if strings.Contains(ev.Text, "notes.txt first") {
				t.Errorf("reasoning in a text delta: %q", ev.Text)
			}
		}
	}
	if want := "The user wants the notes. I should read notes.txt first.Greeting: answer briefly."; thought.String() != want {
		t.Errorf("reasoning deltas %q, want %q", thought.String(), want)
	}
	if reasoningTokens != 25 {
		t.Errorf("reasoning tokens %d, want 25 (the server's count)", reasoningTokens)
	}
}

// TestE2EReasoningRoundTrips: what a provider needs back comes back, byte
// for byte, on the message or call it came with: DeepSeek's
// reasoning_content on the assistant message that made the call,
// OpenRouter's reasoning_details (merged by index, signature kept), and
// Gemini's thought signature on its tool call. It also survives the
// session file: a resumed session sends it again.
func TestE2EReasoningRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string // JSON text the second request must contain
		not  []string
	}{
		{"deepseek-reasoner-tool-call",
			[]string{`"reasoning_content":"The user wants the notes. I should read notes.txt first."`},
			[]string{`"reasoning":`}},
		{"openrouter-reasoning-tool-call",
			[]string{`"reasoning_details":[{"format":"anthropic-claude-v1","index":0,"signature":"EqQBCkYIBxgCKkBsig==","text":"Need the notes file.","type":"reasoning.text"}]`},
			[]string{`"reasoning":`, `"reasoning_content"`}},
		{"gemini-thought-signature",
			[]string{`"extra_content":{"google":{"thought_signature":"CtwBAdHtim9fQ+Zk8w=="}}`},
			[]string{`"reasoning_content"`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			e := newReplay(t, sse(t, tc.file), sse(t, "ollama-reasoning"), sse(t, "ollama-reasoning"))
			writeNotes(t, e)
			r := e.run("--yes", "-p", "read the notes")
			if r.code != app.ExitOK || strings.TrimSpace(r.stdout) != "Hello from Ollama." {
				t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
			}
			resumed := e.run("-c", "-p", "and again")
			if resumed.code != app.ExitOK {
				t.Fatalf("resume: exit %d\n%s", resumed.code, resumed.stderr)
			}
			reqs := e.requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			for i, req := range reqs[1:] {
				body := messagesJSON(t, req.Raw)
				for _, w := range tc.want {
					if !strings.Contains(body, w) {
						t.Errorf("request %d lacks %s:\n%s", i+2, w, body)
					}
				}
				for _, n := range tc.not {
					if strings.Contains(body, n) {
						t.Errorf("request %d sends %s back:\n%s", i+2, n, body)
					}
				}
				// The answer's reasoning (no tool calls) is not sent again.
				if strings.Contains(body, "Greeting:") {
					t.Errorf("request %d sends an answer's reasoning back:\n%s", i+2, body)
				}
			}
		})
	}
}

func writeNotes(t *testing.T, e *e2e) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("first note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// messagesJSON is the messages of a request body but the system prompt,
// with insignificant space removed and object keys sorted as Go's encoder
// writes them, so a test can look for a value.
func messagesJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var body struct{ Messages []any }
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil || len(body.Messages) == 0 {
		t.Fatalf("request body: %v", err)
	}
	out, err := json.Marshal(body.Messages[1:])
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestE2EReasoningEffort: --reasoning-effort (or reasoning_effort in the
// config file) is sent as reasoning_effort; unset, nothing is sent; a bad
// value is a usage error naming where it came from.
func TestE2EReasoningEffort(t *testing.T) {
	e := newReplay(t, sse(t, "ollama-reasoning"), sse(t, "ollama-reasoning"), sse(t, "ollama-reasoning"))
	for _, args := range [][]string{{"-p", "hi"}, {"--reasoning-effort", "high", "-p", "hi"}} {
		if r := e.run(args...); r.code != app.ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	if err := os.MkdirAll(filepath.Dir(e.configPath()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.configPath(), []byte(`{"reasoning_effort": "low"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.run("-p", "hi"); r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var got []string
	for _, req := range e.requests() {
		var body struct {
			Effort *string `json:"reasoning_effort"`
		}
		if err := json.Unmarshal(req.Raw, &body); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%v %s", body.Effort != nil && *body.Effort != "", ptrOr(body.Effort)))
	}
	if want := []string{"false ", "true high", "true low"}; !slices.Equal(got, want) {
		t.Errorf("reasoning_effort sent %q, want %q", got, want)
	}
	bad := e.run("--reasoning-effort", "max", "-p", "hi")
	if bad.code != app.ExitUsage || !strings.Contains(bad.stderr, "reasoning-effort") || !strings.Contains(bad.stderr, "minimal, low, medium, high") {
		t.Errorf("a bad effort: exit %d\n%s", bad.code, bad.stderr)
	}
}

func ptrOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
