//go:build unix

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// testEnv is the base environment of the hooks under test.
func testEnv() []string { return []string{"PATH=" + os.Getenv("PATH")} }

// setup registers spec for event in a fresh registry, with a fresh
// temporary directory as the workspace, and returns both.
func setup(t *testing.T, event string, spec command.Spec) (*hooks.Registry, string) {
	t.Helper()
	dir := t.TempDir()
	reg := hooks.NewRegistry()
	if spec.Name == "" {
		spec.Name = "h"
	}
	if err := command.Register(reg, event, spec, command.Options{Workdir: dir, Env: testEnv()}); err != nil {
		t.Fatal(err)
	}
	return reg, dir
}

// sh is a spec named "h" that runs script with sh -c.
func sh(script string) command.Spec {
	return command.Spec{Name: "h", Command: command.Shell(script)}
}

// readJSON decodes the file dir/name.
func readJSON(t *testing.T, dir, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	return m
}

// jsonEq reports whether got, decoded into any, equals want (a JSON text).
func jsonEq(t *testing.T, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %s: %v", want, err)
	}
	g, _ := json.Marshal(got)
	ws, _ := json.Marshal(w)
	if string(g) != string(ws) {
		t.Errorf("got  %s\nwant %s", g, ws)
	}
}

// failure returns the Error of the only decision in tr, failing the test
// if the hook did not fail.
func failure(t *testing.T, tr *hooktest.Trace) string {
	t.Helper()
	ds := tr.Decisions()
	if len(ds) != 1 || ds[0].Error == "" {
		t.Fatalf("want one failed decision, got %s", tr)
	}
	return ds[0].Error
}

func contains(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q does not contain %q", s, sub)
	}
}

var ctx = context.Background()

func TestInputs(t *testing.T) {
	msgs := []chat.Message{
		{Role: chat.RoleSystem, Content: "be brief"},
		chat.UserMessage("list files"),
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"ls && rm x"}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: "a.go"},
		{Role: chat.RoleAssistant, Content: "one file"},
	}
	wantMsgs := `[
		{"role":"system","content":"be brief"},
		{"role":"user","content":"list files"},
		{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":{"command":"ls && rm x"}}]},
		{"role":"tool","content":"a.go","tool_call_id":"c1"},
		{"role":"assistant","content":"one file"}]`
	const dump = `cat > in.json; printf '%s\n%s\n%s\n%s\n' "$TACKLE_EVENT" "$TACKLE_WORKSPACE" "$TACKLE_HOOK_NAME" "$PWD" > env.txt`

	tests := []struct {
		event string
		run   func(*hooks.Registry)
		want  string // without "workspace"
	}{{
		event: "on_prompt_submit",
		run: func(reg *hooks.Registry) {
			reg.RunPromptSubmit(ctx, &hooks.PromptInput{Message: chat.UserMessage("fix <the> test")}, nil)
		},
		want: `{"agent":{"id":"main"},"event":"on_prompt_submit","prompt":"fix <the> test"}`,
	}, {
		event: "pre_llm_request",
		run: func(reg *hooks.Registry) {
			reg.RunPreLLMRequest(ctx, &hooks.LLMRequestInput{Model: "gpt-x", Request: 3, Messages: msgs}, nil)
		},
		want: `{"agent":{"id":"main"},"event":"pre_llm_request","model":"gpt-x","request":3,"messages":` + wantMsgs + `}`,
	}, {
		event: "pre_tool_call",
		run: func(reg *hooks.Registry) {
			reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command": "go test ./..."}`}}, 0, nil)
		},
		want: `{"agent":{"id":"main"},"event":"pre_tool_call","tool_call":{"id":"c1","name":"bash","arguments":{"command":"go test ./..."}}}`,
	}, {
		event: "pre_tool_call",
		run: func(reg *hooks.Registry) {
			reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command": "ls`}}, 0, nil)
		},
		want: `{"agent":{"id":"main"},"event":"pre_tool_call","tool_call":{"id":"c2","name":"bash","arguments":"{\"command\": \"ls"}}`,
	}, {
		// A subagent's call: its agent, its parent and its kind.
		event: "pre_tool_call",
		run: func(reg *hooks.Registry) {
			child := hooks.WithAgent(ctx, hooks.Agent{ID: "call_task", Parent: hooks.MainAgent, Type: "explore"})
			reg.RunPreToolCall(child, &hooks.PreToolInput{Call: chat.ToolCall{ID: "c3", Name: "read_file", Arguments: `{"path":"a.go"}`}}, 0, nil)
		},
		want: `{"agent":{"id":"call_task","parent":"main","type":"explore"},"event":"pre_tool_call","tool_call":{"id":"c3","name":"read_file","arguments":{"path":"a.go"}}}`,
	}, {
		event: "post_tool_call",
		run: func(reg *hooks.Registry) {
			reg.RunPostToolCall(ctx, &hooks.PostToolInput{
				Call:   chat.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`},
				Result: chat.ToolResult{CallID: "c1", Status: chat.StatusError, Content: "no such file"},
			}, nil)
		},
		want: `{"agent":{"id":"main"},"event":"post_tool_call","tool_call":{"id":"c1","name":"read_file","arguments":{"path":"a.go"}},"result":{"status":"error","content":"no such file"}}`,
	}, {
		event: "on_turn_end",
		run: func(reg *hooks.Registry) {
			reg.RunTurnEnd(ctx, &hooks.TurnEndInput{Messages: msgs, Final: msgs[len(msgs)-1], Round: 1}, 0, nil)
		},
		want: `{"agent":{"id":"main"},"event":"on_turn_end","final":"one file","round":1,"messages":` + wantMsgs + `}`,
	}, {
		event: "on_abort",
		run: func(reg *hooks.Registry) {
			reg.RunAbort(ctx, &hooks.AbortInput{Reason: "user pressed ctrl+c", Err: errors.New("context canceled")}, nil)
		},
		want: `{"agent":{"id":"main"},"event":"on_abort","reason":"user pressed ctrl+c","error":"context canceled"}`,
	}, {
		event: "pre_compact",
		run: func(reg *hooks.Registry) {
			reg.RunPreCompact(ctx, &hooks.CompactInput{Trigger: hooks.CompactManual, Focus: "the API", Summary: "Asked: list files.",
				Messages: msgs, Replaced: 3, Pruned: 1, Tokens: 9000, After: 1200, Window: 10000}, nil)
		},
		want: `{"agent":{"id":"main"},"event":"pre_compact","trigger":"manual","focus":"the API","summary":"Asked: list files.","replaced":3,"pruned":1,` +
			`"tokens":9000,"tokens_after":1200,"window":10000,"messages":` + wantMsgs + `}`,
	}}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			reg, dir := setup(t, tt.event, command.Spec{Name: "dump", Command: command.Shell(dump)})
			tt.run(reg)
			got := readJSON(t, dir, "in.json")
			if got["workspace"] != dir {
				t.Errorf("workspace = %v, want %s", got["workspace"], dir)
			}
			delete(got, "workspace")
			jsonEq(t, got, tt.want)

			b, err := os.ReadFile(filepath.Join(dir, "env.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.event + "\n" + dir + "\ndump\n" + dir + "\n"; string(b) != want {
				t.Errorf("TACKLE_EVENT, TACKLE_WORKSPACE, TACKLE_HOOK_NAME, PWD = %q, want %q", b, want)
			}
		})
	}
}

