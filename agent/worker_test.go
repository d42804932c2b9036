package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// testTools is a small real toolbox: "upper" upper-cases its text, "wait"
// blocks until its channel is closed or ctx ends, "fail" returns a harness
// error. Every call is counted.
type testTools struct {
	mu    sync.Mutex
	calls []chat.ToolCall
	// started receives the ID of each call as it starts (buffered).
	started chan string
	release chan struct{}
}

func newTestTools() *testTools {
	return &testTools{started: make(chan string, 16), release: make(chan struct{})}
}

func (tt *testTools) Specs() []chat.ToolSpec {
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	return []chat.ToolSpec{
		{Name: "upper", Description: "Upper-case text.", Parameters: obj},
		{Name: "wait", Description: "Wait.", Parameters: obj},
		{Name: "fail", Description: "Fail.", Parameters: obj},
	}
}

func (tt *testTools) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	tt.mu.Lock()
	tt.calls = append(tt.calls, call)
	tt.mu.Unlock()
	tt.started <- call.ID
	var args struct{ Text string }
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return chat.ToolResult{Status: chat.StatusError, Content: "bad args: " + err.Error()}, nil
	}
	switch call.Name {
	case "upper":
		return chat.ToolResult{Status: chat.StatusOK, Content: strings.ToUpper(args.Text)}, nil
	case "wait":
		select {
		case <-tt.release:
			return chat.ToolResult{Status: chat.StatusOK, Content: "released " + args.Text}, nil
		case <-ctx.Done():
			return chat.ToolResult{Status: chat.StatusError, Content: "cancelled"}, nil
		}
	default:
		return chat.ToolResult{}, errors.New("disk on fire")
	}
}

func (tt *testTools) executed() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var ids []string
	for _, c := range tt.calls {
		ids = append(ids, c.ID)
	}
	return ids
}

// events records the Worker's events.
type events struct {
	mu  sync.Mutex
	all []agent.Event
}

func (e *events) add(ev agent.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

// types lists the event types, text deltas folded into one "text".
func (e *events) types() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.all {
		t := ev.EventType()
		if t == "text_delta" && len(out) > 0 && out[len(out)-1] == "text" {
			continue
		}
		if t == "text_delta" {
			t = "text"
		}
		out = append(out, t)
	}
	return out
}

func (e *events) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, ev := range e.all {
		if d, ok := ev.(agent.TextDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

type harness struct {
	srv    *llmtest.Server
	worker *agent.Worker
	tools  *testTools
	hooks  *hooks.Registry
	events *events
}

func newHarness(t *testing.T, script llmtest.Script, tweak func(*agent.Config)) *harness {
	t.Helper()
	h := &harness{srv: llmtest.NewServer(t, script), tools: newTestTools(), hooks: hooks.NewRegistry(), events: &events{}}
	cfg := agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: h.srv.URL(), APIKey: "test-key", MaxRetries: -1}),
		Model:  "test-model",
		System: "You are a test.",
		Tools:  h.tools,
		Hooks:  h.hooks,
		OnEvent: func(e agent.Event) {
			h.events.add(e)
		},
	}
	if tweak != nil {
		tweak(&cfg)
	}
	h.worker = agent.New(cfg)
	return h
}

// lastRequestMessages returns the messages of the server's n-th request.
func (h *harness) request(t *testing.T, n int) []chat.Message {
	t.Helper()
	reqs := h.srv.Requests()
	if len(reqs) <= n {
		t.Fatalf("server got %d requests, want more than %d", len(reqs), n)
	}
	return reqs[n].Messages
}

func toolMessage(t *testing.T, msgs []chat.Message, callID string) chat.Message {
	t.Helper()
	for _, m := range msgs {
		if m.Role == chat.RoleTool && m.ToolCallID == callID {
			return m
		}
	}
	t.Fatalf("no tool message for %s in %+v", callID, msgs)
	return chat.Message{}
}

func TestPlainAnswerStreamsAndFinishes(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("Hello there, how can I help you today?")), nil)
	out, err := h.worker.Run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusFinished || out.Text != "Hello there, how can I help you today?" {
		t.Fatalf("outcome = %+v", out)
	}
	if got := h.events.text(); got != out.Text {
		t.Errorf("streamed text %q != final %q", got, out.Text)
	}
	want := []string{"text", "usage", "assistant_message", "turn_finished"}
	if got := h.events.types(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if out.Usage.TotalTokens == 0 {
		t.Errorf("usage not reported: %+v", out.Usage)
	}
	msgs := h.request(t, 0)
	if len(msgs) != 2 || msgs[0].Role != chat.RoleSystem || msgs[1].Content != "hi" {
		t.Errorf("request messages = %+v", msgs)
	}
}

