package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// readTool is a toolbox of one tool, "read", whose output is as many
// bytes as its argument n says: a small call with a large result.
type readTool struct{}

func (readTool) Specs() []chat.ToolSpec {
	return []chat.ToolSpec{{Name: "read", Description: "Read n bytes.", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}}
}

func (readTool) Run(_ context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	var args struct{ N int }
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return chat.ToolResult{Status: chat.StatusError, Content: err.Error()}, nil
	}
	return chat.ToolResult{Status: chat.StatusOK, Content: output(call.ID, args.N)}, nil
}

// output is what read returns for call id: n bytes.
func output(id string, n int) string { return id + ":" + strings.Repeat("r", n-len(id)-1) }

// readTurn is a reply that reads n bytes. usage, when not zero, is the
// server's count of the request's prompt.
func readTurn(id string, n int, usage int64) llmtest.Response {
	r := llmtest.ToolCalls(llmtest.Call(id, "read", fmt.Sprintf(`{"n":%d}`, n)))
	if usage > 0 {
		r.Usage = &llmtest.Usage{PromptTokens: usage, CompletionTokens: 10}
	}
	return r
}

// compactHarness is a harness with the read tool and a context window of
// window tokens (none when 0).
func compactHarness(t *testing.T, script llmtest.Script, window int, asked *atomic.Int32) *harness {
	t.Helper()
	h := newHarness(t, script, func(c *agent.Config) {
		c.Tools = readTool{}
		if window > 0 {
			withWindow(window, asked)(c)
		}
	})
	return h
}

// withWindow gives the Worker a context window of n tokens for every model.
func withWindow(n int, asked *atomic.Int32) func(*agent.Config) {
	return func(c *agent.Config) {
		c.ContextWindow = func(context.Context, string) int {
			if asked != nil {
				asked.Add(1)
			}
			return n
		}
	}
}

// checkPairs fails the test when a request parts a tool call from its
// result: every call has exactly one result right after its message, and
// every result answers a call.
func checkPairs(t *testing.T, n int, msgs []chat.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == chat.RoleTool {
			t.Errorf("request %d: message %d answers %s, which no message before it asks for", n, i, m.ToolCallID)
			continue
		}
		for _, c := range m.ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != chat.RoleTool || msgs[i].ToolCallID != c.ID {
				t.Errorf("request %d: call %s has no result after it", n, c.ID)
				return
			}
		}
	}
}

// compactions returns the Compacted events.
func (e *events) compactions() []agent.Compacted {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agent.Compacted
	for _, ev := range e.all {
		if c, ok := ev.(agent.Compacted); ok {
			out = append(out, c)
		}
	}
	return out
}

func (e *events) warnings() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.all {
		if w, ok := ev.(agent.Warning); ok {
			out = append(out, w.Message)
		}
	}
	return out
}

func TestPruningAloneWhenItIsEnough(t *testing.T) {
	// Window 10000, threshold 8500. After the fourth reply the server
	// counts 7000 tokens; the fourth output (8000 bytes, ~2000 tokens)
	// passes the threshold; pruning the first output brings it back.
	h := compactHarness(t, llmtest.NewScript(
		readTurn("c1", 8000, 0), readTurn("c2", 8000, 0), readTurn("c3", 8000, 0), readTurn("c4", 8000, 7000),
		llmtest.Text("Done."),
	), 10000, nil)
	out, err := h.worker.Run(t.Context(), "read")
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5 (no summary request)", len(reqs))
	}
	last := reqs[4].Messages
	checkPairs(t, 4, last)
	stub := toolMessage(t, last, "c1").Content
	if stub != `[tool output pruned to save context: read {"n":8000} returned 8000 bytes; call it again with these arguments if you need them]` {
		t.Errorf("c1's output = %.200q", stub)
	}
	for _, id := range []string{"c2", "c3", "c4"} {
		if got := toolMessage(t, last, id).Content; got != output(id, 8000) {
			t.Errorf("%s's output was changed: %.80q", id, got)
		}
	}
	cs := h.events.compactions()
	if len(cs) != 1 || cs[0].Trigger != hooks.CompactAuto || cs[0].Pruned != 1 || cs[0].Summary != "" || cs[0].Replaced != 0 ||
		cs[0].Window != 10000 || cs[0].Before <= 8500 || cs[0].After >= 8500 {
		t.Errorf("compactions = %+v", cs)
	}
	if !reflect.DeepEqual(cs[0].Messages, last) {
		t.Errorf("the event's conversation is not what was sent next")
	}
}

