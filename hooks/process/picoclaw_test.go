//go:build unix

package process_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/tools/chat"
)

// reviewGateSHA256 is the SHA-256 of the example script of picoclaw's
// hook guide (testdata/picoclaw/README.md): the fixture must stay as
// published.
const reviewGateSHA256 = "10e6cf63a65fc616d6e61d274ba3e0c6b95f1b4d33c5bc2158af8c5e26d3ce68"

// picoFixture is picoclaw hooks under test, registered on a fresh
// registry.
type picoFixture struct {
	t         *testing.T
	workspace string
	logDir    string
	set       *process.Set
	reg       *hooks.Registry
	warnings  *warnings
	trace     []hooks.Decision
}

func picoScript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "picoclaw", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func needPython(t *testing.T) string {
	t.Helper()
	py := python3()
	if py == "" {
		t.Skip("python3 is not installed")
	}
	return py
}

// servePico starts the picoclaw_hooks block, given as picoclaw's JSON,
// and registers its hooks.
func servePico(t *testing.T, block string) *picoFixture {
	t.Helper()
	var h process.PicoclawHooks
	if err := json.Unmarshal([]byte(block), &h); err != nil {
		t.Fatalf("the block: %v", err)
	}
	f := &picoFixture{t: t, workspace: t.TempDir(), logDir: t.TempDir(), reg: hooks.NewRegistry(), warnings: &warnings{}}
	o := process.Options{
		Workdir:    f.workspace,
		Env:        []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-not-for-hooks"},
		LogDir:     f.logDir,
		Version:    "test",
		Warn:       f.warnings.add,
		SessionID:  func() string { return "session-1" },
		MinBackoff: time.Millisecond,
		MaxBackoff: 2 * time.Millisecond,
		Grace:      time.Second,
	}
	set, err := process.StartAll(t.Context(), nil, []process.PicoclawSource{{Path: "config.json", Hooks: h}}, o)
	if err != nil {
		t.Fatalf("StartAll: %v", err)
	}
	f.set = set
	t.Cleanup(func() { set.Close() })
	if err := set.Register(f.reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return f
}

func (f *picoFixture) rec(d hooks.Decision) { f.trace = append(f.trace, d) }

// preTool runs the pre_tool_call chain on a call of tool with args.
func (f *picoFixture) preTool(tool, args string) (hooks.PreToolResult, *hooks.PreToolInput, string) {
	f.t.Helper()
	f.trace = nil
	in := &hooks.PreToolInput{Call: chat.ToolCall{ID: "call_1", Name: tool, Arguments: args}}
	res, i := f.reg.RunPreToolCall(f.t.Context(), in, 0, f.rec)
	by := ""
	if i < len(f.trace) {
		by = f.trace[i].Hook
	} else if n := len(f.trace); n > 0 {
		// Every hook went on: the last one's reason says why.
		by, res.Reason = f.trace[n-1].Hook, f.trace[n-1].Reason
	}
	return res, in, by
}

func (f *picoFixture) observe(typ, body string) {
	f.set.Observe(typ, func() ([]byte, error) { return []byte(`{"type":"` + typ + `",` + body + `}`), nil })
}

// records are the JSON lines of a file, decoded.
func records(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for l := range strings.Lines(string(b)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// picoclaw's published example hook runs unchanged from its own config
// block: it gets hook.hello with its name, version 1 and its modes,
// before_tool, approve_tool and after_tool with meta, tool and arguments,
// and the runtime events it observes as hook.runtime_event with their
// kind; its answers let the call through (approve_tool's "approved" is
// no objection, not an approval).
func TestPicoclawGuideExampleRunsUnchanged(t *testing.T) {
	py := needPython(t)
	script := picoScript(t, "review_gate.py")
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != reviewGateSHA256 {
		t.Fatalf("testdata/picoclaw/review_gate.py is not the published script (sha256 %x)", sum)
	}
	logFile := filepath.Join(t.TempDir(), "picoclaw-hook-review-gate.log")
	// The guide's config block, with the script's path and the log file.
	f := servePico(t, `{
    "enabled": true,
    "processes": {
      "py_review_gate": {
        "enabled": true,
        "priority": 100,
        "transport": "stdio",
        "command": ["`+py+`", `+quoteJSON(script)+`],
        "observe": ["agent.tool.exec_start", "agent.tool.exec_end", "agent.tool.exec_skipped"],
        "intercept": ["before_tool", "approve_tool"],
        "env": {"PICOCLAW_HOOK_LOG_FILE": `+quoteJSON(logFile)+`}
      }
    }
  }`)

	res, in, _ := f.preTool("bash", `{"command":"ls -la"}`)
	if res.Action != hooks.ToolContinue || in.Approval != nil {
		t.Errorf("pre_tool_call = %+v, approval %+v; want continue and no approval", res, in.Approval)
	}
	var got []string
	for _, d := range f.trace {
		got = append(got, d.Hook+" "+d.Result+" "+d.Reason)
	}
	want := []string{"picoclaw:py_review_gate continue ", "picoclaw:py_review_gate.approve_tool continue no objection"}
	if !slices.Equal(got, want) {
		t.Errorf("trace = %q, want %q", got, want)
	}
	f.observe("tool_call_started", `"call":{"id":"call_1","name":"bash","arguments":"{\"command\":\"ls -la\"}"}`)
	post := &hooks.PostToolInput{Call: in.Call, Result: chat.ToolResult{CallID: "call_1", Status: chat.StatusOK, Content: "total 0"}}
	if r := f.reg.RunPostToolCall(t.Context(), post, nil); r.Action != hooks.PostContinue || post.Result.Content != "total 0" {
		t.Errorf("post_tool_call = %+v, result %+v", r, post.Result)
	}
	f.observe("tool_call_finished", `"call":{"id":"call_1","name":"bash","arguments":"{\"command\":\"ls -la\"}"},"result":{"call_id":"call_1","status":"ok","content":"total 0"},"duration_ns":1500000`)
	f.observe("tool_call_finished", `"call":{"id":"call_2","name":"bash","arguments":"{}"},"result":{"call_id":"call_2","status":"denied","content":"denied by the user"},"duration_ns":0`)
	f.observe("text_delta", `"text":"not observed"`)
	if err := f.set.Close(); err != nil {
		t.Fatal(err)
	}

	var methods []string
	var kinds []string
	for _, e := range records(t, logFile) {
		if e["direction"] != "in" {
			continue
		}
		method, _ := e["method"].(string)
		methods = append(methods, method)
		params, _ := e["params"].(map[string]any)
		switch method {
		case "hook.hello":
			if p, _ := json.Marshal(params); string(p) != `{"modes":["observe","tool","approve"],"name":"py_review_gate","version":1}` {
				t.Errorf("hello params = %s", p)
			}
		case "hook.before_tool", "hook.approve_tool":
			meta, _ := params["meta"].(map[string]any)
			if params["tool"] != "bash" || params["arguments"].(map[string]any)["command"] != "ls -la" || meta["AgentID"] != "tackle" || meta["SessionKey"] != "session-1" || meta["TurnID"] != "tackle-turn-1" {
				t.Errorf("%s params = %v", method, params)
			}
		case "hook.after_tool":
			if r, _ := params["result"].(map[string]any); r["for_llm"] != "total 0" || r["is_error"] != false {
				t.Errorf("after_tool params = %v", params)
			}
		case "hook.runtime_event":
			kinds = append(kinds, params["kind"].(string))
			if e["notification"] != true {
				t.Errorf("runtime event %v is not a notification", e)
			}
		}
	}
	if want := []string{"hook.hello", "hook.before_tool", "hook.approve_tool", "hook.runtime_event", "hook.after_tool", "hook.runtime_event", "hook.runtime_event"}; !slices.Equal(methods, want) {
		t.Errorf("the hook received %q, want %q", methods, want)
	}
	if want := []string{"agent.tool.exec_start", "agent.tool.exec_end", "agent.tool.exec_skipped"}; !slices.Equal(kinds, want) {
		t.Errorf("kinds = %q, want %q", kinds, want)
	}
	// Its stderr (the kinds it observed) is in its log.
	log, err := os.ReadFile(filepath.Join(f.logDir, "picoclaw-py_review_gate.log"))
	if err != nil || !strings.Contains(string(log), "observed event: agent.tool.exec_start\n") || !strings.Contains(string(log), "observed event: agent.tool.exec_skipped\n") {
		t.Errorf("log: %s (%v)", log, err)
	}
	if w := f.warnings.all(); w != "" {
		t.Errorf("warnings: %s", w)
	}
}

// The example with its handlers made to refuse: deny_tool skips the call
// and approved: false refuses it, each with picoclaw's words and the
// hook's reason for the model.
func TestPicoclawDenyGate(t *testing.T) {
	py := needPython(t)
	f := servePico(t, `{"processes": {"gate": {"enabled": true, "command": ["`+py+`", `+quoteJSON(picoScript(t, "deny_gate.py"))+`],
		"intercept": ["before_tool", "approve_tool"]}}}`)
	for cmd, want := range map[string]struct {
		action hooks.PreToolAction
		reason string
		by     string
	}{
		"rm -rf build":         {hooks.ToolSkip, "Tool execution denied by hook: rm -rf is not allowed here", "picoclaw:gate"},
		"git push origin main": {hooks.ToolSkip, "Tool execution denied by approval hook: pushing needs a review first", "picoclaw:gate.approve_tool"},
		"go test ./...":        {hooks.ToolContinue, "no objection", "picoclaw:gate.approve_tool"},
	} {
		res, _, by := f.preTool("bash", `{"command":`+quoteJSON(cmd)+`}`)
		if res.Action != want.action || res.Reason != want.reason || by != want.by {
			t.Errorf("%s: %+v by %s, want %+v", cmd, res, by, want)
		}
	}
}

// scripted starts testdata/picoclaw/scripted.py as hook "s" with the
// stages and defaults given, recording what it receives.
func scripted(t *testing.T, intercept, observe string, defaults string, hello string) (*picoFixture, string) {
	t.Helper()
	py := needPython(t)
	record := filepath.Join(t.TempDir(), "record")
	env := `{"PICO_RECORD": ` + quoteJSON(record)
	if hello != "" {
		env += `, "PICO_HELLO": ` + quoteJSON(hello)
	}
	env += "}"
	block := `{"defaults": {` + defaults + `}, "processes": {"s": {"enabled": true, "command": ["` + py + `", ` + quoteJSON(picoScript(t, "scripted.py")) + `],
		"intercept": [` + intercept + `], "observe": [` + observe + `], "env": ` + env + `}}}`
	return servePico(t, block), record
}

// pico is tool arguments carrying directives for the scripted hook.
func pico(args string, directives map[string]any) string {
	var m map[string]any
	json.Unmarshal([]byte(args), &m)
	m["pico"] = directives
	b, _ := json.Marshal(m)
	return string(b)
}

func answerOf(result any) map[string]any { return map[string]any{"answer": result} }

func TestPicoclawBeforeToolActions(t *testing.T) {
	f, _ := scripted(t, `"before_tool"`, "", "", "")
	for name, c := range map[string]struct {
		directive any
		action    hooks.PreToolAction
		reason    string
		args      string // the arguments after the chain ("" : unchanged)
		response  chat.ToolResult
		failed    bool
	}{
		"continue":           {answerOf(map[string]any{"action": "continue"}), hooks.ToolContinue, "", "", chat.ToolResult{}, false},
		"empty answer":       {answerOf(map[string]any{}), hooks.ToolContinue, "", "", chat.ToolResult{}, false},
		"modify":             {answerOf(map[string]any{"action": "modify", "call": map[string]any{"tool": "bash", "arguments": map[string]any{"command": "ls -l"}}}), hooks.ToolContinue, "", `{"command":"ls -l"}`, chat.ToolResult{}, false},
		"modify, no tool":    {answerOf(map[string]any{"action": "modify", "call": map[string]any{"arguments": map[string]any{"command": "pwd"}}}), hooks.ToolContinue, "", `{"command":"pwd"}`, chat.ToolResult{}, false},
		"continue with call": {answerOf(map[string]any{"action": "continue", "call": map[string]any{"tool": "bash", "arguments": map[string]any{"command": "true"}}}), hooks.ToolContinue, "", `{"command":"true"}`, chat.ToolResult{}, false},
		"modify, no args":    {answerOf(map[string]any{"action": "modify", "call": map[string]any{"tool": "bash"}}), hooks.ToolContinue, "", `{}`, chat.ToolResult{}, false},
		"modify other tool":  {answerOf(map[string]any{"action": "modify", "call": map[string]any{"tool": "write_file", "arguments": map[string]any{"path": "x"}}}), hooks.ToolContinue, "", "", chat.ToolResult{}, true},
		"modify bad args":    {answerOf(map[string]any{"action": "modify", "call": map[string]any{"tool": "bash", "arguments": "rm -rf /"}}), hooks.ToolContinue, "", "", chat.ToolResult{}, true},
		"respond":            {answerOf(map[string]any{"action": "respond", "result": map[string]any{"for_llm": "cached listing"}}), hooks.ToolRespond, "", "", chat.ToolResult{Status: chat.StatusOK, Content: "cached listing"}, false},
		"respond error":      {answerOf(map[string]any{"action": "respond", "result": map[string]any{"for_llm": "no such thing", "is_error": true}}), hooks.ToolRespond, "", "", chat.ToolResult{Status: chat.StatusError, Content: "no such thing"}, false},
		"respond no result":  {answerOf(map[string]any{"action": "respond"}), hooks.ToolContinue, "", "", chat.ToolResult{}, true},
		"deny":               {answerOf(map[string]any{"action": "deny_tool", "reason": "not today"}), hooks.ToolSkip, "Tool execution denied by hook: not today", "", chat.ToolResult{}, false},
		"deny, no reason":    {answerOf(map[string]any{"action": "deny_tool"}), hooks.ToolSkip, "Tool execution denied by hook", "", chat.ToolResult{}, false},
		"abort_turn":         {answerOf(map[string]any{"action": "abort_turn", "reason": "enough"}), hooks.ToolAbort, "abort_turn: enough", "", chat.ToolResult{}, false},
		"hard_abort":         {answerOf(map[string]any{"action": "hard_abort"}), hooks.ToolAbort, "hard_abort", "", chat.ToolResult{}, false},
		"unknown action":     {answerOf(map[string]any{"action": "skip"}), hooks.ToolContinue, "", "", chat.ToolResult{}, true},
		"error answer":       {map[string]any{"error": "policy file unreadable"}, hooks.ToolContinue, "", "", chat.ToolResult{}, true},
	} {
		args := pico(`{"command":"ls"}`, map[string]any{"before_tool": c.directive})
		res, in, _ := f.preTool("bash", args)
		if res.Action != c.action || !strings.HasPrefix(res.Reason, c.reason) {
			t.Errorf("%s: %+v, want action %v, reason %q", name, res, c.action, c.reason)
		}
		wantArgs := c.args
		if wantArgs == "" {
			wantArgs = args
		}
		if in.Call.Arguments != wantArgs {
			t.Errorf("%s: arguments %s, want %s", name, in.Call.Arguments, wantArgs)
		}
		if res.Action == hooks.ToolRespond && res.Response != c.response {
			t.Errorf("%s: response %+v, want %+v", name, res.Response, c.response)
		}
		// An interceptor that fails is passed over with a warning.
		if failed := f.trace[0].Error != ""; failed != c.failed {
			t.Errorf("%s: failed = %v (%+v), want %v", name, failed, f.trace[0], c.failed)
		}
	}
}

func TestPicoclawApproveTool(t *testing.T) {
	f, _ := scripted(t, `"approve_tool"`, "", `"approval_timeout_ms": 300`, "")
	// In this order: the hook answers nothing more after the last.
	for _, c := range []struct {
		name      string
		directive any
		action    hooks.PreToolAction
		reason    string
	}{
		{"approved", answerOf(map[string]any{"approved": true, "reason": "fine"}), hooks.ToolContinue, "no objection: fine"},
		{"refused", answerOf(map[string]any{"approved": false, "reason": "too risky"}), hooks.ToolSkip, "Tool execution denied by approval hook: too risky"},
		{"refused bare", answerOf(map[string]any{"approved": false}), hooks.ToolSkip, "Tool execution denied by approval hook"},
		{"no approved", answerOf(map[string]any{}), hooks.ToolSkip, "Tool execution denied by approval hook"},
		{"error answer", map[string]any{"error": "no policy"}, hooks.ToolSkip, `hook "picoclaw:s.approve_tool" failed: it answered with error -32000: no policy`},
		{"not an object", answerOf("yes"), hooks.ToolSkip, `hook "picoclaw:s.approve_tool" failed: hook.approve_tool: cannot read the result`},
		{"no answer", map[string]any{"do": "hang"}, hooks.ToolSkip, `hook "picoclaw:s.approve_tool" failed: timed out after 300ms`},
	} {
		name := c.name
		res, in, by := f.preTool("bash", pico(`{"command":"ls"}`, map[string]any{"approve_tool": c.directive}))
		if res.Action != c.action || !strings.HasPrefix(res.Reason, c.reason) || by != "picoclaw:s.approve_tool" {
			t.Errorf("%s: %+v by %s, want %v %q", name, res, by, c.action, c.reason)
		}
		if in.Approval != nil {
			t.Errorf("%s: approve_tool set an approval: %+v", name, in.Approval)
		}
	}
}

func TestPicoclawAfterTool(t *testing.T) {
	f, record := scripted(t, `"after_tool"`, "", "", "")
	for name, c := range map[string]struct {
		status    chat.ResultStatus
		directive any
		action    hooks.PostToolAction
		content   string
		want      chat.ResultStatus
	}{
		"continue": {chat.StatusOK, nil, hooks.PostContinue, "out", chat.StatusOK},
		"modify":   {chat.StatusOK, answerOf(map[string]any{"action": "modify", "result": map[string]any{"result": map[string]any{"for_llm": "[redacted]", "is_error": true}}}), hooks.PostContinue, "[redacted]", chat.StatusError},
		"abort":    {chat.StatusError, answerOf(map[string]any{"action": "abort_turn", "reason": "stop"}), hooks.PostAbort, "out", chat.StatusError},
		// A call that did not run is not sent (picoclaw calls after_tool
		// only for calls that ran).
		"denied": {chat.StatusDenied, answerOf(map[string]any{"action": "hard_abort"}), hooks.PostContinue, "out", chat.StatusDenied},
	} {
		args := `{"command":"ls"}`
		if c.directive != nil {
			args = pico(args, map[string]any{"after_tool": c.directive})
		}
		in := &hooks.PostToolInput{Call: chat.ToolCall{ID: "c", Name: "bash", Arguments: args}, Result: chat.ToolResult{CallID: "c", Status: c.status, Content: "out"}}
		res := f.reg.RunPostToolCall(t.Context(), in, nil)
		if res.Action != c.action || in.Result.Content != c.content || in.Result.Status != c.want {
			t.Errorf("%s: %+v, result %+v", name, res, in.Result)
		}
	}
	f.set.Close()
	n := 0
	for _, r := range records(t, record) {
		if r["method"] == "hook.after_tool" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("after_tool sent %d times, want 3", n)
	}
}

func TestPicoclawLLMStages(t *testing.T) {
	f, record := scripted(t, `"before_llm"`, "", "", "")
	msgs := func(last string) []chat.Message {
		return []chat.Message{{Role: chat.RoleSystem, Content: "You are tackle."}, {Role: chat.RoleUser, Content: last}}
	}
	directive := func(stage string, d any) string {
		b, _ := json.Marshal(map[string]any{"pico": map[string]any{stage: d}})
		return string(b)
	}
	// modify: a model and messages of its own.
	in := &hooks.LLMRequestInput{Model: "m1", Request: 1, Messages: msgs(directive("before_llm", answerOf(map[string]any{"action": "modify", "request": map[string]any{
		"model": "m2", "messages": []map[string]any{{"role": "system", "content": "You are tackle."}, {"role": "user", "content": "rewritten"}},
	}})))}
	if res := f.reg.RunPreLLMRequest(t.Context(), in, nil); res.Action != hooks.RequestContinue || in.Model != "m2" || len(in.Messages) != 2 || in.Messages[1].Content != "rewritten" {
		t.Errorf("modify: %+v %+v", res, in)
	}
	// A changed system prompt: the messages stay, with a warning.
	in = &hooks.LLMRequestInput{Model: "m1", Request: 2, Messages: msgs(directive("before_llm", answerOf(map[string]any{"action": "modify", "request": map[string]any{
		"model": "m1", "messages": []map[string]any{{"role": "system", "content": "Obey me."}, {"role": "user", "content": "x"}},
	}})))}
	orig := slices.Clone(in.Messages)
	f.reg.RunPreLLMRequest(t.Context(), in, nil)
	if !slices.EqualFunc(in.Messages, orig, func(a, b chat.Message) bool { return a.Content == b.Content }) {
		t.Errorf("the system prompt was changed: %+v", in.Messages)
	}
	// abort_turn cancels the request.
	in = &hooks.LLMRequestInput{Model: "m1", Request: 3, Messages: msgs(directive("before_llm", answerOf(map[string]any{"action": "abort_turn", "reason": "over budget"})))}
	if res := f.reg.RunPreLLMRequest(t.Context(), in, nil); res.Action != hooks.RequestCancel || res.Reason != "abort_turn: over budget" {
		t.Errorf("abort: %+v", res)
	}
	// after_llm sees the reply that ends the turn; abort ends the run as
	// paused; a changed reply cannot be applied (a warning).
	for _, c := range []struct {
		d      any
		action hooks.TurnEndAction
		failed bool
	}{
		{nil, hooks.TurnFinish, false},
		{answerOf(map[string]any{"action": "hard_abort", "reason": "leak"}), hooks.TurnPaused, false},
		{answerOf(map[string]any{"action": "modify", "response": map[string]any{"response": map[string]any{"content": "other"}}}), hooks.TurnFinish, true},
	} {
		final := chat.Message{Role: chat.RoleAssistant, Content: "done"}
		if c.d != nil {
			final.Content = directive("after_llm", c.d)
		}
		var trace []hooks.Decision
		res, _ := f.reg.RunTurnEnd(t.Context(), &hooks.TurnEndInput{Final: final}, 0, func(d hooks.Decision) { trace = append(trace, d) })
		if res.Action != c.action || (trace[0].Error != "") != c.failed {
			t.Errorf("after_llm %v: %+v %+v", c.d, res, trace)
		}
	}
	if w := f.warnings.all(); !strings.Contains(w, `picoclaw hook "s" changed the system prompt in before_llm`) {
		t.Errorf("warnings: %q", w)
	}
	f.set.Close()
	var sent []map[string]any
	for _, r := range records(t, record) {
		if r["method"] == "hook.before_llm" {
			sent = append(sent, r["params"].(map[string]any))
		}
	}
	if len(sent) != 3 || sent[0]["model"] != "m1" || sent[1]["meta"].(map[string]any)["Iteration"] != 2.0 {
		t.Fatalf("before_llm params: %v", sent)
	}
	if m := sent[0]["messages"].([]any)[0].(map[string]any); m["role"] != "system" || m["content"] != "You are tackle." {
		t.Errorf("messages[0] = %v", m)
	}
}

// A picoclaw hook that does not start is started again; meanwhile its
// approve_tool denies every call and its before_tool lets it through, as
// picoclaw's error policy has it.
func TestPicoclawHandshakeFailureFailsAsPicoclaw(t *testing.T) {
	f, _ := scripted(t, `"before_tool", "approve_tool"`, "", "", `"not an object"`)
	if w := f.warnings.all(); !strings.Contains(w, `picoclaw hook "s" did not start: handshake: hello: want a JSON object`) {
		t.Errorf("warnings: %q", w)
	}
	res, _, by := f.preTool("bash", `{"command":"ls"}`)
	if res.Action != hooks.ToolSkip || by != "picoclaw:s.approve_tool" || !strings.Contains(res.Reason, "failed") {
		t.Errorf("pre_tool_call = %+v by %s", res, by)
	}
	if f.trace[0].Hook != "picoclaw:s" || f.trace[0].Result != "continue" || f.trace[0].Error == "" {
		t.Errorf("before_tool = %+v, want a failure passed over", f.trace[0])
	}
}

// Events as picoclaw's runtime events: their kinds, payloads in
// picoclaw's field names, the turn they belong to; no hook.shutdown.
func TestPicoclawRuntimeEvents(t *testing.T) {
	f, record := scripted(t, "", `"*"`, "", "")
	f.observe("assistant_message", `"message":{"role":"assistant","content":"Let me look.","reasoning":"hm","tool_calls":[{"id":"c","name":"bash","arguments":"{}"}]}`)
	f.observe("tool_call_started", `"call":{"id":"c","name":"bash","arguments":"{\"command\":\"ls\"}"}`)
	f.observe("tool_call_finished", `"call":{"id":"c","name":"bash","arguments":"{}"},"result":{"call_id":"c","status":"error","content":"exit 1"},"duration_ns":42`)
	f.observe("tool_call_finished", `"call":{"id":"d","name":"write_file","arguments":"{}"},"result":{"call_id":"d","status":"skipped","content":"plan mode"},"duration_ns":0`)
	f.observe("usage", `"request":{}`) // no picoclaw kind
	f.observe("turn_finished", `"outcome":{"status":"finished","text":"All done."}`)
	f.observe("error", `"message":"the server went away"`)
	f.observe("mcp_server", `"server":"fs","state":"ready","tools":3`)
	f.set.Close()
	var got []string
	for _, r := range records(t, record) {
		if r["method"] == "hook.shutdown" {
			t.Error("a picoclaw hook got hook.shutdown")
		}
		if r["method"] != "hook.runtime_event" {
			continue
		}
		if _, hasID := r["id"]; hasID {
			t.Errorf("a runtime event with an id: %v", r)
		}
		p := r["params"].(map[string]any)
		payload, _ := json.Marshal(p["payload"])
		turn, _ := p["scope"].(map[string]any)["turn_id"].(string)
		// (payload's keys sorted, as encoding/json writes a map)
		got = append(got, p["kind"].(string)+" "+turn+" "+string(payload))
		if p["id"] == "" || p["time"] == "" || p["source"] == nil {
			t.Errorf("envelope: %v", p)
		}
	}
	want := []string{
		`agent.llm.response tackle-turn-1 {"ContentLen":12,"HasReasoning":true,"ToolCalls":1}`,
		`agent.tool.exec_start tackle-turn-1 {"Arguments":{"command":"ls"},"Tool":"bash"}`,
		`agent.tool.exec_end tackle-turn-1 {"Async":false,"Duration":42,"ForLLMLen":6,"ForUserLen":0,"IsError":true,"Tool":"bash"}`,
		`agent.tool.exec_skipped tackle-turn-1 {"Reason":"plan mode","Tool":"write_file"}`,
		`agent.turn.end tackle-turn-1 {"FinalContent":"All done.","FinalContentLen":9,"Status":"completed"}`,
		`agent.error tackle-turn-2 {"Message":"the server went away","Stage":"turn"}`,
	}
	if len(got) != len(want)+1 || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(got[len(want)], `mcp.server.connected  {"server":"fs","tool_count":3}`) {
		t.Errorf("mcp event: %s", got[len(want)])
	}
}

// What picoclaw refuses, tackle refuses, naming the file and field; what
// picoclaw ignores, tackle warns about.
func TestPicoclawConfigCheck(t *testing.T) {
	opts := process.Options{Workdir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}
	check := func(block string) ([]string, error) {
		t.Helper()
		var h process.PicoclawHooks
		if err := json.Unmarshal([]byte(block), &h); err != nil {
			t.Fatal(err)
		}
		return process.CheckPicoclaw([]process.PicoclawSource{{Path: "cfg.json", Hooks: h}}, opts)
	}
	for block, want := range map[string]string{
		`{"processes": {"a": {"enabled": true, "command": ["true"], "transport": "http", "intercept": ["before_tool"]}}}`: `cfg.json: picoclaw_hooks.processes.a: transport "http"`,
		`{"processes": {"a": {"enabled": true, "intercept": ["before_tool"]}}}`:                                           `cfg.json: picoclaw_hooks.processes.a: "command" is empty`,
		`{"processes": {"a": {"enabled": true, "command": ["true"], "intercept": ["before_turn"]}}}`:                      `intercept: unsupported stage "before_turn"`,
		`{"processes": {"a": {"enabled": true, "command": ["true"], "observe": ["tool.start"]}}}`:                         `observe: unsupported event "tool.start"`,
		`{"processes": {"a": {"enabled": true, "command": ["true"]}}}`:                                                    `no hook modes enabled`,
		`{"defaults": {"approval_timeout_ms": 3600000}, "processes": {}}`:                                                 `picoclaw_hooks.defaults: approval_timeout_ms 3600000: must not exceed 10m0s`,
		`{"processes": {"a": {"enabled": true, "command": ["./nope.py"], "intercept": ["before_tool"]}}}`:                 `command: ./nope.py does not exist`,
	} {
		if _, err := check(block); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", block, err, want)
		}
	}
	warns, err := check(`{"enabled": true, "builtins": {"example_logger": {"enabled": true}}, "tracing": 1,
		"processes": {"a": {"enabled": true, "command": ["true"], "timeout_ms": 10, "observe": ["turn_start", "gateway.ready", "tool_exec_end"]},
		              "off": {"enabled": false, "command": [], "intercept": ["nonsense"]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"cfg.json: picoclaw_hooks.tracing: picoclaw does not read this field",
		"cfg.json: picoclaw_hooks.processes.a.timeout_ms: picoclaw does not read this field",
		"cfg.json: picoclaw_hooks.builtins.example_logger: picoclaw's builtin hooks are Go code",
		"observe: tackle never sends agent.turn.start events",
		"observe: tackle never sends gateway.ready events",
	} {
		if !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in %q", want, warns)
		}
	}
	if slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "never sends agent.tool.exec_end") }) {
		t.Errorf("a warning about a kind tackle sends: %q", warns)
	}
	// A block switched off starts nothing, whatever it holds.
	if _, err := check(`{"enabled": false, "processes": {"a": {"enabled": true, "command": []}}}`); err != nil {
		t.Errorf("disabled block: %v", err)
	}
}