func TestInputIsNotHTMLEscaped(t *testing.T) {
	// Scripts grep their input: "&&" must stay "&&".
	reg, _ := setup(t, "pre_tool_call", sh(`grep -q '"command":"a && b"' || exit 2`))
	res, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash", Arguments: `{"command": "a && b"}`}}, 0, nil)
	if res.Action != hooks.ToolContinue {
		t.Errorf("got %+v, want continue", res)
	}
}

func TestPromptSubmit(t *testing.T) {
	tests := []struct {
		name, script string
		want         hooks.PromptResult
		prompt       string // the message afterwards
		err          string // a failure's error, if the hook must fail
		trace        string // if set, the trace
	}{
		{name: "no output", script: `exit 0`, prompt: "hi"},
		{name: "white space", script: `printf ' \n\n'`, prompt: "hi"},
		{name: "continue", script: `echo '{"action":"continue","reason":"ok"}'`, prompt: "hi", trace: "on_prompt_submit/h:continue(ok)"},
		{name: "rewrite", script: `echo '{"action":"continue","prompt":"hi, in French"}'`, prompt: "hi, in French"},
		{name: "cancel", script: `echo '{"action":"cancel","reason":"no"}'`, want: hooks.PromptResult{Action: hooks.PromptCancel, Reason: "no"}, prompt: "hi"},
		{name: "exit 2", script: `echo 'prompts must be in English' >&2; exit 2`, want: hooks.PromptResult{Action: hooks.PromptCancel, Reason: "prompts must be in English"}, prompt: "hi"},
		{name: "exit 2 silent", script: `exit 2`, want: hooks.PromptResult{Action: hooks.PromptCancel, Reason: `blocked by hook "h" (exit status 2)`}, prompt: "hi"},
		{name: "invalid action", script: `echo '{"action":"skip"}'`, prompt: "hi", err: `invalid action "skip" for on_prompt_submit (want continue or cancel)`},
		{name: "no action", script: `echo '{"prompt":"x"}'`, prompt: "hi", err: `missing "action"`},
		{name: "empty prompt", script: `echo '{"action":"continue","prompt":" "}'`, prompt: "hi", err: `"prompt" is empty`},
		{name: "prompt not a string", script: `echo '{"action":"continue","prompt":1}'`, prompt: "hi", err: "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _ := setup(t, "on_prompt_submit", sh(tt.script))
			in := &hooks.PromptInput{Message: chat.UserMessage("hi")}
			var tr hooktest.Trace
			got := reg.RunPromptSubmit(ctx, in, tr.Record)
			if tt.err != "" {
				contains(t, failure(t, &tr), tt.err)
				tt.want = hooks.PromptResult{} // fails open
			}
			if got != tt.want {
				t.Errorf("result = %+v, want %+v (trace %s)", got, tt.want, &tr)
			}
			if tt.trace != "" && tr.String() != tt.trace {
				t.Errorf("trace %s, want %s", &tr, tt.trace)
			}
			if in.Message.Content != tt.prompt {
				t.Errorf("prompt = %q, want %q", in.Message.Content, tt.prompt)
			}
		})
	}
}

