package e2e

// End-to-end tests of compaction: the built binary against the scripted
// server, with a small context window.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

// summaryRequest reports whether r is a compaction's summary request.
func summaryRequest(r llmtest.Request) bool {
	n := len(r.Messages)
	return len(r.Tools) == 0 && n > 0 && strings.Contains(r.Messages[n-1].Content, "<conversation>")
}

// compactedPrefix starts the message that stands for summarized turns.
const compactedPrefix = "[The earlier part of this conversation was compacted to save context."

// checkPaired fails the test when request n parts a tool call from its
// result.
func checkPaired(t *testing.T, n int, msgs []chat.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		if msgs[i].Role == chat.RoleTool {
			t.Fatalf("request %d: message %d answers %s, which no call before it asks for", n, i, msgs[i].ToolCallID)
		}
		for _, c := range msgs[i].ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != chat.RoleTool || msgs[i].ToolCallID != c.ID {
				t.Fatalf("request %d: call %s has no result after it", n, c.ID)
			}
		}
	}
}

func TestE2ELongSessionCompactsAndFinishes(t *testing.T) {
	const window = 9000
	e := newE2E(t, "compact_200.json")
	e.config(`{"context_window": 9000}`)
	notes := strings.Repeat("- ship the release on friday after the tests pass\n", 40) // 2 KB
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("-p", "read notes.txt 200 times", "--max-requests", "201", "--output", "stream-json")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}

	reqs := e.requests()
	var summaries, pruned, biggest int
	for i, req := range reqs {
		biggest = max(biggest, len(req.Raw)/4)
		if !summaryRequest(req) {
			checkPaired(t, i, req.Messages)
			continue
		}
		summaries++
		if !strings.Contains(req.Messages[1].Content, "## Left to do") || len(req.Messages) != 2 {
			t.Fatalf("request %d is not a summary request", i)
		}
		// The compacted conversation is what is sent next: the system
		// prompt, the summary, the latest turns as they were.
		next := reqs[i+1].Messages
		if next[0].Role != chat.RoleSystem || !strings.HasPrefix(next[1].Content, compactedPrefix) ||
			!strings.HasSuffix(next[1].Content, "Keep reading until the 200th time.") || next[2].Role != chat.RoleAssistant {
			t.Fatalf("request %d after the summary starts %q", i+1, next[1].Content)
		}
		if got := len(next); got > 2+3*2 {
			t.Errorf("request %d after the summary has %d messages: more than the latest 3 turns", i+1, got)
		}
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == chat.RoleTool && strings.HasPrefix(m.Content, "[tool output pruned") {
			pruned++
		}
	}
	if summaries < 2 {
		t.Errorf("%d summaries in 200 turns, want more than one", summaries)
	}
	if n := len(reqs) - summaries; n != 201 {
		t.Errorf("%d requests besides the summaries, want 201", n)
	}
	if biggest > window {
		t.Errorf("a request of ≈%d tokens (4 bytes each) was sent to a window of %d", biggest, window)
	}

	var events struct{ started, done int }
	var final map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stream-json line %q: %v", line, err)
		}
		switch ev["type"] {
		case "compaction_started":
			events.started++
		case "compaction":
			events.done++
			if _, ok := ev["messages"]; ok {
				t.Errorf("a compaction event carries the conversation")
			}
		case "turn_finished":
			final = ev
		}
	}
	if events.done < summaries || events.started != events.done {
		t.Errorf("%d compaction_started and %d compaction events for %d summaries", events.started, events.done, summaries)
	}
	if out, _ := final["outcome"].(map[string]any); out["status"] != "finished" || out["text"] != "Read notes.txt 200 times." {
		t.Errorf("final event = %v", final)
	}
	t.Logf("%d requests, %d summaries, %d compactions, the biggest ≈%d tokens; the last request has %d messages, %d of them pruned outputs",
		len(reqs), summaries, events.done, biggest, len(reqs[len(reqs)-1].Messages), pruned)
}

