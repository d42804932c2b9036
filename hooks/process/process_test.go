//go:build unix

package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/child"
)

var allEvents = []hooks.Event{hooks.OnPromptSubmit, hooks.PreLLMRequest, hooks.PreToolCall, hooks.PostToolCall, hooks.OnTurnEnd, hooks.OnAbort, hooks.PreCompact}

func TestHelloRegistersTheEventsAsked(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	for _, ev := range allEvents {
		if got := f.reg.Names(ev); !slices.Equal(got, []string{"srv"}) {
			t.Errorf("%s hooks = %v, want [srv]", ev, got)
		}
	}
	if got := f.set.Servers(); !slices.Equal(got, []string{"srv"}) {
		t.Errorf("Servers() = %v", got)
	}
	hello := f.received("hook.hello")
	if len(hello) != 1 {
		t.Fatalf("hellos received: %v", f.lines())
	}
	p := hello[0]["params"].(map[string]any)
	if p["version"] != 1.0 || p["name"] != "srv" || p["workspace"] != f.workspace || p["approve"] != false || p["tackle"] != "test" {
		t.Errorf("hello params = %v", p)
	}
	if evs := fmt.Sprint(p["events"]); evs != "[on_prompt_submit pre_llm_request pre_tool_call post_tool_call on_turn_end on_abort pre_compact]" {
		t.Errorf("events offered = %s", evs)
	}
	// The server runs in the workspace with tackle's variables and
	// without the model's key.
	start := f.startLines()
	if len(start) != 1 || !strings.Contains(start[0], "name=srv workspace="+f.workspace+" key=false") {
		t.Errorf("start lines = %q", start)
	}
}

func TestConfigEventsLimitTheHello(t *testing.T) {
	f := serve(t, process.Spec{Events: []string{"pre_tool_call"}}, map[string]string{
		"HOOKSERVER_HELLO": `json:{"version":1,"name":"x","modes":["intercept"],"events":["pre_tool_call","on_turn_end"]}`,
	})
	if got := f.reg.Names(hooks.OnTurnEnd); got != nil {
		t.Errorf("on_turn_end hooks = %v: the config does not list it", got)
	}
	if got := f.reg.Names(hooks.PreToolCall); !slices.Equal(got, []string{"srv"}) {
		t.Errorf("pre_tool_call hooks = %v", got)
	}
	if w := f.warnings.all(); !strings.Contains(w, `process hook server "srv": it asks for on_turn_end, which its config's "events" does not list`) {
		t.Errorf("warnings = %q", w)
	}
}

func TestFailedHandshakeIsReportedByNameAndNotUsed(t *testing.T) {
	for _, tt := range []struct{ hello, timeout, want string }{
		{"exit", "", "cannot start: config missing"},
		{"garbage", "", `stdout is for JSON-RPC messages only (write logs to stderr); got "hello there, I am not JSON-RPC"`},
		{"hang", "100ms", "no answer to hook.hello within 100ms"},
		{"error", "", "error -32000: not today"},
		{`json:{"version":2,"name":"x","modes":["observe"]}`, "", "speaks protocol version 2; tackle speaks version 1"},
		{`json:{"name":"x","modes":["observe"]}`, "", `"version" is missing (tackle speaks version 1; a hook written for picoclaw answers so: configure it under "picoclaw_hooks"`},
		{`json:{"version":1,"modes":["observe"]}`, "", `"name" is missing`},
		{`json:{"version":1,"name":"x","modes":[]}`, "", `"modes" is empty`},
		{`json:{"version":1,"name":"x","modes":["spy"]}`, "", `unknown mode "spy"`},
		{`json:{"version":1,"name":"x","modes":["intercept"]}`, "", `mode "intercept" needs "events"`},
		{`json:{"version":1,"name":"x","modes":["intercept"],"events":["on_lunch"]}`, "", `unknown event "on_lunch"`},
		{`json:{"version":1,"name":"x","modes":["intercept","approve"],"events":["on_turn_end"]}`, "", `mode "approve" needs the event pre_tool_call`},
		{`json:{"version":1,"name":"x","modes":["observe"],"events":["on_turn_end"]}`, "", `"events" needs mode "intercept"`},
		{`json:[1,2]`, "", "want a JSON object"},
	} {
		t.Run(tt.hello, func(t *testing.T) {
			f := serve(t, process.Spec{Timeout: tt.timeout}, map[string]string{"HOOKSERVER_HELLO": tt.hello})
			w := f.warnings.all()
			if !strings.Contains(w, `process hook server "srv" is not used: handshake: `) || !strings.Contains(w, tt.want) {
				t.Errorf("warnings = %q, want the server named and %q", w, tt.want)
			}
			// The log is named once (an exit at hello named it twice).
			if n := strings.Count(w, "its stderr is in"); n != 1 {
				t.Errorf("warnings name the log %d times: %q", n, w)
			}
			if len(f.set.Servers()) != 0 || f.reg.Len(hooks.PreToolCall) != 0 {
				t.Errorf("a server that failed its handshake is used: %v", f.set.Servers())
			}
		})
	}
}

