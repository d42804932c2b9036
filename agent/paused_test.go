package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// added collects what OnMessage is told.
type added struct {
	mu   sync.Mutex
	msgs []agent.AddedMessage
}

func (a *added) add(m agent.AddedMessage) {
	a.mu.Lock()
	a.msgs = append(a.msgs, m)
	a.mu.Unlock()
}

func (a *added) messages() []chat.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]chat.Message, len(a.msgs))
	for i, m := range a.msgs {
		out[i] = m.Message
	}
	return out
}

func sameMessages(a, b []chat.Message) bool {
	return slices.EqualFunc(a, b, func(x, y chat.Message) bool { return reflect.DeepEqual(x, y) })
}

// OnMessage is told the conversation exactly as the next request carries
// it: the system prompt, the prompt, replies, results, turn-end feedback —
// and not what a pre_llm_request hook added for one request.
func TestOnMessageIsTheConversation(t *testing.T) {
	var got added
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`)),
		llmtest.Text("first try"),
		llmtest.Text("done"),
	), func(c *agent.Config) { c.OnMessage = got.add })
	h.hooks.PreLLMRequest(hooktest.Request("once", func(in *hooks.LLMRequestInput) hooks.RequestResult {
		if in.Request == 1 {
			in.Messages = append(in.Messages, chat.UserMessage("for this request only"))
		}
		return hooks.RequestResult{}
	}))
	h.hooks.OnTurnEnd(hooktest.TurnEnd("checker", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
		if in.Final.Content == "first try" {
			return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{chat.UserMessage("fix this")}}
		}
		return hooks.TurnEndResult{}
	}))
	if out, err := h.worker.Run(context.Background(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	msgs := got.messages()
	if !sameMessages(msgs, h.worker.Messages()) {
		t.Fatalf("told %+v\nconversation %+v", msgs, h.worker.Messages())
	}
	for n := 1; n < 3; n++ {
		req := h.request(t, n)
		if !sameMessages(req, msgs[:len(req)]) {
			t.Errorf("request %d = %+v\nwant the messages told so far %+v", n, req, msgs[:len(req)])
		}
	}
	if req := h.request(t, 0); req[len(req)-1].Content != "for this request only" || slices.ContainsFunc(msgs, func(m chat.Message) bool { return m.Content == "for this request only" }) {
		t.Errorf("the pre_llm_request change: request 0 = %+v, told %+v", req, msgs)
	}
	var roles []string
	for _, m := range got.msgs {
		r := string(m.Message.Role)
		if m.Prompt {
			r += "(prompt)"
		}
		if m.Status != "" {
			r += "(" + string(m.Status) + ")"
		}
		roles = append(roles, r)
	}
	want := []string{"system", "user(prompt)", "assistant", "tool(ok)", "assistant", "user", "assistant"}
	if !slices.Equal(roles, want) {
		t.Errorf("told %v, want %v", roles, want)
	}
}

// A Worker started on the recorded conversation sends exactly the request
// the first Worker would have sent for the next prompt.
func TestHistoryContinuesTheConversationExactly(t *testing.T) {
	script := llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`)),
		llmtest.Text("one done"),
		llmtest.Text("two done"),
	)
	one := newHarness(t, script, nil)
	for _, p := range []string{"one", "two"} {
		if _, err := one.worker.Run(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}

	var rec added
	first := newHarness(t, script, func(c *agent.Config) { c.OnMessage = rec.add })
	if _, err := first.worker.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{
		Client:  agent.NewOpenAI(agent.OpenAIConfig{BaseURL: first.srv.URL(), APIKey: "test-key", MaxRetries: -1}),
		Model:   "test-model",
		System:  "not used: History has the system prompt",
		History: rec.messages(),
		Tools:   first.tools,
	}
	if _, err := agent.New(cfg).Run(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	a, b := one.srv.Requests(), first.srv.Requests()
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("requests: %d and %d", len(a), len(b))
	}
	if !bytes.Equal(a[2].Raw, b[2].Raw) {
		t.Errorf("the resumed request differs:\n%s\nwant\n%s", b[2].Raw, a[2].Raw)
	}
}

// pausedHooks registers, in order: "skipper" skips calls whose text is
// "skip", "gate" pauses calls whose text is "ask", "after" counts the
// calls it sees.
func pausedHooks(r *hooks.Registry, after *[]string) {
	r.PreToolCall(hooktest.PreTool("skipper", func(in *hooks.PreToolInput) hooks.PreToolResult {
		if strings.Contains(in.Call.Arguments, `"skip"`) {
			return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "not needed"}
		}
		return hooks.PreToolResult{}
	}))
	r.PreToolCall(hooktest.PreTool("gate", func(in *hooks.PreToolInput) hooks.PreToolResult {
		if strings.Contains(in.Call.Arguments, `"ask"`) {
			return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "asks first"}
		}
		return hooks.PreToolResult{}
	}))
	r.PreToolCall(hooktest.PreTool("after", func(in *hooks.PreToolInput) hooks.PreToolResult {
		*after = append(*after, in.Call.ID)
		return hooks.PreToolResult{}
	}))
}