// writeNotes puts a notes.txt of about 2 KB in the workspace.
func (e *e2e) writeNotes() {
	e.t.Helper()
	notes := strings.Repeat("- ship the release on friday after the tests pass\n", 40)
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte(notes), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func TestE2EContextLengthExceededCompactsAndRetriesOnce(t *testing.T) {
	e := newE2E(t, "compact_overflow.json")
	e.writeNotes()
	r := e.run("-p", "read notes.txt twice")
	if r.code != app.ExitOK || r.stdout != "Read it twice.\n" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "⇣ compacting the conversation (the server said the request is too long for the model)\n") ||
		!strings.Contains(r.stderr, "⇣ compacted the conversation: summarized 3 messages: ≈") {
		t.Errorf("stderr does not report the compaction:\n%s", r.stderr)
	}
	reqs := e.requests()
	if len(reqs) != 5 || !summaryRequest(reqs[3]) {
		t.Fatalf("%d requests; the fourth is not the summary request", len(reqs))
	}
	refused, retry := reqs[2].Messages, reqs[4].Messages
	if len(refused) != 6 || len(retry) != 4 {
		t.Fatalf("the refused request has %d messages, the retry %d; want 6 and 4", len(refused), len(retry))
	}
	checkPaired(t, 4, retry)
	if !strings.HasPrefix(retry[1].Content, compactedPrefix) || !strings.HasSuffix(retry[1].Content, "Read notes.txt twice.") {
		t.Errorf("the retry's second message = %q", retry[1].Content)
	}
	if retry[2].ToolCalls[0].ID != refused[4].ToolCalls[0].ID || retry[3].Content != refused[5].Content {
		t.Errorf("the latest turn was not kept as it was")
	}
	if got := reqs[3].Messages[1].Content; !strings.Contains(got, "[user]\nread notes.txt twice") || !strings.Contains(got, "ship the release on friday") {
		t.Errorf("the summary request lacks the older turn:\n%.600s", got)
	}
}

func TestE2EContextLengthExceededTwiceEndsTheRun(t *testing.T) {
	e := newE2E(t, "compact_overflow_twice.json")
	e.writeNotes()
	r := e.run("-p", "read notes.txt twice")
	if r.code != app.ExitError {
		t.Fatalf("exit %d, want %d", r.code, app.ExitError)
	}
	const want = "the request is still too long for the model after compacting the conversation: model request failed: 400 Bad Request: request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if n := len(e.requests()); n != 5 {
		t.Errorf("%d requests, want 5 (two tool turns, the refused one, the summary, one retry)", n)
	}
}

func TestE2EPreCompactCommandHook(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		check         func(t *testing.T, r result, reqs []llmtest.Request)
	}{{
		name:    "rewrites the summary",
		command: `cat > compact-input.json; printf '{"action":"continue","summary":"Read notes.txt; the deadline is friday."}'`,
		check: func(t *testing.T, r result, reqs []llmtest.Request) {
			if len(reqs) != 6 || !summaryRequest(reqs[4]) {
				t.Fatalf("%d requests; the fifth is not the summary request", len(reqs))
			}
			if got := reqs[5].Messages[1].Content; !strings.HasSuffix(got, "\n\nRead notes.txt; the deadline is friday.") {
				t.Errorf("the summary sent = %q", got)
			}
		},
	}, {
		name:    "cancels",
		command: `cat > compact-input.json; echo 'the audit needs every message' >&2; exit 2`,
		check: func(t *testing.T, r result, reqs []llmtest.Request) {
			if !strings.Contains(r.stderr, `compaction cancelled by pre_compact hook "h": the audit needs every message; the request is sent as it is and may not fit the model's context window`) {
				t.Errorf("stderr lacks the warning:\n%s", r.stderr)
			}
			if len(reqs) != 6 || len(reqs[5].Messages) != 10 || strings.Contains(r.stderr, "⇣ compacted") {
				t.Errorf("the cancelled compaction was applied: %d requests", len(reqs))
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, "compact_hooked.json")
			e.writeNotes()
			cmd, _ := json.Marshal(tc.command)
			// A window the fourth read's result passes, and that pruning
			// alone does not bring back: keep 1 turn, and the threshold low.
			e.config(`{"context_window": 5080, "compact_keep_turns": 1, "compact_threshold": 0.9,
				"hooks": {"pre_compact": [{"name": "h", "command": ` + string(cmd) + `}]}}`)
			r := e.run("-p", "read notes.txt four times")
			if r.code != app.ExitOK {
				t.Fatalf("exit %d", r.code)
			}
			tc.check(t, r, e.requests())
			var in map[string]any
			b, err := os.ReadFile(filepath.Join(e.workspace, "compact-input.json"))
			if err != nil || json.Unmarshal(b, &in) != nil {
				t.Fatalf("the hook's input: %s, %v", b, err)
			}
			if in["event"] != "pre_compact" || in["trigger"] != "auto" || in["summary"] != "## Requests\nRead notes.txt." || in["window"] != 5080.0 {
				t.Errorf("the hook read %.300s", b)
			}
		})
	}
}