func TestSummaryWhenPruningIsNotEnough(t *testing.T) {
	// A long first prompt keeps the request over the threshold after
	// pruning: the model summarizes the first turn.
	prompt := "Please read this: " + strings.Repeat("p", 19000)
	h := compactHarness(t, llmtest.NewScript(
		readTurn("c1", 4000, 0), readTurn("c2", 4000, 0), readTurn("c3", 4000, 0), readTurn("c4", 4000, 9000),
		llmtest.Text("## Requests\nRead a long text."),
		llmtest.Text("Done."),
	), 10000, nil)
	out, err := h.worker.Run(t.Context(), prompt)
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}

	sum := reqs[4]
	if len(sum.Tools) != 0 || len(sum.Messages) != 2 || sum.Messages[0].Role != chat.RoleSystem ||
		!strings.Contains(sum.Messages[0].Content, "You summarize a working session") {
		t.Fatalf("summary request: %d tools, %d messages", len(sum.Tools), len(sum.Messages))
	}
	body := sum.Messages[1].Content
	for _, want := range []string{"<conversation>\n[user]\nPlease read this: ppp", "bytes left out", "[calls read {\"n\":4000}]",
		"[result of read]\nc1:rrr", "## Left to do"} {
		if !strings.Contains(body, want) {
			t.Errorf("summary request lacks %q", want)
		}
	}
	if strings.Contains(body, "c2") || strings.Count(body, "[assistant]") != 1 {
		t.Errorf("the summary request holds more than the first turn:\n%.2000s", body)
	}

	next := reqs[5].Messages
	checkPairs(t, 5, next)
	if len(next) != 8 || next[0].Role != chat.RoleSystem || next[1].Role != chat.RoleUser ||
		!strings.HasSuffix(next[1].Content, "\n\n## Requests\nRead a long text.") || next[2].ToolCalls[0].ID != "c2" {
		t.Fatalf("request after the summary: %d messages, the second %.200q", len(next), next[min(1, len(next)-1)].Content)
	}
	if !reflect.DeepEqual(next[2:6], reqs[3].Messages[4:8]) {
		t.Errorf("the kept turns changed")
	}
	for _, id := range []string{"c2", "c3", "c4"} {
		if got := toolMessage(t, next, id).Content; got != output(id, 4000) {
			t.Errorf("%s's output was changed", id)
		}
	}
	cs := h.events.compactions()
	if len(cs) != 1 || cs[0].Replaced != 3 || cs[0].Pruned != 0 || cs[0].Summary != "## Requests\nRead a long text." || cs[0].After >= cs[0].Before {
		t.Errorf("%d compactions, the first %+v", len(cs), cs[0].Usage)
	}
	if cs[0].Usage.TotalTokens == 0 || out.Usage.TotalTokens <= cs[0].Usage.TotalTokens {
		t.Errorf("the summary's usage %+v is not in the run's %+v", cs[0].Usage, out.Usage)
	}
	if got := h.worker.Messages(); !slices.EqualFunc(got[:len(next)], next, func(a, b chat.Message) bool { return a.Content == b.Content }) {
		t.Errorf("the Worker's conversation is not what was sent")
	}
	types := h.events.types()
	if i := slices.Index(types, "compaction_started"); i < 0 || types[i+1] != "compaction" {
		t.Errorf("events = %v", types)
	}
}

func TestUnderTheThresholdNothingHappens(t *testing.T) {
	var asked atomic.Int32
	h := compactHarness(t, llmtest.NewScript(readTurn("c1", 100, 0), llmtest.Text("Done."), llmtest.Text("Again.")), 100000, &asked)
	for _, p := range []string{"go", "again"} {
		if _, err := h.worker.Run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the window was asked for %d times, want once", n)
	}
	if len(h.events.compactions()) != 0 {
		t.Error("compacted under the threshold")
	}
	var last agent.UsageReport
	for _, e := range h.events.all {
		if u, ok := e.(agent.UsageReport); ok {
			last = u
		}
	}
	if last.Window != 100000 || last.Context != last.Request.TotalTokens {
		t.Errorf("usage report = %+v", last)
	}
}