// pauseInOneWorker runs a batch of three calls — one skipped, one
// paused, one let through — until it pauses, and returns the recorded
// conversation and the paused state as JSON.
func pauseInOneWorker(t *testing.T, srv *llmtest.Server) ([]chat.Message, []byte) {
	t.Helper()
	var rec added
	var state *agent.PausedRun
	var after []string
	reg := hooks.NewRegistry()
	pausedHooks(reg, &after)
	w := agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", System: "sys", Tools: newTestTools(), Hooks: reg, OnMessage: rec.add,
		OnEvent: func(e agent.Event) {
			if p, ok := e.(agent.PausedEvent); ok {
				state = p.State
			}
		},
	})
	out, err := w.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Call.ID != "c_ask" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if !slices.Equal(after, []string{"c_free"}) || state == nil {
		t.Fatalf("after saw %v; state %v", after, state)
	}
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	return rec.messages(), b
}

var batchScript = llmtest.NewScript(
	llmtest.ToolCalls(
		llmtest.Call("c_skip", "upper", `{"text":"skip"}`),
		llmtest.Call("c_ask", "upper", `{"text":"ask"}`),
		llmtest.Call("c_free", "upper", `{"text":"free"}`),
	),
	llmtest.Text("all done"),
)

// A run paused in one Worker goes on in another (another process): the
// chain of the paused call goes on after the hook that paused it — found
// by name although another hook now comes first — and the other calls
// keep their state: the skipped one is not asked again, the approved one
// runs with the batch.
func TestRestoreGoesOnWhereTheRunStopped(t *testing.T) {
	srv := llmtest.NewServer(t, batchScript)
	history, state := pauseInOneWorker(t, srv)

	var p agent.PausedRun
	if err := json.Unmarshal(state, &p); err != nil {
		t.Fatal(err)
	}
	var after []string
	reg := hooks.NewRegistry()
	reg.PreToolCall(hooktest.PreTool("new-first", func(*hooks.PreToolInput) hooks.PreToolResult { return hooks.PreToolResult{} }))
	pausedHooks(reg, &after)
	tt := newTestTools()
	w := agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", History: history, Tools: tt, Hooks: reg,
	})
	out, err := w.Restore(p)
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Hook != "gate" || out.Pending[0].Reason != "asks first" {
		t.Fatalf("Restore = %+v, %v", out, err)
	}
	out, err = w.Resume(context.Background(), []agent.Decision{{CallID: "c_ask", Verdict: agent.Approve}})
	if err != nil || out.Status != agent.StatusFinished || out.Text != "all done" {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	if !slices.Equal(after, []string{"c_ask"}) {
		t.Errorf("after saw %v: only the approved call's chain goes on", after)
	}
	if got := tt.executed(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"c_ask", "c_free"}) {
		t.Errorf("executed %v", got)
	}
	msgs := srv.Requests()[1].Messages
	if m := toolMessage(t, msgs, "c_skip"); !strings.Contains(m.Content, "not needed") {
		t.Errorf("skipped call: %q", m.Content)
	}
	if m := toolMessage(t, msgs, "c_free"); m.Content != "FREE" {
		t.Errorf("approved call: %q", m.Content)
	}
	if m := toolMessage(t, msgs, "c_ask"); m.Content != "ASK" {
		t.Errorf("paused call: %q", m.Content)
	}
}