// ---- every action of every event ----

// preTool runs the pre_tool_call chain on a call whose "hook" argument is
// the directive d.
func (f *fixture) preTool(d string) (hooks.PreToolResult, *hooks.PreToolInput, string) {
	in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"ls","hook":` + d + `}`}}
	var tr hooktest.Trace
	res, _ := f.reg.RunPreToolCall(context.Background(), in, 0, tr.Record)
	return res, in, tr.String()
}

func TestPromptSubmitActions(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	for _, tt := range []struct {
		name, answer, wantPrompt string
		want                     hooks.PromptResult
		trace                    string
	}{
		{"continue", `{"action":"continue"}`, "", hooks.PromptResult{}, "on_prompt_submit/srv:continue"},
		{"cancel", `{"action":"cancel","reason":"no secrets"}`, "", hooks.PromptResult{Action: hooks.PromptCancel, Reason: "no secrets"}, "on_prompt_submit/srv:cancel(no secrets)"},
		{"new prompt", `{"action":"continue","prompt":"fix the tests"}`, "fix the tests", hooks.PromptResult{}, "on_prompt_submit/srv:continue"},
		{"context", `{"action":"continue","context":"the tests live in ./e2e"}`, "DIRECTIVE\n\nHook context (srv): the tests live in ./e2e", hooks.PromptResult{}, "on_prompt_submit/srv:continue"},
		{"empty prompt fails open", `{"action":"continue","prompt":" "}`, "DIRECTIVE", hooks.PromptResult{}, `on_prompt_submit/srv:continue!(result: "prompt" is empty (use action "cancel" to drop the prompt))`},
		{"bad action", `{"action":"skip"}`, "DIRECTIVE", hooks.PromptResult{}, `on_prompt_submit/srv:continue!(result: invalid action "skip" for on_prompt_submit (want continue or cancel))`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := answer(tt.answer)
			in := &hooks.PromptInput{Message: chat.UserMessage(d)}
			var tr hooktest.Trace
			got := f.reg.RunPromptSubmit(context.Background(), in, tr.Record)
			want := strings.ReplaceAll(cmpOr(tt.wantPrompt, d), "DIRECTIVE", d)
			if got != tt.want || in.Message.Content != want || tr.String() != tt.trace {
				t.Errorf("got %+v, prompt %q, trace %q\nwant %+v, prompt %q, trace %q", got, in.Message.Content, tr.String(), tt.want, want, tt.trace)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestPreLLMRequestActions(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	conv := func(d string) []chat.Message {
		return []chat.Message{{Role: chat.RoleSystem, Content: "sys"}, chat.UserMessage(d)}
	}
	for _, tt := range []struct {
		name, answer string
		want         hooks.RequestResult
		wantModel    string
		wantMsgs     []chat.Message // nil: unchanged
		trace        string
	}{
		{"continue", `{"action":"continue"}`, hooks.RequestResult{}, "m", nil, "pre_llm_request/srv:continue"},
		{"cancel", `{"action":"cancel","reason":"over budget"}`, hooks.RequestResult{Action: hooks.RequestCancel, Reason: "over budget"}, "m", nil, "pre_llm_request/srv:cancel(over budget)"},
		{"model", `{"action":"continue","model":"big-model"}`, hooks.RequestResult{}, "big-model", nil, "pre_llm_request/srv:continue"},
		{"messages", `{"action":"continue","messages":[{"role":"system","content":"be terse"},{"role":"user","content":"hi"}]}`, hooks.RequestResult{}, "m",
			[]chat.Message{{Role: chat.RoleSystem, Content: "be terse"}, chat.UserMessage("hi")}, "pre_llm_request/srv:continue"},
		{"broken conversation fails open", `{"action":"continue","model":"x","messages":[{"role":"tool","tool_call_id":"c9","content":"x"}]}`, hooks.RequestResult{}, "m", nil,
			`pre_llm_request/srv:continue!(result: messages[0]: tool message for "c9", which is not an unanswered call of the assistant message before it)`},
		{"empty model", `{"action":"continue","model":""}`, hooks.RequestResult{}, "m", nil, `pre_llm_request/srv:continue!(result: "model" is empty)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := answer(tt.answer)
			in := &hooks.LLMRequestInput{Model: "m", Messages: conv(d), Request: 1}
			var tr hooktest.Trace
			got := f.reg.RunPreLLMRequest(context.Background(), in, tr.Record)
			wantMsgs := cmpMsgs(tt.wantMsgs, conv(d))
			if got != tt.want || in.Model != tt.wantModel || !reflect.DeepEqual(in.Messages, wantMsgs) || tr.String() != tt.trace {
				t.Errorf("got %+v, model %q, messages %+v, trace %q", got, in.Model, in.Messages, tr.String())
			}
		})
	}
	// The request carries the model, the request count and the messages.
	req := f.received("hook.pre_llm_request")[0]["params"].(map[string]any)
	if req["event"] != "pre_llm_request" || req["model"] != "m" || req["request"] != 1.0 || len(req["messages"].([]any)) != 2 {
		t.Errorf("params = %v", req)
	}
}