func TestToolResultReachesModel(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"shout this"}`)),
		llmtest.Text("Done."),
	), nil)
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if m := toolMessage(t, h.request(t, 1), "call_1"); m.Content != "SHOUT THIS" {
		t.Errorf("tool result = %q", m.Content)
	}
	want := []string{"usage", "assistant_message", "tool_call_started", "tool_call_finished", "text", "usage", "assistant_message", "turn_finished"}
	if got := h.events.types(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
}

func TestToolCallsRunInParallelResultsInOrder(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{
			llmtest.Call("call_a", "wait", `{"text":"a"}`),
			llmtest.Call("call_b", "upper", `{"text":"b"}`),
		}, Interleave: true},
		llmtest.Text("ok"),
	), nil)
	// "wait" only returns once "upper" has run: if the calls ran one after
	// the other the run would never finish.
	go func() {
		seen := map[string]bool{}
		for id := range h.tools.started {
			seen[id] = true
			if seen["call_a"] && seen["call_b"] {
				close(h.tools.release)
				return
			}
		}
	}()
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	var order []string
	for _, m := range h.request(t, 1) {
		if m.Role == chat.RoleTool {
			order = append(order, m.ToolCallID+"="+m.Content)
		}
	}
	if want := []string{"call_a=released a", "call_b=B"}; !slices.Equal(order, want) {
		t.Errorf("tool messages = %v, want %v", order, want)
	}
}

func TestMalformedArgumentsAndUnknownToolAreErrorResults(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(
			llmtest.Call("call_bad", "upper", `{"text": "unterminated`),
			llmtest.Call("call_unknown", "launch_rockets", `{}`),
		),
		llmtest.Text("Sorry."),
	), nil)
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if ran := h.tools.executed(); len(ran) != 0 {
		t.Errorf("tools ran: %v", ran)
	}
	msgs := h.request(t, 1)
	bad := toolMessage(t, msgs, "call_bad").Content
	if !strings.Contains(bad, "not a valid JSON object") || !strings.Contains(bad, `{"text": "unterminated`) {
		t.Errorf("malformed-args result = %q", bad)
	}
	// What went wrong is in the result; the call itself goes back as an
	// empty object, which every server takes (before, the broken text
	// went back, and strict servers refused the whole conversation).
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if want := map[string]string{"call_bad": "{}", "call_unknown": "{}"}[tc.ID]; tc.Arguments != want {
				t.Errorf("call %s sent back with arguments %q, want %q", tc.ID, tc.Arguments, want)
			}
		}
	}
	unknown := toolMessage(t, msgs, "call_unknown").Content
	if !strings.Contains(unknown, `"launch_rockets"`) || !strings.Contains(unknown, "fail, upper, wait") {
		t.Errorf("unknown-tool result = %q", unknown)
	}
}

func TestHarnessErrorBecomesErrorResult(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "fail", `{}`)),
		llmtest.Text("ok"),
	), nil)
	if _, err := h.worker.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if m := toolMessage(t, h.request(t, 1), "call_1"); !strings.Contains(m.Content, "disk on fire") {
		t.Errorf("result = %q", m.Content)
	}
	if !slices.Contains(h.events.types(), "warning") {
		t.Errorf("no warning event: %v", h.events.types())
	}
}

func pauseAll(name string) hooks.Hook[hooks.PreToolInput, hooks.PreToolResult] {
	return hooktest.PreTool(name, func(in *hooks.PreToolInput) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolPause, Reason: in.Call.Name + " needs approval"}
	})
}