func TestTheWindowIsAskedPerModel(t *testing.T) {
	var models []string
	h := newHarness(t, llmtest.NewScript(llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c")), func(c *agent.Config) {
		c.ContextWindow = func(_ context.Context, model string) int {
			models = append(models, model)
			return 1000
		}
	})
	for _, m := range []string{"", "other", "other"} {
		if m != "" {
			h.worker.SetModel(m)
		}
		if _, err := h.worker.Run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(models, []string{"test-model", "other"}) {
		t.Errorf("asked for %v", models)
	}
}

// overflow is the answer OpenAI gives a request too long for the model.
func overflow() llmtest.Response {
	return llmtest.Response{Fault: &llmtest.Fault{
		Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
		Body: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
	}}
}

func TestContextLengthExceededCompactsAndRetriesOnce(t *testing.T) {
	// No window is known: only the server's answer makes the Worker compact.
	h := compactHarness(t, llmtest.NewScript(
		readTurn("c1", 500, 0), readTurn("c2", 500, 0), readTurn("c3", 500, 0), readTurn("c4", 500, 0),
		overflow(),
		llmtest.Text("Read 4 texts."),
		llmtest.Text("Done."),
	), 0, nil)
	out, err := h.worker.Run(t.Context(), "read")
	if err != nil || out.Status != agent.StatusFinished || out.Text != "Done." {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests, want 7", len(reqs))
	}
	if n := len(reqs[4].Messages); n != 10 {
		t.Errorf("the refused request has %d messages, want the whole conversation (10)", n)
	}
	if len(reqs[5].Tools) != 0 || !strings.Contains(reqs[5].Messages[1].Content, "<conversation>") {
		t.Errorf("request 6 is not the summary request")
	}
	retry := reqs[6].Messages
	checkPairs(t, 6, retry)
	if len(retry) != 8 || !strings.HasSuffix(retry[1].Content, "Read 4 texts.") || retry[2].ToolCalls[0].ID != "c2" {
		t.Errorf("the retried request: %d messages, the second %.200q", len(retry), retry[min(1, len(retry)-1)].Content)
	}
	if cs := h.events.compactions(); len(cs) != 1 || cs[0].Trigger != hooks.CompactOverflow || cs[0].Window != 0 {
		t.Errorf("compactions = %+v", cs)
	}
}

func TestContextLengthExceededTwiceEndsTheRun(t *testing.T) {
	h := compactHarness(t, llmtest.NewScript(
		readTurn("c1", 500, 0), readTurn("c2", 500, 0),
		overflow(),
		llmtest.Text("Read."),
		overflow(),
	), 0, nil)
	out, err := h.worker.Run(t.Context(), "read")
	if err == nil || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	const want = "the request is still too long for the model after compacting the conversation: model request failed: 400 Bad Request: This model's maximum context length is 8192 tokens."
	if !strings.HasPrefix(err.Error(), want) || !agent.IsContextOverflow(err) {
		t.Errorf("error = %v", err)
	}
	if n := len(h.srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5: no second retry", n)
	}
}

func TestContextLengthExceededWithNothingToCompact(t *testing.T) {
	h := compactHarness(t, llmtest.NewScript(overflow()), 0, nil)
	_, err := h.worker.Run(t.Context(), "a very long prompt")
	if !agent.IsContextOverflow(err) || strings.Contains(err.Error(), "after compacting") {
		t.Errorf("error = %v", err)
	}
	if w := h.events.warnings(); len(w) != 1 || !strings.Contains(w[0], "nothing to compact") {
		t.Errorf("warnings = %q", w)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// failedSummaryScript is four turns and an answer, the summary request
// answered by fail.
func failedSummaryScript(fail llmtest.Response) llmtest.Script {
	s := llmtest.NewScript(
		readTurn("c1", 4000, 0), readTurn("c2", 4000, 0), readTurn("c3", 4000, 0), readTurn("c4", 4000, 9000),
		llmtest.Text("Done anyway."),
	)
	s.Rules = []llmtest.Rule{{LastContains: "<conversation>", Response: fail}}
	return s
}

// checkUnchanged checks that a failed summary request changed nothing:
// the request after it sent the conversation as it was, with a warning.
func checkUnchanged(t *testing.T, srv *llmtest.Server, ev *events) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 6 || !strings.Contains(reqs[4].Messages[1].Content, "<conversation>") {
		t.Fatalf("%d requests, want 6 with the summary request fifth", len(reqs))
	}
	// Sent as it was: not even the pruning is kept.
	sent, before := reqs[5].Messages, reqs[3].Messages
	if len(sent) != len(before)+2 || !slices.EqualFunc(sent[:len(before)], before, func(a, b chat.Message) bool { return a.Content == b.Content }) {
		t.Errorf("the conversation changed: %d messages after, %d before", len(sent), len(before))
	}
	if got := toolMessage(t, sent, "c1").Content; got != output("c1", 4000) {
		t.Errorf("c1's output was pruned")
	}
	if len(ev.compactions()) != 0 {
		t.Errorf("a compaction was reported")
	}
	w := ev.warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "compaction failed, the conversation is unchanged: summary request: ") ||
		!strings.HasSuffix(w[0], "; the request is sent as it is and may not fit the model's context window") {
		t.Errorf("warnings = %q", w)
	}
}

func TestFailedSummaryLeavesTheConversationAlone(t *testing.T) {
	prompt := strings.Repeat("p", 19000)
	for name, fail := range map[string]llmtest.Response{
		"server error": llmtest.Status(503),
		"cut":          llmtest.Cut(llmtest.Text("## Requests\nRead"), 3),
		"length":       {Content: "## Requests\nRe", FinishReason: "length"},
		"empty":        llmtest.Text(" "),
	} {
		t.Run(name, func(t *testing.T) {
			h := compactHarness(t, failedSummaryScript(fail), 10000, nil)
			out, err := h.worker.Run(t.Context(), prompt)
			if err != nil || out.Status != agent.StatusFinished {
				t.Fatalf("Run = %+v, %v", out, err)
			}
			checkUnchanged(t, h.srv, h.events)
		})
	}
}

// stallTimers is an injected AfterFunc whose timer live when the server
// stalls fires then, as the stream's idle bound would.
type stallTimers struct {
	mu   sync.Mutex
	last *stallTimer
}

type stallTimer struct {
	mu   sync.Mutex
	f    func()
	live bool
}

func (s *stallTimers) AfterFunc(_ time.Duration, f func()) agent.Timer {
	t := &stallTimer{f: f, live: true}
	s.mu.Lock()
	s.last = t
	s.mu.Unlock()
	return t
}

func (t *stallTimer) Reset(time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.live
	t.live = true
	return was
}

func (t *stallTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.live
	t.live = false
	return was
}

// fireAtStall fires the live timer once the server stalls.
func (s *stallTimers) fireAtStall(srv *llmtest.Server) {
	<-srv.Stalled()
	s.mu.Lock()
	t := s.last
	s.mu.Unlock()
	t.mu.Lock()
	live := t.live
	t.mu.Unlock()
	if live {
		t.f()
	}
}

func TestStalledSummaryLeavesTheConversationAlone(t *testing.T) {
	srv := llmtest.NewServer(t, failedSummaryScript(llmtest.Stall(llmtest.Text("## Requests\nRead a long"), 3)))
	var timers stallTimers
	go timers.fireAtStall(srv)
	ev := &events{}
	w := agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1, AfterFunc: timers.AfterFunc}),
		Model:  "test-model", System: "You are a test.", Tools: readTool{}, OnEvent: ev.add,
		ContextWindow: func(context.Context, string) int { return 10000 },
	})
	out, err := w.Run(t.Context(), strings.Repeat("p", 19000))
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	checkUnchanged(t, srv, ev)
	// The bound fires while the client reads the first frames or after:
	// either way the warning says the model went silent.
	if w := ev.warnings(); len(w) == 1 && !strings.Contains(w[0], "model stream stalled") && !strings.Contains(w[0], "no reply from the model") {
		t.Errorf("the warning does not say the stream stalled: %q", w[0])
	}
}