func TestPreLLMRequest(t *testing.T) {
	tests := []struct {
		name, script string
		want         hooks.RequestResult
		err          string
	}{
		{name: "no output", script: `true`},
		{name: "continue", script: `echo '{"action":"continue"}'`},
		{name: "cancel", script: `echo '{"action":"cancel","reason":"over budget"}'`, want: hooks.RequestResult{Action: hooks.RequestCancel, Reason: "over budget"}},
		{name: "exit 2", script: `echo 'over budget' >&2; exit 2`, want: hooks.RequestResult{Action: hooks.RequestCancel, Reason: "over budget"}},
		{name: "invalid action", script: `echo '{"action":"abort"}'`, err: `invalid action "abort" for pre_llm_request`},
		{name: "invalid JSON", script: `echo '{"action":'`, err: "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _ := setup(t, "pre_llm_request", sh(tt.script))
			var tr hooktest.Trace
			got := reg.RunPreLLMRequest(ctx, &hooks.LLMRequestInput{Model: "m", Request: 1}, tr.Record)
			if tt.err != "" {
				contains(t, failure(t, &tr), tt.err)
			}
			if got != tt.want {
				t.Errorf("result = %+v, want %+v (trace %s)", got, tt.want, &tr)
			}
		})
	}
}

func TestPreCompact(t *testing.T) {
	const summary = "Asked: fix the test. Changed: a.go."
	tests := []struct {
		name, script string
		before       string // the summary given to the hook ("" when only pruning)
		want         hooks.CompactResult
		summary      string // the summary afterwards
		err          string
	}{
		{name: "no output", script: `true`, before: summary, summary: summary},
		{name: "continue", script: `echo '{"action":"continue"}'`, before: summary, summary: summary},
		{name: "cancel", script: `echo '{"action":"cancel","reason":"keep everything"}'`, before: summary,
			want: hooks.CompactResult{Action: hooks.CompactCancel, Reason: "keep everything"}, summary: summary},
		{name: "exit 2", script: `echo 'not during a release' >&2; exit 2`, before: summary,
			want: hooks.CompactResult{Action: hooks.CompactCancel, Reason: "not during a release"}, summary: summary},
		{name: "replace summary", script: `jq -c '{action: "continue", summary: (.summary + " Ticket: T-12.")}'`, before: summary,
			summary: summary + " Ticket: T-12."},
		{name: "summary when only pruning", script: `echo '{"action":"continue","summary":"x"}'`},
		{name: "empty summary", script: `echo '{"action":"continue","summary":" "}'`, before: summary, summary: summary, err: `"summary" is empty`},
		{name: "invalid action", script: `echo '{"action":"skip"}'`, before: summary, summary: summary, err: `invalid action "skip" for pre_compact (want continue or cancel)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.script, "jq") {
				needJQ(t)
			}
			reg, _ := setup(t, "pre_compact", sh(tt.script))
			in := &hooks.CompactInput{Trigger: hooks.CompactAuto, Summary: tt.before}
			var tr hooktest.Trace
			got := reg.RunPreCompact(ctx, in, tr.Record)
			if tt.err != "" {
				contains(t, failure(t, &tr), tt.err) // and it fails open
			}
			if got != tt.want {
				t.Errorf("result = %+v, want %+v (trace %s)", got, tt.want, &tr)
			}
			if in.Summary != tt.summary {
				t.Errorf("summary = %q, want %q", in.Summary, tt.summary)
			}
		})
	}
}

func TestPreToolCall(t *testing.T) {
	const args = `{"command":"rm -rf /"}`
	tests := []struct {
		name, script string
		want         hooks.PreToolResult
		args         string // the arguments afterwards
		err          string // the hook fails (and the call is skipped: fail closed)
	}{
		{name: "no output", script: `cat >/dev/null`, args: args},
		{name: "continue", script: `echo '{"action":"continue"}'`, args: args},
		{name: "skip", script: `echo '{"action":"skip","reason":"not here"}'`, want: hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "not here"}, args: args},
		{name: "abort", script: `echo '{"action":"abort","reason":"stop"}'`, want: hooks.PreToolResult{Action: hooks.ToolAbort, Reason: "stop"}, args: args},
		{name: "pause", script: `echo '{"action":"pause","reason":"ask"}'`, want: hooks.PreToolResult{Action: hooks.ToolPause, Reason: "ask"}, args: args},
		{name: "replace arguments", script: `echo '{"action":"continue","arguments":{ "command" : "rm -rf ./tmp" }}'`, args: `{"command":"rm -rf ./tmp"}`},
		{name: "replace arguments and pause", script: `echo '{"action":"pause","arguments":{"command":"ls"}}'`, want: hooks.PreToolResult{Action: hooks.ToolPause}, args: `{"command":"ls"}`},
		{name: "null arguments", script: `echo '{"action":"continue","arguments":null}'`, args: args},
		{name: "exit 2", script: `cat >/dev/null; echo 'rm -rf is not allowed' >&2; exit 2`, want: hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "rm -rf is not allowed"}, args: args},
		{name: "exit 2 ignores stdout", script: `echo '{"action":"continue"}'; echo no >&2; exit 2`, want: hooks.PreToolResult{Action: hooks.ToolSkip, Reason: "no"}, args: args},
		{name: "arguments not an object", script: `echo '{"action":"continue","arguments":"ls"}'`, args: args, err: `"arguments" must be a JSON object`},
		{name: "invalid action", script: `echo '{"action":"finish"}'`, args: args, err: `invalid action "finish" for pre_tool_call (want continue, skip, abort or pause)`},
		{name: "action case", script: `echo '{"action":"Skip"}'`, args: args, err: `invalid action "Skip"`},
		{name: "claude-style output", script: `echo '{"decision":"block","reason":"x"}'`, args: args, err: `missing "action"`},
		{name: "not JSON", script: `echo 'checking...'`, args: args, err: `stdout is not a JSON object (write logs to stderr): "checking..."`},
		{name: "two objects", script: `echo '{"action":"continue"}{"action":"skip"}'`, args: args, err: "unexpected data after the JSON object"},
		{name: "array", script: `echo '[]'`, args: args, err: "not a JSON object"},
		{name: "exit 1", script: `echo 'jq: error' >&2; exit 1`, args: args, err: "exit status 1: jq: error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _ := setup(t, "pre_tool_call", sh(tt.script))
			in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: args}}
			var tr hooktest.Trace
			got, i := reg.RunPreToolCall(ctx, in, 0, tr.Record)
			if tt.err != "" {
				e := failure(t, &tr)
				contains(t, e, tt.err)
				tt.want = hooks.PreToolResult{Action: hooks.ToolSkip, Reason: `hook "h" failed: ` + e}
			}
			if got != tt.want {
				t.Errorf("result = %+v, want %+v (trace %s)", got, tt.want, &tr)
			}
			if wantI := map[bool]int{true: 1, false: 0}[got.Action == hooks.ToolContinue]; i != wantI {
				t.Errorf("index = %d, want %d", i, wantI)
			}
			if in.Call.Arguments != tt.args {
				t.Errorf("arguments = %s, want %s", in.Call.Arguments, tt.args)
			}
		})
	}
}

func TestPostToolCall(t *testing.T) {
	tests := []struct {
		name, script string
		want         hooks.PostToolResult
		content      string
		err          string
		trace        string // if set, the trace
	}{
		{name: "no output", script: `true`, content: "ok\n"},
		{name: "continue", script: `echo '{"action":"continue"}'`, content: "ok\n"},
		{name: "abort", script: `echo '{"action":"abort","reason":"secret in output"}'`, want: hooks.PostToolResult{Action: hooks.PostAbort, Reason: "secret in output"}, content: "ok\n"},
		{name: "replace output", script: `echo '{"action":"continue","output":"[redacted]"}'`, content: "[redacted]"},
		{name: "exit 2 feedback", script: `printf 'lint: a.go:3: unused x\nmore\n' >&2; exit 2`, content: "ok\n\nHook feedback (h): lint: a.go:3: unused x\nmore",
			trace: "post_tool_call/h:continue(lint: a.go:3: unused x …)"},
		{name: "exit 2 silent", script: `exit 2`, content: "ok\n"},
		{name: "invalid action", script: `echo '{"action":"pause","output":"x"}'`, content: "ok\n", err: `invalid action "pause" for post_tool_call (want continue or abort)`},
		{name: "output not a string", script: `echo '{"action":"continue","output":{}}'`, content: "ok\n", err: "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _ := setup(t, "post_tool_call", sh(tt.script))
			in := &hooks.PostToolInput{
				Call:   chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{}`},
				Result: chat.ToolResult{CallID: "c1", Status: chat.StatusOK, Content: "ok\n"},
			}
			var tr hooktest.Trace
			got := reg.RunPostToolCall(ctx, in, tr.Record)
			if tt.err != "" {
				contains(t, failure(t, &tr), tt.err)
			}
			if got != tt.want {
				t.Errorf("result = %+v, want %+v (trace %s)", got, tt.want, &tr)
			}
			if tt.trace != "" && tr.String() != tt.trace {
				t.Errorf("trace %s, want %s", &tr, tt.trace)
			}
			if in.Result.Content != tt.content || in.Result.Status != chat.StatusOK {
				t.Errorf("result = %+v, want content %q", in.Result, tt.content)
			}
		})
	}
}