func TestPauseApproveContinuesChainAfterPausingHook(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`), llmtest.Call("call_2", "upper", `{"text":"y"}`)),
		llmtest.Text("ok"),
	), nil)
	var before, after int
	h.hooks.PreToolCall(hooktest.PreTool("before", func(*hooks.PreToolInput) hooks.PreToolResult { before++; return hooks.PreToolResult{} }))
	h.hooks.PreToolCall(pauseAll("gate"))
	h.hooks.PreToolCall(hooktest.PreTool("after", func(in *hooks.PreToolInput) hooks.PreToolResult {
		after++
		in.Call.Arguments = `{"text":"rewritten"}`
		return hooks.PreToolResult{}
	}))

	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusPaused {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if len(out.Pending) != 2 || out.Pending[0].Hook != "gate" || out.Pending[1].Reason != "upper needs approval" {
		t.Fatalf("pending = %+v", out.Pending)
	}
	if before != 2 || after != 0 || len(h.tools.executed()) != 0 {
		t.Fatalf("before=%d after=%d executed=%v", before, after, h.tools.executed())
	}
	if _, err := h.worker.Run(context.Background(), "again"); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("Run while paused: %v, want ErrBusy", err)
	}
	if _, err := h.worker.Resume(context.Background(), []agent.Decision{{CallID: "call_1", Verdict: agent.Approve}}); err == nil {
		t.Fatal("Resume with a missing decision succeeded")
	}

	out, err = h.worker.Resume(context.Background(), []agent.Decision{
		{CallID: "call_1", Verdict: agent.Approve},
		{CallID: "call_2", Verdict: agent.Deny, Reason: "not that one"},
	})
	// "after" rewrote the approved call: the user is asked again, with
	// the arguments that will run.
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Call.Arguments != `{"text":"rewritten"}` {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	if before != 3 || after != 1 || len(h.tools.executed()) != 0 {
		t.Fatalf("before=%d after=%d executed=%v", before, after, h.tools.executed())
	}
	out, err = h.worker.Resume(context.Background(), []agent.Decision{{CallID: "call_1", Verdict: agent.Approve}})
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	if before != 3 || after != 2 {
		t.Errorf("chain resumed wrongly: before=%d after=%d", before, after)
	}
	msgs := h.request(t, 1)
	if m := toolMessage(t, msgs, "call_1"); m.Content != "REWRITTEN" {
		t.Errorf("approved call result = %q", m.Content)
	}
	if m := toolMessage(t, msgs, "call_2"); !strings.Contains(m.Content, "denied") || !strings.Contains(m.Content, "not that one") {
		t.Errorf("denied call result = %q", m.Content)
	}
	if _, err := h.worker.Resume(context.Background(), nil); !errors.Is(err, agent.ErrNotPaused) {
		t.Errorf("Resume when idle: %v", err)
	}
}

func TestApproveAlwaysIsReported(t *testing.T) {
	var remembered []string
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`)),
		llmtest.Text("ok"),
	), func(c *agent.Config) {
		c.OnApproveAlways = func(call chat.ToolCall) { remembered = append(remembered, call.Name) }
	})
	h.hooks.PreToolCall(pauseAll("gate"))
	if out, _ := h.worker.Run(context.Background(), "go"); out.Status != agent.StatusPaused {
		t.Fatalf("not paused: %+v", out)
	}
	out, err := h.worker.Resume(context.Background(), []agent.Decision{{CallID: "call_1", Verdict: agent.ApproveAlways}})
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	if !slices.Equal(remembered, []string{"upper"}) || len(h.tools.executed()) != 1 {
		t.Errorf("remembered=%v executed=%v", remembered, h.tools.executed())
	}
}