func cmpMsgs(a, b []chat.Message) []chat.Message {
	if a != nil {
		return a
	}
	return b
}

func TestPreToolCallActions(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	for _, tt := range []struct {
		name, answer string
		want         hooks.PreToolResult
		wantArgs     string // "" for unchanged
		trace        string
	}{
		{"continue", `{"action":"continue"}`, hooks.PreToolResult{}, "", "pre_tool_call/srv:continue"},
		{"skip", `{"action":"skip","reason":"read-only"}`, hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "read-only"}, "", "pre_tool_call/srv:skip(read-only)"},
		{"abort", `{"action":"abort","reason":"rm -rf /"}`, hooks.PreToolResult{Action: hooks.ToolAbort, Reason: "rm -rf /"}, "", "pre_tool_call/srv:abort(rm -rf /)"},
		{"pause", `{"action":"pause","reason":"ask"}`, hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"}, "", "pre_tool_call/srv:pause(ask)"},
		{"new arguments", `{"action":"continue","arguments":{"command":"ls -la"}}`, hooks.PreToolResult{}, `{"command":"ls -la"}`, "pre_tool_call/srv:continue"},
		{"respond", `{"action":"respond","output":"a.go b.go","reason":"cached"}`,
			hooks.PreToolResult{Action: hooks.ToolRespond, Reason: "cached", Response: chat.ToolResult{Status: chat.StatusOK, Content: "a.go b.go"}}, "", "pre_tool_call/srv:respond(cached)"},
		{"respond with an error", `{"action":"respond","output":"no such dir","status":"error"}`,
			hooks.PreToolResult{Action: hooks.ToolRespond, Response: chat.ToolResult{Status: chat.StatusError, Content: "no such dir"}}, "", "pre_tool_call/srv:respond"},
		{"respond without output fails closed", `{"action":"respond"}`, hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "srv" failed: result: action "respond" needs "output": the result the model reads`}, "",
			`pre_tool_call/srv:skip!(result: action "respond" needs "output": the result the model reads)`},
		{"respond with a status of its own", `{"action":"respond","output":"x","status":"denied"}`, hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "srv" failed: result: "status" "denied" (want "ok" or "error")`}, "",
			`pre_tool_call/srv:skip!(result: "status" "denied" (want "ok" or "error"))`},
		{"approve without approve: true", `{"action":"approve"}`,
			hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "srv" failed: result: action "approve" needs "approve": true in the server's config and mode "approve" in its hello`}, "",
			`pre_tool_call/srv:skip!(result: action "approve" needs "approve": true in the server's config and mode "approve" in its hello)`},
		{"arguments not an object", `{"action":"continue","arguments":"ls"}`, hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "srv" failed: result: "arguments" must be a JSON object, got "\"ls\""`}, "",
			`pre_tool_call/srv:skip!(result: "arguments" must be a JSON object, got "\"ls\"")`},
		{"no action", `{"reason":"hm"}`, hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "srv" failed: result: missing "action" (want continue, skip, abort, pause, respond or approve)`}, "",
			`pre_tool_call/srv:skip!(result: missing "action" (want continue, skip, abort, pause, respond or approve))`},
		{"result not an object", `"continue"`, hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "srv" failed: result: want a JSON object, got "\"continue\""`}, "",
			`pre_tool_call/srv:skip!(result: want a JSON object, got "\"continue\"")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := answer(tt.answer)
			got, in, tr := f.preTool(d)
			wantArgs := cmpOr(tt.wantArgs, `{"command":"ls","hook":`+d+`}`)
			if got != tt.want || in.Call.Arguments != wantArgs || tr != tt.trace {
				t.Errorf("got %+v, args %s, trace %q\nwant %+v, args %s, trace %q", got, in.Call.Arguments, tr, tt.want, wantArgs, tt.trace)
			}
			if by := approvedBy(in); by != "" {
				t.Errorf("approved by %q", by)
			}
		})
	}
	// A JSON-RPC error is a failure of the hook.
	got, _, _ := f.preTool(`{"error":{"code":-32000,"message":"policy file unreadable"}}`)
	if got.Action != hooks.ToolSkip || got.Reason != `hook "srv" failed: it answered with error -32000: policy file unreadable` {
		t.Errorf("error answer: %+v", got)
	}
}