func TestPreCompactHookCancelsOrRewrites(t *testing.T) {
	script := func() llmtest.Script {
		return llmtest.NewScript(
			readTurn("c1", 4000, 0), readTurn("c2", 4000, 0), readTurn("c3", 4000, 0), readTurn("c4", 4000, 9000),
			llmtest.Text("The summary."),
			llmtest.Text("Done."),
		)
	}
	prompt := strings.Repeat("p", 19000)

	t.Run("cancel", func(t *testing.T) {
		h := compactHarness(t, script(), 10000, nil)
		h.hooks.PreCompact(hooktest.Compact("keep-all", func(in *hooks.CompactInput) hooks.CompactResult {
			return hooks.CompactResult{Action: hooks.CompactCancel, Reason: "audit needs every byte"}
		}))
		if _, err := h.worker.Run(t.Context(), prompt); err != nil {
			t.Fatal(err)
		}
		if got := toolMessage(t, h.request(t, 5), "c1").Content; got != output("c1", 4000) {
			t.Error("the cancelled compaction was applied")
		}
		w := h.events.warnings()
		if len(w) != 1 || w[0] != `compaction cancelled by pre_compact hook "keep-all": audit needs every byte; the request is sent as it is and may not fit the model's context window` {
			t.Errorf("warnings = %q", w)
		}
		if !slices.Contains(h.events.types(), "hook_decision") || len(h.events.compactions()) != 0 {
			t.Errorf("events = %v", h.events.types())
		}
	})
	t.Run("rewrite", func(t *testing.T) {
		h := compactHarness(t, script(), 10000, nil)
		var seen hooks.CompactInput
		h.hooks.PreCompact(hooktest.Compact("ticket", func(in *hooks.CompactInput) hooks.CompactResult {
			seen = *in
			in.Summary += "\nTicket: T-42."
			return hooks.CompactResult{}
		}))
		if _, err := h.worker.Run(t.Context(), prompt); err != nil {
			t.Fatal(err)
		}
		if seen.Trigger != hooks.CompactAuto || seen.Summary != "The summary." || seen.Replaced != 3 || seen.Pruned != 0 || seen.Window != 10000 ||
			len(seen.Messages) != 8 || seen.Tokens <= seen.After {
			t.Errorf("the hook saw %v %q %d %d %d %d messages, %d → %d", seen.Trigger, seen.Summary, seen.Replaced, seen.Pruned, seen.Window, len(seen.Messages), seen.Tokens, seen.After)
		}
		if got := h.request(t, 5)[1].Content; !strings.HasSuffix(got, "\n\nThe summary.\nTicket: T-42.") {
			t.Errorf("summary message = %q", got)
		}
		if cs := h.events.compactions(); len(cs) != 1 || cs[0].Summary != "The summary.\nTicket: T-42." {
			t.Errorf("compactions = %+v", cs)
		}
	})
}