func TestSkipTellsModelWhoAndWhy(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`)),
		llmtest.Text("ok"),
	), nil)
	h.hooks.PreToolCall(hooktest.PreTool("plan-mode", func(*hooks.PreToolInput) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "read-only session"}
	}))
	if _, err := h.worker.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	m := toolMessage(t, h.request(t, 1), "call_1").Content
	if !strings.Contains(m, `"plan-mode"`) || !strings.Contains(m, "read-only session") || len(h.tools.executed()) != 0 {
		t.Errorf("skip result = %q, executed %v", m, h.tools.executed())
	}
}

// A hook that responds answers the call without running the tool; the
// answer goes through post_tool_call like a tool's result (redaction sees
// it) and reaches the model.
func TestRespondAnswersWithoutRunning(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`), llmtest.Call("call_2", "upper", `{"text":"y"}`)),
		llmtest.Text("ok"),
	), nil)
	h.hooks.PreToolCall(hooktest.PreTool("cache", func(in *hooks.PreToolInput) hooks.PreToolResult {
		if in.Call.ID != "call_1" {
			return hooks.PreToolResult{}
		}
		return hooks.PreToolResult{Action: hooks.ToolRespond, Reason: "cached", Response: chat.ToolResult{CallID: "bogus", Content: "CACHED SECRET"}}
	}))
	var post []string
	h.hooks.PostToolCall(hooktest.Post("mask", func(in *hooks.PostToolInput) hooks.PostToolResult {
		post = append(post, in.Call.ID)
		in.Result.Content = strings.ReplaceAll(in.Result.Content, "SECRET", "******")
		return hooks.PostToolResult{}
	}))
	if _, err := h.worker.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.tools.executed(); !slices.Equal(got, []string{"call_2"}) {
		t.Errorf("executed %v, want only call_2", got)
	}
	if m := toolMessage(t, h.request(t, 1), "call_1"); m.Content != "CACHED ******" {
		t.Errorf("responded result = %q", m.Content)
	}
	if !slices.Equal(post, []string{"call_1", "call_2"}) {
		t.Errorf("post_tool_call ran on %v", post)
	}
	for _, e := range h.events.all {
		switch e := e.(type) {
		case agent.ToolCallStarted:
			if e.Call.ID == "call_1" {
				t.Error("the responded call was reported as started")
			}
		case agent.ToolCallFinished:
			if e.Call.ID == "call_1" && (e.Result.Status != chat.StatusOK || e.Result.CallID != "call_1") {
				t.Errorf("finished = %+v", e.Result)
			}
		}
	}
}

func TestAbortFromPreToolCallRunsOnAbortAndKeepsConversationValid(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`), llmtest.Call("call_2", "upper", `{"text":"y"}`)),
		llmtest.Text("next run"),
	), nil)
	h.hooks.PreToolCall(hooktest.PreTool("guard", func(in *hooks.PreToolInput) hooks.PreToolResult {
		if in.Call.ID == "call_2" {
			return hooks.PreToolResult{Action: hooks.ToolAbort, Reason: "forbidden"}
		}
		return hooks.PreToolResult{}
	}))
	var aborted []string
	h.hooks.OnAbort(hooktest.Abort("cleanup", func(in *hooks.AbortInput) { aborted = append(aborted, in.Reason) }))

	out, err := h.worker.Run(context.Background(), "go")
	var he *agent.HookError
	if !errors.As(err, &he) || he.Hook != "guard" || he.Reason != "forbidden" || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if len(aborted) != 1 || !strings.Contains(aborted[0], "forbidden") {
		t.Errorf("on_abort saw %v", aborted)
	}
	if len(h.tools.executed()) != 0 {
		t.Errorf("tools ran: %v", h.tools.executed())
	}
	// The next run sends a conversation that answers every call.
	if _, err := h.worker.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 1)
	toolMessage(t, msgs, "call_1")
	toolMessage(t, msgs, "call_2")
}

func TestPostToolCallRewritesAndAborts(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"secret"}`)),
		llmtest.Text("ok"),
		llmtest.ToolCalls(llmtest.Call("call_2", "upper", `{"text":"boom"}`)),
	), nil)
	h.hooks.PostToolCall(hooktest.Post("mask", func(in *hooks.PostToolInput) hooks.PostToolResult {
		in.Result.Content = strings.ReplaceAll(in.Result.Content, "SECRET", "******")
		if in.Result.Content == "BOOM" {
			return hooks.PostToolResult{Action: hooks.PostAbort, Reason: "explosive output"}
		}
		return hooks.PostToolResult{}
	}))
	if _, err := h.worker.Run(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if m := toolMessage(t, h.request(t, 1), "call_1"); m.Content != "******" {
		t.Errorf("masked result = %q", m.Content)
	}
	out, err := h.worker.Run(context.Background(), "second")
	var he *agent.HookError
	if !errors.As(err, &he) || he.Event != hooks.PostToolCall || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
}

func TestContinueWithMessagesRetriesThenFinishes(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.Text("first try"),
		llmtest.Text("second try"),
	), nil)
	h.hooks.OnTurnEnd(hooktest.TurnEnd("checker", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
		if in.Final.Content == "first try" {
			return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{chat.UserMessage("main.go:3:1: fix this")}}
		}
		return hooks.TurnEndResult{}
	}))
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusFinished || out.Text != "second try" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	msgs := h.request(t, 1)
	if last := msgs[len(msgs)-1]; last.Role != chat.RoleUser || last.Content != "main.go:3:1: fix this" {
		t.Errorf("retry message = %+v", last)
	}
	if !slices.Contains(h.events.types(), "retry_pushed") {
		t.Errorf("no retry_pushed event: %v", h.events.types())
	}
}