func TestApproveOnlyWhenConfigured(t *testing.T) {
	f := serve(t, process.Spec{Approve: true}, nil)
	if p := f.received("hook.hello")[0]["params"].(map[string]any); p["approve"] != true {
		t.Errorf("hello params = %v", p)
	}
	got, in, tr := f.preTool(answer(`{"action":"approve","reason":"tests only","arguments":{"command":"go test ./..."}}`))
	if got != (hooks.PreToolResult{}) || approvedBy(in) != "srv" || in.Call.Arguments != `{"command":"go test ./..."}` {
		t.Errorf("got %+v, approved by %q, args %s", got, approvedBy(in), in.Call.Arguments)
	}
	if tr != "pre_tool_call/srv:continue(approved: tests only)" {
		t.Errorf("trace %q", tr)
	}

	// A server that asks for approve mode without "approve": true is
	// warned about, and its approvals fail.
	f = serve(t, process.Spec{}, map[string]string{
		"HOOKSERVER_HELLO": `json:{"version":1,"name":"x","modes":["intercept","approve"],"events":["pre_tool_call"]}`,
	})
	if w := f.warnings.all(); !strings.Contains(w, `it asks for mode "approve", which its config does not grant (set "approve": true)`) {
		t.Errorf("warnings = %q", w)
	}
	if got, in, _ := f.preTool(answer(`{"action":"approve"}`)); got.Action != hooks.ToolSkip || approvedBy(in) != "" {
		t.Errorf("approve not granted: %+v, approved by %q", got, approvedBy(in))
	}
}

func TestPostToolCallActions(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	for _, tt := range []struct {
		name, answer string
		want         hooks.PostToolResult
		wantResult   chat.ToolResult // Content "" for unchanged
		trace        string
	}{
		{"continue", `{"action":"continue"}`, hooks.PostToolResult{}, chat.ToolResult{Status: chat.StatusOK}, "post_tool_call/srv:continue"},
		{"abort", `{"action":"abort","reason":"leaked key"}`, hooks.PostToolResult{Action: hooks.PostAbort, Reason: "leaked key"}, chat.ToolResult{Status: chat.StatusOK}, "post_tool_call/srv:abort(leaked key)"},
		{"new result", `{"action":"continue","output":"[redacted]","status":"error"}`, hooks.PostToolResult{}, chat.ToolResult{Status: chat.StatusError, Content: "[redacted]"}, "post_tool_call/srv:continue"},
		{"context", `{"action":"continue","output":"ok","context":"the file is generated; edit gen.go instead"}`, hooks.PostToolResult{},
			chat.ToolResult{Status: chat.StatusOK, Content: "ok\n\nHook context (srv): the file is generated; edit gen.go instead"}, "post_tool_call/srv:continue"},
		{"bad status fails open", `{"action":"continue","status":"skipped","output":"x"}`, hooks.PostToolResult{}, chat.ToolResult{Status: chat.StatusOK},
			`post_tool_call/srv:continue!(result: "status" "skipped" (want "ok" or "error"))`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := answer(tt.answer)
			in := &hooks.PostToolInput{Call: chat.ToolCall{ID: "c1", Name: "read_file"}, Result: chat.ToolResult{CallID: "c1", Status: chat.StatusOK, Content: d}}
			var tr hooktest.Trace
			got := f.reg.RunPostToolCall(context.Background(), in, tr.Record)
			want := tt.wantResult
			want.CallID, want.Content = "c1", cmpOr(want.Content, d)
			if got != tt.want || in.Result != want || tr.String() != tt.trace {
				t.Errorf("got %+v, result %+v, trace %q\nwant %+v, result %+v, trace %q", got, in.Result, tr.String(), tt.want, want, tt.trace)
			}
		})
	}
}