func TestTurnEnd(t *testing.T) {
	user := chat.UserMessage
	tests := []struct {
		name, script string
		want         hooks.TurnEndResult
		err          string
	}{
		{name: "no output", script: `true`},
		{name: "finish", script: `echo '{"action":"finish","messages":"ignored"}'`},
		{name: "paused", script: `echo '{"action":"paused","reason":"review"}'`, want: hooks.TurnEndResult{Action: hooks.TurnPaused, Reason: "review"}},
		{
			name:   "continue with strings",
			script: `echo '{"action":"continue_with_messages","reason":"tests fail","messages":["FAIL: TestX","try again"]}'`,
			want:   hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Reason: "tests fail", Messages: []chat.Message{user("FAIL: TestX"), user("try again")}},
		},
		{
			name:   "continue with objects",
			script: `echo '{"action":"continue_with_messages","messages":[{"role":"system","content":"be careful"},{"content":"fix it"},"and this"]}'`,
			want: hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{
				{Role: chat.RoleSystem, Content: "be careful"}, user("fix it"), user("and this"),
			}},
		},
		{
			name:   "exit 2 (a Stop hook)",
			script: `echo 'FAIL: TestParse (0.00s)' >&2; echo '    parse_test.go:12: got 1, want 2' >&2; exit 2`,
			want: hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Reason: "FAIL: TestParse (0.00s) …",
				Messages: []chat.Message{user("FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2")}},
		},
		{name: "continue without messages", script: `echo '{"action":"continue_with_messages"}'`, err: `continue_with_messages needs "messages"`},
		{name: "continue with no messages", script: `echo '{"action":"continue_with_messages","messages":[]}'`, err: `continue_with_messages needs "messages"`},
		{name: "empty message", script: `echo '{"action":"continue_with_messages","messages":[""]}'`, err: "messages[0] is empty"},
		{name: "tool role", script: `echo '{"action":"continue_with_messages","messages":[{"role":"tool","content":"x"}]}'`, err: `messages[0]: role "tool"`},
		{name: "number message", script: `echo '{"action":"continue_with_messages","messages":["a",1]}'`, err: `messages[1]: want a string`},
		{name: "invalid action", script: `echo '{"action":"continue"}'`, err: `invalid action "continue" for on_turn_end (want finish, continue_with_messages or paused)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _ := setup(t, "on_turn_end", sh(tt.script))
			var tr hooktest.Trace
			got, _ := reg.RunTurnEnd(ctx, &hooks.TurnEndInput{Final: chat.Message{Role: chat.RoleAssistant, Content: "done"}}, 0, tr.Record)
			if tt.err != "" {
				contains(t, failure(t, &tr), tt.err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if string(gj) != string(wj) {
				t.Errorf("result = %s\nwant     %s\ntrace %s", gj, wj, &tr)
			}
		})
	}
}

func TestAbort(t *testing.T) {
	tests := []struct{ name, script, err string }{
		{name: "stdout is not read", script: `echo 'not JSON'`},
		{name: "exit 2", script: `echo cannot >&2; exit 2`, err: "exit status 2 (an on_abort hook cannot block): cannot"},
		{name: "exit 1", script: `exit 1`, err: "exit status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, dir := setup(t, "on_abort", sh("touch ran; "+tt.script))
			var tr hooktest.Trace
			reg.RunAbort(ctx, &hooks.AbortInput{Reason: "cancelled"}, tr.Record)
			if tt.err != "" {
				contains(t, failure(t, &tr), tt.err)
			} else if got := tr.String(); got != "on_abort/h:done" {
				t.Errorf("trace = %s", got)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
				t.Errorf("the hook did not run: %v", err)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	long := strings.Repeat("x", 10<<10)
	tests := []struct {
		name string
		cmd  command.Command
		err  string
	}{
		{name: "exit 3", cmd: command.Shell(`echo boom >&2; exit 3`), err: "exit status 3: boom"},
		{name: "stderr excerpt is the tail", cmd: command.Shell(`printf '` + long + `' >&2; echo ' the end' >&2; exit 1`), err: "xxx the end"},
		{name: "signal", cmd: command.Shell(`kill -TERM $$`), err: "signal: terminated"},
		// A missing program is refused at registration (validate_test.go);
		// one removed afterwards fails when the hook fires.
		{name: "program removed after registration", cmd: command.Exec("./gone.sh"), err: "cannot start command: fork/exec"},
		{name: "not found in script", cmd: command.Shell(`true && tackle-no-such-program`), err: "exit status 127 (command not found): "},
		{name: "too much output", cmd: command.Shell(`head -c 2000000 /dev/zero`), err: "output too large: stdout exceeds 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			gone := filepath.Join(dir, "gone.sh")
			if err := os.WriteFile(gone, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			reg := hooks.NewRegistry()
			if err := command.Register(reg, "pre_tool_call", command.Spec{Name: "h", Command: tt.cmd}, command.Options{Workdir: dir, Env: testEnv()}); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			var tr hooktest.Trace
			got, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash"}}, 0, tr.Record)
			e := failure(t, &tr)
			contains(t, e, tt.err)
			if tt.name == "stderr excerpt is the tail" {
				contains(t, e, "exit status 1: …xxx")
			}
			if len(e) > 2<<10+100 {
				t.Errorf("error is %d bytes long", len(e))
			}
			if got.Action != hooks.ToolSkip {
				t.Errorf("result = %+v, want skip (fail closed)", got)
			}
		})
	}
}

func TestErrorPolicy(t *testing.T) {
	dir := t.TempDir()
	reg := hooks.NewRegistry()
	opts := command.Options{Workdir: dir, Env: testEnv()}
	if err := command.Register(reg, "pre_tool_call", command.Spec{Name: "lenient", Command: command.Shell("exit 1"), OnError: "open"}, opts); err != nil {
		t.Fatal(err)
	}
	if err := command.Register(reg, "on_turn_end", command.Spec{Name: "strict", Command: command.Shell("exit 1"), OnError: "closed"}, opts); err != nil {
		t.Fatal(err)
	}
	if got, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{}, 0, nil); got.Action != hooks.ToolContinue {
		t.Errorf("on_error open: got %+v", got)
	}
	if got, _ := reg.RunTurnEnd(ctx, &hooks.TurnEndInput{}, 0, nil); got.Action != hooks.TurnPaused {
		t.Errorf("on_error closed: got %+v", got)
	}
}

func TestToolsFilter(t *testing.T) {
	for _, event := range []string{"pre_tool_call", "post_tool_call"} {
		t.Run(event, func(t *testing.T) {
			spec := sh(`touch ran; exit 2`)
			spec.Tools = []string{"write_*", "edit_file"}
			reg, dir := setup(t, event, spec)
			run := func(tool string) string {
				var tr hooktest.Trace
				if event == "pre_tool_call" {
					reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: tool}}, 0, tr.Record)
				} else {
					reg.RunPostToolCall(ctx, &hooks.PostToolInput{Call: chat.ToolCall{Name: tool}}, tr.Record)
				}
				return tr.String()
			}
			mark := filepath.Join(dir, "ran")

			for _, tool := range []string{"bash", "read_file", "write"} {
				if got, want := run(tool), event+"/h:continue"; got != want {
					t.Errorf("%s: trace %s, want %s", tool, got, want)
				}
				if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s: the hook ran (stat: %v)", tool, err)
				}
			}
			for _, tool := range []string{"write_file", "edit_file"} {
				os.Remove(mark)
				run(tool)
				if _, err := os.Stat(mark); err != nil {
					t.Errorf("%s: the hook did not run: %v", tool, err)
				}
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	dump := command.Shell(`env > env.txt`)
	base := append(testEnv(), "OPENAI_API_KEY=sk-secret", "HOME=/home/u", "TACKLE_EVENT=spoofed", "KEEP=1")
	read := func(t *testing.T, spec command.Spec) map[string]string {
		t.Helper()
		dir := t.TempDir()
		reg := hooks.NewRegistry()
		if err := command.Register(reg, "on_prompt_submit", spec, command.Options{Workdir: dir, Env: base}); err != nil {
			t.Fatal(err)
		}
		reg.RunPromptSubmit(ctx, &hooks.PromptInput{}, nil)
		b, err := os.ReadFile(filepath.Join(dir, "env.txt"))
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for line := range strings.Lines(string(b)) {
			k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
			env[k] = v
		}
		return env
	}

	env := read(t, command.Spec{Name: "plain", Command: dump, Env: map[string]string{"HOME": "/tmp/h", "EXTRA": "a=b"}})
	if v, ok := env["OPENAI_API_KEY"]; ok {
		t.Errorf("OPENAI_API_KEY=%s reached the hook", v)
	}
	for k, want := range map[string]string{"HOME": "/tmp/h", "EXTRA": "a=b", "KEEP": "1", "TACKLE_EVENT": "on_prompt_submit", "TACKLE_HOOK_NAME": "plain"} {
		if env[k] != want {
			t.Errorf("%s=%q, want %q", k, env[k], want)
		}
	}

	env = read(t, command.Spec{Name: "keyed", Command: dump, Env: map[string]string{"OPENAI_API_KEY": "sk-for-hook"}})
	if got := env["OPENAI_API_KEY"]; got != "sk-for-hook" {
		t.Errorf("OPENAI_API_KEY=%q, want the spec's", got)
	}
}

func TestArgvRelativeToWorkspace(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s|%s|' \"$1\" \"$PWD\" > out.txt\ncat >> out.txt\n"
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "check.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// Register from another directory: the relative path is the workspace's.
	reg := hooks.NewRegistry()
	spec := command.Spec{Name: "check", Command: command.Exec("./scripts/check.sh", "a b")}
	if err := command.Register(reg, "on_prompt_submit", spec, command.Options{Workdir: dir, Env: testEnv()}); err != nil {
		t.Fatal(err)
	}
	var tr hooktest.Trace
	reg.RunPromptSubmit(ctx, &hooks.PromptInput{Message: chat.UserMessage("p")}, tr.Record)
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil {
		t.Fatalf("%v (trace %s)", err, &tr)
	}
	want := "a b|" + dir + `|{"event":"on_prompt_submit","workspace":"` + dir + `","agent":{"id":"main"},"prompt":"p"}` + "\n"
	if string(b) != want {
		t.Errorf("got  %q\nwant %q", b, want)
	}
}

func TestStderrLog(t *testing.T) {
	var log strings.Builder
	reg := hooks.NewRegistry()
	spec := command.Spec{Name: "fmt", Command: command.Shell(`echo 'formatted a.go' >&2; echo 'formatted b.go' >&2`)}
	if err := command.Register(reg, "on_turn_end", spec, command.Options{Workdir: t.TempDir(), Env: testEnv(), Stderr: &log}); err != nil {
		t.Fatal(err)
	}
	reg.RunTurnEnd(ctx, &hooks.TurnEndInput{}, 0, nil)
	if want := "[hook fmt] formatted a.go\n[hook fmt] formatted b.go\n"; log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
}

// A pre_tool_call command hook that pauses, through a real chain: the
// chain stops at it, and resuming after it runs the hooks that follow.
func TestChainPauseAndResume(t *testing.T) {
	dir := t.TempDir()
	reg := hooks.NewRegistry()
	opts := command.Options{Workdir: dir, Env: testEnv()}
	err := command.RegisterAll(reg, map[string][]command.Spec{
		"pre_tool_call": {
			{Name: "rewrite", Command: command.Shell(`echo '{"action":"continue","arguments":{"command":"go test ./..."}}'`), Priority: 20},
			{Name: "ask", Command: command.Shell(`echo '{"action":"pause","reason":"bash needs approval"}'`), Tools: []string{"bash"}, Priority: 10},
			{Name: "guard", Command: command.Shell(`grep -q '"go test ./..."' || exit 2`), Priority: 30},
		},
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(hooks.PreToolCall), ","); got != "ask,rewrite,guard" {
		t.Fatalf("chain = %s", got)
	}

	in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"go test"}`}}
	var tr hooktest.Trace
	res, i := reg.RunPreToolCall(ctx, in, 0, tr.Record)
	if res.Action != hooks.ToolPause || res.Reason != "bash needs approval" || i != 0 {
		t.Fatalf("got %+v at %d, want pause at 0", res, i)
	}
	res, i = reg.RunPreToolCall(ctx, in, i+1, tr.Record)
	if res.Action != hooks.ToolContinue || i != 3 {
		t.Fatalf("after resume: got %+v at %d", res, i)
	}
	if in.Call.Arguments != `{"command":"go test ./..."}` {
		t.Errorf("arguments = %s", in.Call.Arguments)
	}
	want := "pre_tool_call/ask:pause(bash needs approval) pre_tool_call/rewrite:continue pre_tool_call/guard:continue"
	if tr.String() != want {
		t.Errorf("trace %s\nwant  %s", &tr, want)
	}
}