func TestRetryBudgetCaps(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Repeat(llmtest.Text("still wrong"))), func(c *agent.Config) { c.RetryBudget = 2 })
	round := 0
	h.hooks.OnTurnEnd(hooktest.TurnEnd("checker", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
		round++
		return hooks.TurnEndResult{
			Action:   hooks.TurnContinueWithMessages,
			Messages: []chat.Message{chat.UserMessage(fmt.Sprintf("problem, round %d", round))},
			Reason:   "main.go:1: still broken",
		}
	}))
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusCapped {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("requests = %d, want 3 (first try + 2 retries)", n)
	}
	if !strings.Contains(out.Reason, "still broken") {
		t.Errorf("reason = %q", out.Reason)
	}
}

func TestSameFeedbackTwiceCapsEarly(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Repeat(llmtest.Text("same"))), nil)
	h.hooks.OnTurnEnd(hooktest.TurnEnd("checker", func(*hooks.TurnEndInput) hooks.TurnEndResult {
		return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{chat.UserMessage("identical")}}
	}))
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusCapped {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

func TestRequestCapEndsARunThatNeverStops(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Repeat(llmtest.ToolCalls(llmtest.Call("call_x", "upper", `{"text":"again"}`)))),
		func(c *agent.Config) { c.MaxRequests = 4 })
	out, err := h.worker.Run(context.Background(), "loop forever")
	if err != nil || out.Status != agent.StatusCapped || !strings.Contains(out.Reason, "4 model requests") {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if n := len(h.srv.Requests()); n != 4 {
		t.Errorf("requests = %d, want 4", n)
	}
}

func TestStreamCutRunsNoToolAndAddsNoPartialMessage(t *testing.T) {
	h := newHarness(t, llmtest.LoadScript(t, "../testdata/llm/cut_mid_tool_call.json"), nil)
	var aborts int
	h.hooks.OnAbort(hooktest.Abort("count", func(*hooks.AbortInput) { aborts++ }))
	out, err := h.worker.Run(context.Background(), "go")
	if !errors.Is(err, agent.ErrStreamCut) || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if len(h.tools.executed()) != 0 || aborts != 1 {
		t.Errorf("executed=%v aborts=%d", h.tools.executed(), aborts)
	}
	for _, m := range h.worker.Messages() {
		if m.Role == chat.RoleAssistant {
			t.Errorf("partial assistant message entered the conversation: %+v", m)
		}
	}
}

func TestCancelMidStreamRunsOnAbort(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Stall(llmtest.Text("a long answer that never ends"), 3)), nil)
	aborted := make(chan error, 1)
	h.hooks.OnAbort(hooktest.Abort("note", func(in *hooks.AbortInput) { aborted <- in.Err }))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-h.srv.Stalled()
		cancel()
	}()
	out, err := h.worker.Run(ctx, "go")
	if !errors.Is(err, context.Canceled) || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if got := <-aborted; !errors.Is(got, context.Canceled) {
		t.Errorf("on_abort got %v", got)
	}
}

func TestCancelStopsRunningTools(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.ToolCalls(llmtest.Call("call_1", "wait", `{"text":"forever"}`))), nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-h.tools.started
		cancel()
	}()
	out, err := h.worker.Run(ctx, "go")
	if !errors.Is(err, context.Canceled) || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	msgs := h.worker.Messages()
	if last := msgs[len(msgs)-1]; last.Role != chat.RoleTool || last.ToolCallID != "call_1" {
		t.Errorf("the cancelled call has no result: %+v", last)
	}
}

func TestPromptAndRequestHooks(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("ok")), nil)
	h.hooks.OnPromptSubmit(hooktest.Prompt("expand", func(in *hooks.PromptInput) hooks.PromptResult {
		in.Message.Content += " (be brief)"
		return hooks.PromptResult{}
	}))
	h.hooks.PreLLMRequest(hooktest.Request("inject", func(in *hooks.LLMRequestInput) hooks.RequestResult {
		in.Messages = append(in.Messages, chat.Message{Role: chat.RoleSystem, Content: "request 1 note"})
		return hooks.RequestResult{}
	}))
	if _, err := h.worker.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 0)
	if msgs[1].Content != "hi (be brief)" || msgs[2].Content != "request 1 note" {
		t.Errorf("request = %+v", msgs)
	}
	// The note was for the request only; the conversation keeps the prompt.
	if conv := h.worker.Messages(); len(conv) != 3 || conv[2].Role != chat.RoleAssistant {
		t.Errorf("conversation = %+v", conv)
	}
}