func TestTurnEndActions(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	for _, tt := range []struct {
		name, answer string
		want         hooks.TurnEndResult
		trace        string
	}{
		{"finish", `{"action":"finish"}`, hooks.TurnEndResult{}, "on_turn_end/srv:finish"},
		{"continue with messages", `{"action":"continue_with_messages","reason":"tests fail","messages":["run go test",{"role":"system","content":"be brief"}]}`,
			hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Reason: "tests fail", Messages: []chat.Message{chat.UserMessage("run go test"), {Role: chat.RoleSystem, Content: "be brief"}}},
			"on_turn_end/srv:continue_with_messages(tests fail)"},
		{"paused", `{"action":"paused","reason":"review"}`, hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "review"}, "on_turn_end/srv:paused(review)"},
		{"no messages fails open", `{"action":"continue_with_messages"}`, hooks.TurnEndResult{},
			`on_turn_end/srv:finish!(result: continue_with_messages needs "messages": a non-empty array of strings or {"role", "content"} objects)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &hooks.TurnEndInput{Final: chat.Message{Role: chat.RoleAssistant, Content: answer(tt.answer)}, Round: 1}
			var tr hooktest.Trace
			got, _ := f.reg.RunTurnEnd(context.Background(), in, 0, tr.Record)
			if !reflect.DeepEqual(got, tt.want) || tr.String() != tt.trace {
				t.Errorf("got %+v, trace %q\nwant %+v, trace %q", got, tr.String(), tt.want, tt.trace)
			}
		})
	}
}

// TestPreCompactActions: a hook server sees a compaction before it is
// applied and can let it go on, cancel it or rewrite the summary (never
// to blank, and not when only old outputs are pruned).
func TestPreCompactActions(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	for _, tt := range []struct {
		name, answer, summary string
		want                  hooks.CompactResult
		wantSummary, trace    string
	}{
		{"continue", `{"action":"continue"}`, "the model's summary", hooks.CompactResult{}, "the model's summary", "pre_compact/srv:continue"},
		{"cancel", `{"action":"cancel","reason":"keep it all"}`, "s", hooks.CompactResult{Action: hooks.CompactCancel, Reason: "keep it all"}, "s", "pre_compact/srv:cancel(keep it all)"},
		{"rewrite", `{"action":"continue","summary":"the hook's summary"}`, "the model's", hooks.CompactResult{}, "the hook's summary", "pre_compact/srv:continue"},
		{"no summary to rewrite", `{"action":"continue","summary":"x"}`, "", hooks.CompactResult{}, "", "pre_compact/srv:continue"},
		{"blank summary fails open", `{"action":"continue","summary":"  "}`, "kept", hooks.CompactResult{}, "kept",
			`pre_compact/srv:continue!(result: "summary" is empty (use action "cancel" to keep the conversation as it is))`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &hooks.CompactInput{Trigger: hooks.CompactManual, Focus: answer(tt.answer), Summary: tt.summary, Replaced: 4}
			var tr hooktest.Trace
			got := f.reg.RunPreCompact(context.Background(), in, tr.Record)
			if !reflect.DeepEqual(got, tt.want) || in.Summary != tt.wantSummary || tr.String() != tt.trace {
				t.Errorf("got %+v, summary %q, trace %q\nwant %+v, summary %q, trace %q", got, in.Summary, tr.String(), tt.want, tt.wantSummary, tt.trace)
			}
		})
	}
	p := f.received("hook.pre_compact")[0]["params"].(map[string]any)
	if p["trigger"] != "manual" || p["replaced"] != 4.0 || p["event"] != "pre_compact" {
		t.Errorf("params = %v", p)
	}
}

func TestAbortIsAcknowledged(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	var tr hooktest.Trace
	f.reg.RunAbort(context.Background(), &hooks.AbortInput{Reason: "cancelled", Err: errors.New("context canceled")}, tr.Record)
	if tr.String() != "on_abort/srv:done" {
		t.Errorf("trace %q", tr.String())
	}
	p := f.received("hook.on_abort")[0]["params"].(map[string]any)
	if p["reason"] != "cancelled" || p["error"] != "context canceled" || p["event"] != "on_abort" {
		t.Errorf("params = %v", p)
	}
}

// ---- observers ----

type fakeEvent struct{ typ, body string }

func (f *fixture) observe(events ...fakeEvent) (encoded []string) {
	for _, e := range events {
		f.set.Observe(e.typ, func() ([]byte, error) {
			encoded = append(encoded, e.typ)
			return []byte(`{"type":"` + e.typ + `",` + e.body + `}`), nil
		})
	}
	return encoded
}

func TestObserversGetEveryEventInOrder(t *testing.T) {
	f := serve(t, process.Spec{}, nil, func(o *process.Options) { o.ObserveTypes = []string{"text_delta", "tool_call_finished"} })
	f.observe(fakeEvent{"text_delta", `"text":"Hel"`}, fakeEvent{"text_delta", `"text":"lo"`}, fakeEvent{"tool_call_finished", `"call":{"id":"c1"}`})
	lines := f.close()
	var got []string
	for _, l := range lines {
		if strings.Contains(l, `"method":"hook.event"`) || strings.Contains(l, `"method":"hook.shutdown"`) {
			got = append(got, l)
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"hook.event","params":{"type":"text_delta","text":"Hel"}}`,
		`{"jsonrpc":"2.0","method":"hook.event","params":{"type":"text_delta","text":"lo"}}`,
		`{"jsonrpc":"2.0","method":"hook.event","params":{"type":"tool_call_finished","call":{"id":"c1"}}}`,
		`{"jsonrpc":"2.0","method":"hook.shutdown","params":{}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("notifications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := f.received("hook.hello")[0]["params"].(map[string]any); fmt.Sprint(p["observe"]) != "[text_delta tool_call_finished]" {
		t.Errorf("hello observe = %v", p["observe"])
	}
}

func TestObserversChooseTheirTypes(t *testing.T) {
	f := serve(t, process.Spec{}, map[string]string{
		"HOOKSERVER_HELLO": `json:{"version":1,"name":"x","modes":["observe"],"observe":["usage","bogus"]}`,
	}, func(o *process.Options) { o.ObserveTypes = []string{"usage", "text_delta"} })
	if w := f.warnings.all(); !strings.Contains(w, `it observes "bogus", which is not a type of event tackle sends`) {
		t.Errorf("warnings = %q", w)
	}
	// An observer only: no hooks.
	for _, ev := range allEvents {
		if n := f.reg.Len(ev); n != 0 {
			t.Errorf("%d %s hooks", n, ev)
		}
	}
	encoded := f.observe(fakeEvent{"text_delta", `"text":"x"`}, fakeEvent{"usage", `"total":{}`})
	if !slices.Equal(encoded, []string{"usage"}) {
		t.Errorf("encoded %v: an event nobody observes must not be encoded", encoded)
	}
	if got := len(f.received("hook.event")); got != 0 {
		// Notifications are never awaited: only after Close is it sure
		// the server has read them.
		_ = got
	}
	f.close()
	evs := f.received("hook.event")
	if len(evs) != 1 || evs[0]["params"].(map[string]any)["type"] != "usage" {
		t.Errorf("events received: %v", evs)
	}
}

// A server that reads too slowly never holds tackle up: its
// notifications are dropped past the queue's bound, counted and reported.
func TestSlowObserverDropsNotifications(t *testing.T) {
	f := serve(t, process.Spec{}, map[string]string{"HOOKSERVER_NOREAD": "1"}, func(o *process.Options) { o.Grace = 50 * time.Millisecond })
	body := `"text":"` + strings.Repeat("x", 1000) + `"`
	for range 5000 {
		f.observe(fakeEvent{"text_delta", body})
	}
	f.close()
	w := f.warnings.all()
	if !strings.Contains(w, `process hook server "srv" reads too slowly: `) || !strings.Contains(w, "hook.event notifications were dropped (at most 1024, or 8 MiB, wait)") {
		t.Errorf("warnings = %q", w)
	}
	if !strings.Contains(f.serverLog(), "killing its process group") {
		t.Errorf("log:\n%s", f.serverLog())
	}
}

// ---- concurrency, failures, restarts ----

// Requests carry ids: answers may come in any order, and each reaches
// its own caller.
func TestAnswersOutOfOrder(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	var wg sync.WaitGroup
	results := make([]hooks.PreToolResult, 3)
	for i := range results {
		wg.Go(func() {
			d := directive(map[string]any{"batch": 3, "answer": map[string]string{"action": "skip", "reason": fmt.Sprint("call ", i)}})
			in := &hooks.PreToolInput{Call: chat.ToolCall{ID: fmt.Sprint("c", i), Name: "bash", Arguments: `{"hook":` + d + `}`}}
			results[i], _ = f.reg.RunPreToolCall(context.Background(), in, 0, nil)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.Action != hooks.ToolSkip || r.Reason != fmt.Sprint("call ", i) {
			t.Errorf("call %d got %+v", i, r)
		}
	}
	// The server got the requests in one order and answered in the
	// reverse one.
	var sent, answered []string
	for _, l := range f.lines() {
		if id, ok := strings.CutPrefix(l, "answered "); ok {
			answered = append(answered, id)
		} else if strings.Contains(l, "hook.pre_tool_call") {
			sent = append(sent, fmt.Sprint(f.idOf(l)))
		}
	}
	slices.Reverse(sent)
	if len(sent) != 3 || !slices.Equal(sent, answered) {
		t.Errorf("requests (reversed) %v, answers %v", sent, answered)
	}
}

func (f *fixture) idOf(line string) int {
	_, rest, _ := strings.Cut(line, `"id":`)
	n, _ := strconv.Atoi(rest[:strings.IndexAny(rest, ",}")])
	return n
}

func TestCrashFailsInFlightByPolicyThenRestarts(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	got, _, _ := f.preTool(`{"do":"crash"}`)
	if got.Action != hooks.ToolSkip || !strings.Contains(got.Reason, `hook "srv" failed: the server exited (exit status 3): hookserver: crashing on hook.pre_tool_call`) {
		t.Errorf("in-flight call on a crash: %+v", got)
	}
	// The next call waits for the restart and is answered.
	if got, _, _ := f.preTool(answer(`{"action":"skip","reason":"back"}`)); got.Reason != "back" {
		t.Errorf("after the restart: %+v", got)
	}
	if n := len(f.startLines()); n != 2 {
		t.Errorf("%d starts, want 2", n)
	}
	if len(f.received("hook.hello")) != 2 {
		t.Error("the restarted server was not greeted")
	}
	w := f.warnings.all()
	if !strings.Contains(w, `process hook server "srv" failed (the server exited (exit status 3)`) || !strings.Contains(w, "restarting it in 1ms") ||
		!strings.Contains(w, `process hook server "srv" is running again`) {
		t.Errorf("warnings = %q", w)
	}
	// Its stderr went to its log, not to the warnings' reader alone.
	if log := f.serverLog(); !strings.Contains(log, "hookserver: crashing on hook.pre_tool_call") || strings.Count(log, "started ") != 2 {
		t.Errorf("log:\n%s", log)
	}
}

func TestCrashFailsOpenWhenConfigured(t *testing.T) {
	f := serve(t, process.Spec{OnError: "open"}, nil)
	got, _, tr := f.preTool(`{"do":"crash"}`)
	if got != (hooks.PreToolResult{}) || !strings.HasPrefix(tr, "pre_tool_call/srv:continue!(the server exited (exit status 3)") {
		t.Errorf("got %+v, trace %q", got, tr)
	}
}

func TestRestartsAreBounded(t *testing.T) {
	f := serve(t, process.Spec{}, map[string]string{"HOOKSERVER_RESTARTS": "fail"}, func(o *process.Options) { o.MaxRestarts = 2 })
	f.preTool(`{"do":"crash"}`)
	// Every restart fails: after two tackle gives up, and calls fail at
	// once, by policy.
	got, _, _ := f.preTool(answer(`{"action":"continue"}`))
	if got.Action != hooks.ToolSkip || !strings.Contains(got.Reason, "tackle gave up on the server after 2 restarts in a row without an answer") {
		t.Errorf("got %+v", got)
	}
	if n := len(f.startLines()); n != 3 {
		t.Errorf("%d starts, want 3", n)
	}
	if w := f.warnings.all(); !strings.Contains(w, "hookserver: failing on restart") {
		t.Errorf("warnings = %q", w)
	}
}

func TestHangTimesOutByPolicy(t *testing.T) {
	f := serve(t, process.Spec{Timeout: "100ms"}, nil)
	got, _, tr := f.preTool(`{"do":"hang"}`)
	if got.Action != hooks.ToolSkip || got.Reason != `hook "srv" failed: timed out after 100ms` {
		t.Errorf("got %+v", got)
	}
	if tr != "pre_tool_call/srv:skip!(timed out after 100ms)" {
		t.Errorf("trace %q", tr)
	}
	// The server is still in use; a late answer is dropped.
	if got, _, _ := f.preTool(answer(`{"action":"pause","reason":"still here"}`)); got.Reason != "still here" {
		t.Errorf("after a timeout: %+v", got)
	}
	// post_tool_call fails open by default.
	in := &hooks.PostToolInput{Call: chat.ToolCall{ID: "c"}, Result: chat.ToolResult{Content: `{"do":"hang"}`}}
	var ptr hooktest.Trace
	if res := f.reg.RunPostToolCall(context.Background(), in, ptr.Record); res != (hooks.PostToolResult{}) || ptr.String() != "post_tool_call/srv:continue!(timed out after 100ms)" {
		t.Errorf("post_tool_call: %+v, %q", res, ptr.String())
	}
}

func TestGarbageOnStdoutNamesTheHook(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	got, _, _ := f.preTool(`{"do":"garbage"}`)
	want := `hook "srv" failed: stdout is for JSON-RPC messages only (write logs to stderr); got "DEBUG: handling hook.pre_tool_call"`
	if got.Action != hooks.ToolSkip || got.Reason != want {
		t.Errorf("got %+v\nwant reason %q", got, want)
	}
	// The connection goes on.
	if got, _, _ := f.preTool(answer(`{"action":"continue"}`)); got != (hooks.PreToolResult{}) {
		t.Errorf("after garbage: %+v", got)
	}
}

func TestStderrGoesToTheLogFile(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	f.preTool(`{"stderr":"checking the call against policy.toml"}`)
	f.close()
	if log := f.serverLog(); !strings.Contains(log, "checking the call against policy.toml\n") {
		t.Errorf("log:\n%s", log)
	}
	if w := f.warnings.all(); strings.Contains(w, "policy.toml") {
		t.Errorf("stderr reached the warnings: %q", w)
	}
	fi, err := os.Stat(f.logDir + "/srv.log")
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log file mode: %v, %v", fi, err)
	}
}

// A tool call's arguments cannot forge a message on the server's stdin:
// every request is one line, whatever its strings hold.
func TestArgumentsCannotForgeMessages(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	forged := "x\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"skip\"}}\n"
	in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: fmt.Sprintf(`{"command":%q}`, forged)}}
	if got, _ := f.reg.RunPreToolCall(context.Background(), in, 0, nil); got != (hooks.PreToolResult{}) {
		t.Errorf("got %+v", got)
	}
	reqs := f.received("hook.pre_tool_call")
	if len(reqs) != 1 {
		t.Fatalf("the server read %d pre_tool_call messages: %v", len(reqs), f.lines())
	}
	args := reqs[0]["params"].(map[string]any)["tool_call"].(map[string]any)["arguments"].(map[string]any)
	if args["command"] != forged {
		t.Errorf("command as received = %q", args["command"])
	}
}

// ---- shutdown (and shutdown_linux_test.go) ----

func TestCallsAfterCloseFail(t *testing.T) {
	f := serve(t, process.Spec{OnError: "open"}, nil)
	f.close()
	_, _, tr := f.preTool(answer(`{"action":"skip"}`))
	if tr != "pre_tool_call/srv:continue!(the server was shut down)" {
		t.Errorf("trace %q", tr)
	}
}

// approvedBy names the hook whose approval holds for the call as it
// stands, or "".
func approvedBy(in *hooks.PreToolInput) string {
	if !in.Approval.Holds(in.Call) || in.Approval.Ask {
		return ""
	}
	return in.Approval.Hook
}

// A server that floods its stderr while tackle runs keeps its log under
// the cap (before, the log grew without bound until the next start: 789 MB
// in 3.5 s), and the user is told once that older output is dropped.
func TestFloodedStderrLogIsCapped(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	f.preTool(fmt.Sprintf(`{"flood":%d}`, 2*child.MaxLogSize>>20+4))
	f.preTool(fmt.Sprintf(`{"flood":%d}`, child.MaxLogSize>>20))
	f.close()
	for _, name := range []string{"srv.log", "srv.log.old"} {
		fi, err := os.Stat(filepath.Join(f.logDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > child.MaxLogSize {
			t.Errorf("%s is %d bytes, over the cap of %d", name, fi.Size(), child.MaxLogSize)
		}
	}
	if w := f.warnings.all(); strings.Count(w, "writes more than 8 MiB to stderr") != 1 || !strings.Contains(w, "older output is dropped") {
		t.Errorf("warnings = %q, want one saying the log drops older output", w)
	}
}

// A server writing its own log lines to stdout gets a few warnings and a
// count, not one warning per line (200,000 lines made up to 400,000
// warning lines, which buried the final answer in both front ends).
func TestGarbageLinesAreCountedNotEachReported(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	f.preTool(`{"spam":5000}`)
	f.close()
	w := f.warnings.all()
	lines := strings.Split(w, "\n")
	if len(lines) > 6 {
		t.Errorf("%d warnings for 5000 lines that are not JSON-RPC:\n%s", len(lines), strings.Join(lines[:10], "\n"))
	}
	for _, want := range []string{"goes on writing lines that are not JSON-RPC: they are counted, not shown", "wrote 5000 lines that were not JSON-RPC in all"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
}

// TestRequestsNameTheAgent: every request a hook server gets names the
// agent whose turn it is: the main agent, or a subagent and its parent.
func TestRequestsNameTheAgent(t *testing.T) {
	f := serve(t, process.Spec{}, nil)
	call := func(id string) *hooks.PreToolInput {
		return &hooks.PreToolInput{Call: chat.ToolCall{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}
	}
	f.reg.RunPreToolCall(context.Background(), call("c_main"), 0, nil)
	child := hooks.WithAgent(context.Background(), hooks.Agent{ID: "call_task", Parent: hooks.MainAgent, Type: "reviewer"})
	f.reg.RunPreToolCall(child, call("c_sub"), 0, nil)
	got := map[string]string{}
	for _, r := range f.received("hook.pre_tool_call") {
		p := r["params"].(map[string]any)
		a, _ := json.Marshal(p["agent"])
		got[p["tool_call"].(map[string]any)["id"].(string)] = string(a)
	}
	want := map[string]string{"c_main": `{"id":"main"}`, "c_sub": `{"id":"call_task","parent":"main","type":"reviewer"}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("agents %v, want %v", got, want)
	}
}