// When the hook that paused is gone, or the state does not fit the
// conversation, Restore refuses and the Worker stays usable.
func TestRestoreRefusesChangedHooksAndAForeignConversation(t *testing.T) {
	srv := llmtest.NewServer(t, batchScript)
	history, state := pauseInOneWorker(t, srv)
	var p agent.PausedRun
	if err := json.Unmarshal(state, &p); err != nil {
		t.Fatal(err)
	}
	newWorker := func(reg *hooks.Registry, history []chat.Message) *agent.Worker {
		return agent.New(agent.Config{
			Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
			Model:  "m", History: history, Tools: newTestTools(), Hooks: reg,
		})
	}
	w := newWorker(hooks.NewRegistry(), history)
	if _, err := w.Restore(p); !errors.Is(err, agent.ErrHooksChanged) || !strings.Contains(err.Error(), `pre_tool_call hook "gate"`) {
		t.Errorf("Restore without the hook = %v", err)
	}
	if _, err := w.Resume(context.Background(), nil); !errors.Is(err, agent.ErrNotPaused) {
		t.Errorf("a refused Restore left the Worker paused: %v", err)
	}
	var after []string
	twice := hooks.NewRegistry()
	twice.PreToolCall(hooktest.PreTool("gate", func(*hooks.PreToolInput) hooks.PreToolResult { return hooks.PreToolResult{} }))
	pausedHooks(twice, &after)
	if _, err := newWorker(twice, history).Restore(p); !errors.Is(err, agent.ErrHooksChanged) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("Restore with the hook twice = %v", err)
	}
	reg := hooks.NewRegistry()
	pausedHooks(reg, &after)
	if _, err := newWorker(reg, history[:2]).Restore(p); err == nil || !strings.Contains(err.Error(), "not the open calls") {
		t.Errorf("Restore on another conversation = %v", err)
	}
}

// A run an on_turn_end hook paused goes on in another Worker with the
// hook after the one that paused, and with the retry rounds it had used.
func TestRestoreOfATurnEndPause(t *testing.T) {
	script := llmtest.NewScript(llmtest.Text("first"), llmtest.Text("second"))
	srv := llmtest.NewServer(t, script)
	register := func(r *hooks.Registry, later *int) {
		r.OnTurnEnd(hooktest.TurnEnd("ask", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
			if in.Final.Content == "first" {
				return hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "review needed"}
			}
			return hooks.TurnEndResult{}
		}))
		r.OnTurnEnd(hooktest.TurnEnd("later", func(in *hooks.TurnEndInput) hooks.TurnEndResult {
			*later++
			if *later == 1 {
				return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{chat.UserMessage("one more")}}
			}
			return hooks.TurnEndResult{}
		}))
	}
	var rec added
	var state *agent.PausedRun
	var later1 int
	reg := hooks.NewRegistry()
	register(reg, &later1)
	w := agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", System: "sys", Hooks: reg, OnMessage: rec.add,
		OnEvent: func(e agent.Event) {
			if p, ok := e.(agent.PausedEvent); ok {
				state = p.State
			}
		},
	})
	if out, err := w.Run(context.Background(), "go"); err != nil || out.Status != agent.StatusPaused || state == nil || state.TurnEnd == nil {
		t.Fatalf("Run = %+v, %v, state %+v", out, err, state)
	}

	var later2 int
	reg2 := hooks.NewRegistry()
	register(reg2, &later2)
	w2 := agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", History: rec.messages(), Hooks: reg2,
	})
	out, err := w2.Restore(*state)
	if err != nil || out.Status != agent.StatusPaused || out.Reason != "review needed" || len(out.Pending) != 0 {
		t.Fatalf("Restore = %+v, %v", out, err)
	}
	out, err = w2.Resume(context.Background(), nil)
	if err != nil || out.Status != agent.StatusFinished || out.Text != "second" || later2 != 2 {
		t.Fatalf("Resume = %+v, %v (later=%d)", out, err, later2)
	}
	if msgs := srv.Requests()[1].Messages; msgs[len(msgs)-1].Content != "one more" || msgs[len(msgs)-2].Content != "first" {
		t.Errorf("second request = %+v", msgs)
	}
}

func TestSetModelIsAnEvent(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.Text("ok")), nil)
	h.worker.SetModel("other-model")
	if _, err := h.worker.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if got := h.events.types(); got[0] != "model_changed" {
		t.Errorf("events = %v", got)
	}
	if m := h.srv.Requests()[0].Model; m != "other-model" {
		t.Errorf("model = %q", m)
	}
}

// A paused call's current form is written only when hooks changed it, and
// reads back either way.
func TestPausedCallJSONKeepsTheCallOnce(t *testing.T) {
	call := chat.ToolCall{ID: "c", Name: "bash", Arguments: `{"command":"ls"}`}
	changed := chat.ToolCall{ID: "c", Name: "bash", Arguments: `{"command":"ls -a"}`}
	for _, pc := range []agent.PausedCall{
		{Call: call, Current: call, State: agent.CallPending},
		{Call: call, Current: changed, State: agent.CallPending},
	} {
		b, err := json.Marshal(pc)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), `"command`); (pc.Current.Arguments == call.Arguments) != (n == 1) {
			t.Errorf("%s: the arguments are written %d times", b, n)
		}
		var back agent.PausedCall
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, pc) {
			t.Errorf("read back %+v, %v; want %+v", back, err, pc)
		}
	}
}