func TestCompactOnRequest(t *testing.T) {
	h := compactHarness(t, llmtest.NewScript(
		readTurn("c1", 50, 0), llmtest.Text("Read it."),
		llmtest.Text("The user had a text read."),
	), 0, nil)
	if _, err := h.worker.Compact(t.Context(), ""); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Fatalf("Compact of an empty conversation = %v", err)
	}
	if _, err := h.worker.Run(t.Context(), "read"); err != nil {
		t.Fatal(err)
	}
	c, err := h.worker.Compact(t.Context(), "  the words read ")
	if err != nil {
		t.Fatal(err)
	}
	// Two turns: the latest stays, the first is summarized.
	if c.Trigger != hooks.CompactManual || c.Focus != "the words read" || c.Replaced != 3 || c.Summary != "The user had a text read." {
		t.Errorf("Compact = %+v", c)
	}
	sum := h.request(t, 2)[1].Content
	if !strings.HasSuffix(sum, "\n\nThe user asks the summary to keep in particular: the words read") {
		t.Errorf("summary request ends %q", sum[max(len(sum)-200, 0):])
	}
	msgs := h.worker.Messages()
	if len(msgs) != 3 || msgs[2].Content != "Read it." || !strings.HasSuffix(msgs[1].Content, "The user had a text read.") {
		t.Errorf("conversation = %.300v", msgs)
	}
	if _, err := h.worker.Compact(t.Context(), ""); !errors.Is(err, agent.ErrNothingToCompact) {
		t.Errorf("a second Compact = %v", err)
	}
}