func TestPromptCancelSendsNothing(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("never requested")), nil)
	h.hooks.OnPromptSubmit(hooktest.Prompt("policy", func(*hooks.PromptInput) hooks.PromptResult {
		return hooks.PromptResult{Action: hooks.PromptCancel, Reason: "no secrets in prompts"}
	}))
	out, err := h.worker.Run(context.Background(), "my password is hunter2")
	var he *agent.HookError
	if !errors.As(err, &he) || he.Event != hooks.OnPromptSubmit || out.Status != agent.StatusAborted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("requests = %d", n)
	}
}

func TestTurnEndPauseResumesAfterPausingHook(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("first"), llmtest.Text("second")), nil)
	h.hooks.OnTurnEnd(hooktest.TurnEnd("ask", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
		if in.Final.Content == "first" {
			return hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "review needed"}
		}
		return hooks.TurnEndResult{}
	}))
	var later int
	h.hooks.OnTurnEnd(hooktest.TurnEnd("later", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
		later++
		if later == 1 {
			return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{chat.UserMessage("one more")}}
		}
		return hooks.TurnEndResult{}
	}))
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusPaused || out.Reason != "review needed" || len(out.Pending) != 0 {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	out, err = h.worker.Resume(context.Background(), nil)
	if err != nil || out.Status != agent.StatusFinished || out.Text != "second" || later != 2 {
		t.Fatalf("Resume = %+v, %v (later=%d)", out, err, later)
	}
}

func TestToolDurationComesFromTheInjectedClock(t *testing.T) {
	clock := time.Unix(0, 0)
	var mu sync.Mutex
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`)),
		llmtest.Text("ok"),
	), func(c *agent.Config) {
		c.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Second)
			return clock
		}
	})
	if _, err := h.worker.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var finished []agent.ToolCallFinished
	for _, e := range h.events.all {
		if f, ok := e.(agent.ToolCallFinished); ok {
			finished = append(finished, f)
		}
	}
	// The clock ticks one second per reading: one at the start of the
	// call, one at its end.
	if len(finished) != 1 || finished[0].Duration != time.Second {
		t.Errorf("tool_call_finished events = %+v, want one lasting 1s", finished)
	}
}

// A pause answered at once (a piped run's --yes, or a denial nobody can
// lift) is not a pause: no paused event and no paused outcome, a decision
// per call, and the run goes on. An answer function that declines lets
// the run pause as before.
func TestAnswerPausesWithDecidesWithoutPausing(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`), llmtest.Call("call_2", "upper", `{"text":"y"}`)),
		llmtest.ToolCalls(llmtest.Call("call_3", "upper", `{"text":"z"}`)),
		llmtest.Text("ok"),
	), nil)
	h.hooks.PreToolCall(pauseAll("gate"))
	var asked [][]string
	h.worker.AnswerPausesWith(func(pending []agent.PendingCall) ([]agent.Decision, bool) {
		var ids []string
		var ds []agent.Decision
		for _, p := range pending {
			ids = append(ids, p.Call.ID)
			v := agent.Approve
			if p.Call.ID == "call_2" {
				v = agent.Deny
			}
			ds = append(ds, agent.Decision{CallID: p.Call.ID, Verdict: v, By: "--yes"})
		}
		asked = append(asked, ids)
		return ds, len(asked) < 2 // the second batch is left to a person
	})
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Call.ID != "call_3" {
		t.Fatalf("Run = %+v, %v; want paused on call_3 alone", out, err)
	}
	if !slices.Equal(h.tools.executed(), []string{"call_1"}) {
		t.Errorf("executed %v, want the approved call alone", h.tools.executed())
	}
	types := h.events.types()
	if n := strings.Count(strings.Join(types, " "), "paused"); n != 1 {
		t.Errorf("%d paused events, want the one of the second batch: %v", n, types)
	}
	if n := strings.Count(strings.Join(types, " "), "tool_call_decided"); n != 2 {
		t.Errorf("%d decisions, want one per call of the first batch: %v", n, types)
	}
	if len(asked) != 2 || !slices.Equal(asked[0], []string{"call_1", "call_2"}) {
		t.Errorf("asked %v", asked)
	}
}