func TestSpecJSON(t *testing.T) {
	const config = `{"hooks": {
	  "on_turn_end":   [{"name": "tests", "command": ["./scripts/check.sh", "-v"], "timeout": "60s"}],
	  "pre_tool_call": [{"name": "no-rm", "command": "jq -e '.tool_call.name != \"bash\"' >/dev/null || exit 2", "tools": ["bash"], "priority": 10, "on_error": "closed", "env": {"A": "1"}}]
	}}`
	var cfg struct {
		Hooks map[string][]command.Spec `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		t.Fatal(err)
	}
	tests := cfg.Hooks["on_turn_end"][0]
	if strings.Join(tests.Command.Argv, " ") != "./scripts/check.sh -v" || tests.Command.Script != "" || tests.Timeout != "60s" {
		t.Errorf("tests = %+v", tests)
	}
	norm := cfg.Hooks["pre_tool_call"][0]
	if norm.Command.Script != `jq -e '.tool_call.name != "bash"' >/dev/null || exit 2` || norm.Command.Argv != nil ||
		norm.Priority != 10 || norm.OnError != "closed" || norm.Tools[0] != "bash" || norm.Env["A"] != "1" {
		t.Errorf("no-rm = %+v", norm)
	}
	reg := hooks.NewRegistry()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "check.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := command.RegisterAll(reg, cfg.Hooks, command.Options{Workdir: dir}); err != nil {
		t.Fatal(err)
	}
	if reg.Len(hooks.OnTurnEnd) != 1 || reg.Len(hooks.PreToolCall) != 1 {
		t.Errorf("registered %d on_turn_end, %d pre_tool_call", reg.Len(hooks.OnTurnEnd), reg.Len(hooks.PreToolCall))
	}

	// Round trip.
	b, err := json.Marshal(norm)
	if err != nil {
		t.Fatal(err)
	}
	var back command.Spec
	if err := json.Unmarshal(b, &back); err != nil || back.Command.Script != norm.Command.Script {
		t.Errorf("round trip: %s → %+v, %v", b, back, err)
	}

	for _, bad := range []string{`{"name":"x","command":3}`, `{"name":"x","command":["a",1]}`, `{"name":"x","command":{"argv":["a"]}}`} {
		var s command.Spec
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestRegisterValidation(t *testing.T) {
	ok := command.Shell("true")
	tests := []struct {
		event string
		spec  command.Spec
		err   string
	}{
		{"pre_tool", command.Spec{Name: "x", Command: ok}, `command hook "x" (pre_tool): unknown hook event "pre_tool" (want on_prompt_submit, pre_llm_request, pre_tool_call, post_tool_call, on_turn_end, on_abort or pre_compact)`},
		{"on_turn_end", command.Spec{Command: ok}, `command hook (on_turn_end): "name" is required`},
		{"on_turn_end", command.Spec{Name: "x"}, "command is empty"},
		{"on_turn_end", command.Spec{Name: "x", Command: command.Shell("  ")}, "command is empty"},
		{"on_turn_end", command.Spec{Name: "x", Command: command.Exec()}, "command is empty"},
		{"on_turn_end", command.Spec{Name: "x", Command: command.Exec("")}, "program name is empty"},
		{"on_turn_end", command.Spec{Name: "x", Command: command.Command{Argv: []string{"a"}, Script: "b"}}, "not both"},
		{"on_turn_end", command.Spec{Name: "x", Command: ok, Timeout: "6o s"}, `timeout "6o s": time: unknown unit`},
		{"on_turn_end", command.Spec{Name: "x", Command: ok, Timeout: "0s"}, `timeout "0s": must be positive`},
		{"on_turn_end", command.Spec{Name: "x", Command: ok, Timeout: "11m"}, `timeout "11m": must not exceed 10m0s`},
		{"on_turn_end", command.Spec{Name: "x", Command: ok, OnError: "maybe"}, `on_error "maybe": want "open" or "closed"`},
		{"on_abort", command.Spec{Name: "x", Command: ok, OnError: "closed"}, `no meaning for on_abort`},
		{"on_turn_end", command.Spec{Name: "x", Command: ok, Tools: []string{"bash"}}, `"tools" only applies to pre_tool_call and post_tool_call hooks, not on_turn_end`},
		{"pre_tool_call", command.Spec{Name: "x", Command: ok, Tools: []string{"[bash"}}, `tools: bad pattern "[bash"`},
		{"pre_tool_call", command.Spec{Name: "x", Command: ok, Tools: []string{""}}, `tools: bad pattern ""`},
		{"pre_tool_call", command.Spec{Name: "x", Command: ok, Env: map[string]string{"A=B": "1"}}, `env: bad variable name "A=B"`},
		{"pre_tool_call", command.Spec{Name: "x", Command: ok, Env: map[string]string{"TACKLE_HOOK_NAME": "y"}}, `env: TACKLE_HOOK_NAME is set by tackle`},
	}
	for _, tt := range tests {
		reg := hooks.NewRegistry()
		err := command.Register(reg, tt.event, tt.spec, command.Options{Workdir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s %+v: error %v, want %q", tt.event, tt.spec, err, tt.err)
		}
		for _, ev := range []hooks.Event{hooks.OnPromptSubmit, hooks.PreLLMRequest, hooks.PreToolCall, hooks.PostToolCall, hooks.OnTurnEnd, hooks.OnAbort} {
			if reg.Len(ev) != 0 {
				t.Errorf("%+v: a hook was registered for %s", tt.spec, ev)
			}
		}
	}

	// The timeout becomes the Hook's: a hook that outlives it fails.
	reg := hooks.NewRegistry(hooks.WithDefaultTimeout(10 * time.Minute))
	if err := command.Register(reg, "on_turn_end", command.Spec{Name: "slow", Command: command.Shell("exec sleep 100"), Timeout: "100ms"}, command.Options{Workdir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	var tr hooktest.Trace
	reg.RunTurnEnd(ctx, &hooks.TurnEndInput{}, 0, tr.Record)
	contains(t, failure(t, &tr), "timed out after 100ms")
}

func TestRegisterAllErrors(t *testing.T) {
	reg := hooks.NewRegistry()
	err := command.RegisterAll(reg, map[string][]command.Spec{
		"on_turn_end":   {{Name: "ok", Command: command.Shell("true")}, {Name: "tests", Command: command.Shell("true"), Timeout: "soon"}},
		"pre_tool_call": {{Command: command.Shell("true")}},
		"after_tool":    {{Name: "x", Command: command.Shell("true")}},
		"on_abort":      {{Name: "fine", Command: command.Shell("true")}},
	}, command.Options{Workdir: t.TempDir()})
	if err == nil {
		t.Fatal("no error")
	}
	want := `hooks.pre_tool_call[0]: "name" is required
hooks.on_turn_end[1] "tests": timeout "soon": time: invalid duration "soon"
hooks.after_tool: unknown hook event "after_tool" (want on_prompt_submit, pre_llm_request, pre_tool_call, post_tool_call, on_turn_end, on_abort or pre_compact)`
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if n := reg.Len(hooks.OnTurnEnd) + reg.Len(hooks.OnAbort); n != 0 {
		t.Errorf("%d hooks registered despite the errors", n)
	}
}