func TestCompactRefusedWhilePaused(t *testing.T) {
	h := compactHarness(t, llmtest.NewScript(readTurn("c1", 5, 0)), 0, nil)
	h.hooks.PreToolCall(hooktest.PreTool("ask", func(*hooks.PreToolInput) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolPause}
	}))
	if out, err := h.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusPaused {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if _, err := h.worker.Compact(t.Context(), ""); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("Compact while paused = %v", err)
	}
}

func TestIsContextOverflow(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&agent.APIError{Status: 400, Code: "context_length_exceeded"}, true},
		{&agent.APIError{Status: 400, Type: "exceed_context_size_error", Message: "x"}, true},
		{&agent.APIError{Status: 400, Message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion)."}, true}, // vLLM
		{&agent.APIError{Status: 400, Message: "request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it"}, true},                                                 // llama.cpp
		{&agent.APIError{Status: 500, Message: "Context size has been exceeded."}, true},
		{&agent.APIError{Status: 500, Message: "the input length exceeds the context length"}, true}, // Ollama
		{fmt.Errorf("model stream error: %s", "prompt is too long: 210000 tokens > 200000 maximum"), true},
		{&agent.APIError{Status: 400, Message: "Invalid 'messages[2].tool_calls'"}, false},
		{&agent.APIError{Status: 429, Code: "rate_limit_exceeded"}, false},
		{errors.New("model stream cut after 12 bytes of reply"), false},
		{nil, false},
	} {
		if got := agent.IsContextOverflow(tc.err); got != tc.want {
			t.Errorf("IsContextOverflow(%v) = %v", tc.err, got)
		}
	}
}

// TestTheFirstRequestDoesNotWaitForTheWindow: a new conversation has
// nothing to compact, so its first request goes out while the window is
// still being looked up (a look-up that only answers once the test has
// seen that request); the usage report after it carries the answer, and
// the run ends only after the look-up.
func TestTheFirstRequestDoesNotWaitForTheWindow(t *testing.T) {
	answer := make(chan struct{})
	var looked atomic.Bool
	h := newHarness(t, llmtest.NewScript(llmtest.Text("Hi.")), func(c *agent.Config) {
		c.ContextWindow = func(ctx context.Context, _ string) int {
			select {
			case <-answer:
			case <-ctx.Done():
				return 0
			}
			looked.Store(true)
			return 64000
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := h.worker.Run(t.Context(), "hello")
		done <- err
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := h.srv.WaitRequests(ctx, 1); err != nil {
		t.Fatalf("the first request waited for the context window: %v", err)
	}
	close(answer)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !looked.Load() {
		t.Error("the run ended before the window's look-up")
	}
	var reports []int64
	for _, e := range h.events.all {
		if u, ok := e.(agent.UsageReport); ok {
			reports = append(reports, u.Window)
		}
	}
	if !slices.Equal(reports, []int64{64000}) {
		t.Errorf("usage reports' windows = %v, want [64000]", reports)
	}
}

// TestAContinuedConversationWaitsForTheWindow: a conversation with turns
// to compact (here one continued from a session) asks for the window
// before its first request, and is compacted before it is sent.
func TestAContinuedConversationWaitsForTheWindow(t *testing.T) {
	history := []chat.Message{{Role: chat.RoleSystem, Content: "You are a test."}, chat.UserMessage("read")}
	for i := range 5 {
		id := fmt.Sprintf("c%d", i)
		history = append(history,
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Name: "read", Arguments: `{"n":8000}`}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: output(id, 8000)})
	}
	history = append(history, chat.Message{Role: chat.RoleAssistant, Content: "Read them."})
	var asked atomic.Int32
	h := newHarness(t, llmtest.NewScript(llmtest.Text("Done.")), func(c *agent.Config) {
		c.Tools = readTool{}
		c.History = history
		withWindow(10000, &asked)(c)
	})
	if _, err := h.worker.Run(t.Context(), "and now?"); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the window was asked for %d times, want once", n)
	}
	if stub := toolMessage(t, h.request(t, 0), "c0").Content; !strings.HasPrefix(stub, "[tool output pruned") {
		t.Errorf("the first request was not compacted: c0's output %.80q", stub)
	}
}
