package claude

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// fixture is a Set of inline bash hooks on a registry, in a temporary
// workspace, collecting warnings.
type fixture struct {
	t    *testing.T
	root string
	reg  *hooks.Registry
	set  *Set
	mu   sync.Mutex
	warn []string
}

func newFixture(t *testing.T, byEvent map[string][]Group) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir(), reg: hooks.NewRegistry()}
	set, err := New([]Source{{Path: "test.json", Settings: Settings{Hooks: byEvent}}}, Options{
		Workspace: f.root,
		Env:       []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-secret"},
		SessionID: func() string { return "sess-1" },
		Mode:      func() string { return "accept-edits" },
		Warn: func(m string) {
			f.mu.Lock()
			f.warn = append(f.warn, m)
			f.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.set = set
	set.Register(f.reg)
	return f
}

func cmd(matcher string, commands ...string) Group {
	g := Group{Matcher: matcher}
	for _, c := range commands {
		g.Hooks = append(g.Hooks, Command{Type: "command", Command: c, Timeout: 10})
	}
	return g
}

// pre runs the pre_tool_call chain; a Continue's result carries the
// reason the hook gave its decision (its log line).
func (f *fixture) pre(call chat.ToolCall) (hooks.PreToolResult, *hooks.PreToolInput) {
	in := &hooks.PreToolInput{Call: call}
	var reason string
	res, _ := f.reg.RunPreToolCall(context.Background(), in, 0, func(d hooks.Decision) { reason = d.Reason })
	if res.Action == hooks.ToolContinue {
		res.Reason = reason
	}
	return res, in
}

func bash(c string) chat.ToolCall {
	b, _ := json.Marshal(map[string]any{"command": c})
	return chat.ToolCall{ID: "call_1", Name: "bash", Arguments: string(b)}
}

func TestMatcher(t *testing.T) {
	for _, tt := range []struct {
		matcher, tool string
		want          bool
	}{
		{"", "Bash", true}, {"*", "Write", true}, {"Bash", "Bash", true},
		{"Ba", "Bash", false}, {"Edit|Write", "Write", true}, {"Edit|Write", "Read", false},
		{"mcp__.*", "mcp__git__status", true}, {"Write", "NotWrite", false},
	} {
		re, err := compileMatcher(tt.matcher)
		if err != nil {
			t.Fatal(err)
		}
		h := &hook{matcher: re}
		if got := h.matches(tt.tool); got != tt.want {
			t.Errorf("matcher %q, tool %s: got %v", tt.matcher, tt.tool, got)
		}
	}
	if _, err := New([]Source{{Path: "s.json", Settings: Settings{Hooks: map[string][]Group{PreToolUse: {cmd("(", "true")}}}}}, Options{}); err == nil || !strings.Contains(err.Error(), "s.json: hooks.PreToolUse[0].matcher") {
		t.Errorf("bad matcher: %v", err)
	}
}

func TestToolMapping(t *testing.T) {
	root := "/w"
	for _, tt := range []struct{ tool, args, name, input string }{
		{"bash", `{"command":"ls","timeout_ms":5000}`, "Bash", `{"command":"ls","timeout":5000}`},
		{"read_file", `{"path":"a.go","offset":3}`, "Read", `{"file_path":"/w/a.go","offset":3}`},
		{"write_file", `{"path":"a.go","content":"x"}`, "Write", `{"content":"x","file_path":"/w/a.go"}`},
		{"edit_file", `{"path":"a.go","old_string":"a","new_string":"b"}`, "Edit", `{"file_path":"/w/a.go","new_string":"b","old_string":"a"}`},
		{"list_dir", `{}`, "LS", `{"path":"/w"}`},
		{"glob", `{"pattern":"**/*.go"}`, "Glob", `{"pattern":"**/*.go"}`},
		{"grep", `{"pattern":"x","include":"*.go","ignore_case":true}`, "Grep", `{"-i":true,"glob":"*.go","pattern":"x"}`},
		{"mcp__git__status", `{"repo":"."}`, "mcp__git__status", `{"repo":"."}`},
	} {
		if got := claudeName(tt.tool); got != tt.name {
			t.Errorf("%s: name %s", tt.tool, got)
		}
		in := claudeInput(tt.tool, tt.args, root)
		if string(in) != tt.input {
			t.Errorf("%s: input %s, want %s", tt.tool, in, tt.input)
		}
		var m map[string]any
		json.Unmarshal(in, &m)
		back, _ := tackleArgs(tt.tool, m, root)
		var a, b any
		json.Unmarshal([]byte(back), &a)
		json.Unmarshal([]byte(tt.args), &b)
		if tt.tool != "list_dir" && !jsonEqual(a, b) {
			t.Errorf("%s: back %s, want %s", tt.tool, back, tt.args)
		}
	}
	// Fields tackle's tools lack are dropped; a path outside stays absolute.
	if got, _ := tackleArgs("bash", map[string]any{"command": "ls", "description": "list", "run_in_background": true}, root); got != `{"command":"ls"}` {
		t.Errorf("extra fields: %s", got)
	}
	if got, _ := tackleArgs("write_file", map[string]any{"file_path": "/etc/passwd", "content": ""}, root); !strings.Contains(got, `"path":"/etc/passwd"`) {
		t.Errorf("outside path: %s", got)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestPreToolUseOutputs(t *testing.T) {
	f := newFixture(t, map[string][]Group{PreToolUse: {
		cmd("Bash", `c=$(jq -r .tool_input.command); case "$c" in
  deny*) echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}';;
  ask*) echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}';;
  allow*) echo '{"hookSpecificOutput":{"permissionDecision":"allow","additionalContext":"ctx for the model"}}';;
  rewrite*) echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo rewritten","description":"x"}}}';;
  legacy*) echo '{"decision":"block","reason":"old form"}';;
  oldapprove*) echo '{"decision":"approve","reason":"fine by me"}';;
  oldask*) echo '{"decision":"ask","reason":"check this"}';;
  defer*) echo '{"hookSpecificOutput":{"permissionDecision":"defer","permissionDecisionReason":"later"}}';;
  weird*) echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}';;
  oldweird*) echo '{"decision":"allow"}';;
  stop*) echo '{"continue":false,"stopReason":"enough"}';;
  exit2*) echo "exit two" >&2; exit 2;;
  fail*) echo "oops" >&2; exit 1;;
  sys*) echo '{"systemMessage":"hello user"}';;
  log*) echo "a log line";;
  bad*) echo '{not json';;
esac`),
	}})
	for _, tt := range []struct {
		cmd    string
		action hooks.PreToolAction
		reason string
		ask    *bool
	}{
		{"deny", hooks.ToolSkip, "no", nil},
		{"legacy", hooks.ToolSkip, "old form", nil},
		{"exit2", hooks.ToolSkip, "exit two", nil},
		{"stop", hooks.ToolAbort, "enough", nil},
		{"ask", hooks.ToolContinue, "", ptr(true)},
		{"allow", hooks.ToolContinue, "", ptr(false)},
		// Every decision Claude Code documents, in both forms; "ask" in
		// the older field, and "defer", ask.
		{"oldapprove", hooks.ToolContinue, "", ptr(false)},
		{"oldask", hooks.ToolContinue, "", ptr(true)},
		{"defer", hooks.ToolContinue, "", ptr(true)},
		// An unknown value is ignored, with a warning (below).
		{"weird", hooks.ToolContinue, "", nil},
		{"oldweird", hooks.ToolContinue, "", nil},
		{"fail", hooks.ToolContinue, "", nil},
		{"bad", hooks.ToolContinue, "", nil},
		{"sys", hooks.ToolContinue, "", nil},
		{"log", hooks.ToolContinue, "a log line", nil},
	} {
		res, in := f.pre(bash(tt.cmd))
		if res.Action != tt.action || (tt.reason != "" && !strings.Contains(res.Reason, tt.reason)) {
			t.Errorf("%s: got %v %q", tt.cmd, res.Action, res.Reason)
		}
		switch {
		case tt.ask == nil && in.Approval != nil:
			t.Errorf("%s: approval %+v", tt.cmd, in.Approval)
		case tt.ask != nil && (in.Approval == nil || in.Approval.Ask != *tt.ask || in.Approval.Arguments != in.Call.Arguments):
			t.Errorf("%s: approval %+v", tt.cmd, in.Approval)
		}
	}
	if w := strings.Join(f.warn, "\n"); !strings.Contains(w, "exit status 1: oops") || !strings.Contains(w, "invalid JSON") || !strings.Contains(w, "hello user") ||
		!strings.Contains(w, `"maybe" is not a permissionDecision of PreToolUse (Claude Code's are allow, deny, ask, defer); ignored`) ||
		!strings.Contains(w, `"allow" is not a decision of PreToolUse (Claude Code's are approve, block, ask); ignored`) {
		t.Errorf("warnings: %s", w)
	}
	// The reason of an ask reaches the question.
	if _, in := f.pre(bash("oldask")); in.Approval == nil || in.Approval.Reason != "check this" {
		t.Errorf("oldask: %+v", in.Approval)
	}
	// updatedInput goes back to tackle's fields; the approval is for it.
	_, in := f.pre(bash("rewrite"))
	if in.Call.Arguments != `{"command":"echo rewritten"}` || in.Approval == nil || in.Approval.Arguments != in.Call.Arguments {
		t.Errorf("rewrite: %s %+v", in.Call.Arguments, in.Approval)
	}
	// additionalContext reaches the model with the call's result.
	_, in = f.pre(bash("allow"))
	post := &hooks.PostToolInput{Call: in.Call, Result: chat.ToolResult{Status: chat.StatusOK, Content: "out"}}
	f.reg.RunPostToolCall(context.Background(), post, nil)
	if !strings.Contains(post.Result.Content, "ctx for the model") || !strings.HasPrefix(post.Result.Content, "out") {
		t.Errorf("additionalContext: %q", post.Result.Content)
	}
}

func ptr[T any](v T) *T { return &v }

// TestParallelAndOnce: matching commands run at once (each waits for the
// other), an identical command once, and the environment is Claude's.
func TestParallelAndOnce(t *testing.T) {
	dir := t.TempDir()
	wait := func(me, other string) string {
		return "touch " + dir + "/" + me + "; for i in $(seq 200); do [ -e " + dir + "/" + other + " ] && exit 0; sleep 0.05; done; echo never saw " + other + " >&2; exit 2"
	}
	logEnv := `echo "$CLAUDE_PROJECT_DIR ${OPENAI_API_KEY:-none} $PWD" >> ` + dir + "/env"
	f := newFixture(t, map[string][]Group{PreToolUse: {cmd("", wait("a", "b"), logEnv), cmd("Bash", wait("b", "a"), logEnv)}})
	if res, _ := f.pre(bash("ls")); res.Action != hooks.ToolContinue {
		t.Fatalf("got %v %q", res.Action, res.Reason)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "env"))
	if got := string(b); got != f.root+" none "+f.root+"\n" {
		t.Errorf("env lines %q: want one line, CLAUDE_PROJECT_DIR and cwd the workspace, no API key", got)
	}
}

func TestPostToolUseAndFailure(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, map[string][]Group{
		PostToolUse:        {cmd("Bash", `jq -c . > `+dir+`/ok; echo "lint says no" >&2; exit 2`)},
		PostToolUseFailure: {cmd("", `jq -c . > `+dir+`/fail; echo '{"decision":"block","reason":"try again"}'`)},
	})
	ok := &hooks.PostToolInput{Call: bash("ls"), Result: chat.ToolResult{Status: chat.StatusOK, Content: "a.go"}}
	f.reg.RunPostToolCall(context.Background(), ok, nil)
	if !strings.Contains(ok.Result.Content, "lint says no") {
		t.Errorf("exit 2 stderr not for the model: %q", ok.Result.Content)
	}
	bad := &hooks.PostToolInput{Call: bash("false"), Result: chat.ToolResult{Status: chat.StatusError, Content: "exit status 1"}}
	f.reg.RunPostToolCall(context.Background(), bad, nil)
	if !strings.Contains(bad.Result.Content, "try again") {
		t.Errorf("decision block reason not for the model: %q", bad.Result.Content)
	}
	var in map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "fail"))
	json.Unmarshal(b, &in)
	if in["hook_event_name"] != PostToolUseFailure || in["error"] != "exit status 1" || in["tool_use_id"] != "call_1" {
		t.Errorf("failure input: %s", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "ok"))
	json.Unmarshal(b, &in)
	if resp, _ := in["tool_response"].(map[string]any); resp["stdout"] != "a.go" || in["permission_mode"] != "acceptEdits" || in["session_id"] != "sess-1" {
		t.Errorf("success input: %s", b)
	}
	// A skipped call did not run: neither event fires.
	os.Remove(filepath.Join(dir, "ok"))
	skipped := &hooks.PostToolInput{Call: bash("ls"), Result: chat.ToolResult{Status: chat.StatusSkipped, Content: "skipped"}}
	f.reg.RunPostToolCall(context.Background(), skipped, nil)
	if _, err := os.Stat(filepath.Join(dir, "ok")); err == nil {
		t.Error("PostToolUse ran for a skipped call")
	}
}

func TestPromptStopCompactNotifyEnd(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, map[string][]Group{
		SessionStart:     {cmd("", `echo '{"hookSpecificOutput":{"additionalContext":"from start"}}'`)},
		UserPromptSubmit: {cmd("", `p=$(jq -r .prompt); [ "$p" = secret ] && { echo '{"decision":"block","reason":"no secrets"}'; exit 0; }; [ "$p" = two ] && { echo nope >&2; exit 2; }; echo "context line"`)},
		Stop:             {cmd("", `[ "$(jq .stop_hook_active)" = true ] && exit 0; echo '{"decision":"block","reason":"run the tests"}'`)},
		PreCompact:       {cmd("", `jq -c . > `+dir+`/compact; echo '{"continue":false,"stopReason":"keep it"}'`)},
		Notification:     {cmd("", `jq -c . > `+dir+`/notify`)},
		SessionEnd:       {cmd("", `jq -c . >> `+dir+`/end`)},
	})
	ctx := context.Background()
	in := &hooks.PromptInput{Message: chat.UserMessage("fix it")}
	f.reg.RunPromptSubmit(ctx, in, nil)
	if c := in.Message.Content; c != "fix it\n\nfrom start\n\ncontext line" {
		t.Errorf("prompt %q", c)
	}
	in = &hooks.PromptInput{Message: chat.UserMessage("fix it")}
	f.reg.RunPromptSubmit(ctx, in, nil)
	if c := in.Message.Content; c != "fix it\n\ncontext line" {
		t.Errorf("second prompt %q: SessionStart runs once", c)
	}
	for p, want := range map[string]string{"secret": "no secrets", "two": "nope"} {
		if res := f.reg.RunPromptSubmit(ctx, &hooks.PromptInput{Message: chat.UserMessage(p)}, nil); res.Action != hooks.PromptCancel || res.Reason != want {
			t.Errorf("%s: %+v", p, res)
		}
	}
	res, _ := f.reg.RunTurnEnd(ctx, &hooks.TurnEndInput{Round: 0}, 0, nil)
	if res.Action != hooks.TurnContinueWithMessages || res.Messages[0].Content != "run the tests" {
		t.Errorf("stop: %+v", res)
	}
	if res, _ := f.reg.RunTurnEnd(ctx, &hooks.TurnEndInput{Round: 1}, 0, nil); res.Action != hooks.TurnFinish {
		t.Errorf("stop_hook_active: %+v", res)
	}
	cres := f.reg.RunPreCompact(ctx, &hooks.CompactInput{Trigger: hooks.CompactManual, Focus: "the API"}, nil)
	b, _ := os.ReadFile(filepath.Join(dir, "compact"))
	if cres.Action != hooks.CompactCancel || !strings.Contains(string(b), `"trigger":"manual","custom_instructions":"the API"`) {
		t.Errorf("pre_compact %+v, input %s", cres, b)
	}
	f.set.Notify(ctx, "tackle needs your permission to use bash")
	b, _ = os.ReadFile(filepath.Join(dir, "notify"))
	if !strings.Contains(string(b), `"message":"tackle needs your permission to use bash","notification_type":"permission_prompt"`) {
		t.Errorf("notification input %s", b)
	}
	f.set.End(ctx, "other")
	f.set.End(ctx, "other")
	b, _ = os.ReadFile(filepath.Join(dir, "end"))
	if strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"reason":"other"`) {
		t.Errorf("session end input %q (once)", b)
	}
}

func TestCompileNotes(t *testing.T) {
	set, err := New([]Source{{Path: "u.json", Settings: Settings{Hooks: map[string][]Group{
		"PermissionRequest": {cmd("", "true")},
		PreToolUse:          {{Hooks: []Command{{Type: "prompt", Command: "x"}}}},
	}}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Notes) != 2 || len(set.Hooks()) != 0 {
		t.Errorf("notes %q, hooks %v", set.Notes, set.Hooks())
	}
	if _, err := New([]Source{{Path: "u.json", Settings: Settings{Hooks: map[string][]Group{Stop: {{Hooks: []Command{{Type: "command"}}}}}}}}, Options{}); err == nil {
		t.Error("an empty command was accepted")
	}
}

func TestTranscriptClaudeFormat(t *testing.T) {
	dir := t.TempDir()
	tr := NewTranscript(filepath.Join(dir, "t", "s.jsonl"), "/w", func() string { return "sess-9" })
	for _, m := range []chat.Message{
		{Role: chat.RoleSystem, Content: "system prompt"},
		chat.UserMessage("fix it"),
		{Role: chat.RoleAssistant, Content: "Reading.", ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: "package a"},
	} {
		if err := tr.Message(m); err != nil {
			t.Fatal(err)
		}
	}
	tr.Close()
	b, err := os.ReadFile(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines (the system prompt is not part of it):\n%s", len(lines), b)
	}
	for i, want := range []string{
		`"type":"user","message":{"content":[{"type":"text","text":"fix it"}],"role":"user"},"sessionId":"sess-9","cwd":"/w"`,
		`{"type":"tool_use","id":"c1","name":"Read","input":{"file_path":"/w/a.go"}}`,
		`"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"package a"}]`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %s\nwant it to contain %s", i, lines[i], want)
		}
	}
	if fi, _ := os.Stat(tr.Path()); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	// A write that fails is reported once.
	bad := NewTranscript(filepath.Join(tr.Path(), "x.jsonl"), "/w", func() string { return "" })
	if err := bad.Message(chat.UserMessage("a")); err == nil {
		t.Error("no error for a transcript under a file")
	}
	if err := bad.Message(chat.UserMessage("b")); err != nil {
		t.Errorf("reported twice: %v", err)
	}
}

// TestChainOfIsWhatRegisterRegisters: for each Claude event, a set with
// a command for it registers the hook ChainOf names, in ChainOf's chain
// (tackle hooks list reads ChainOf); the events run outside the chains
// register none.
func TestChainOfIsWhatRegisterRegisters(t *testing.T) {
	for _, ev := range Events {
		t.Run(ev, func(t *testing.T) {
			f := newFixture(t, map[string][]Group{ev: {cmd("", "true")}})
			c, inChain := ChainOf(ev)
			var all []string
			for e := hooks.OnPromptSubmit; e <= hooks.PreCompact; e++ {
				for _, name := range f.reg.Names(e) {
					all = append(all, e.String()+" "+name)
				}
			}
			switch {
			case !inChain && len(all) > 0:
				t.Errorf("%s runs outside the chains, but the set registered %q", ev, all)
			case inChain && !slices.Contains(all, c.Event.String()+" "+c.Hook):
				t.Errorf("ChainOf(%s) = %+v, but the set registered %q", ev, c, all)
			}
		})
	}
}

// TestEveryToolHasAClaudeName: each of tackle's own tools is one Claude
// Code knows, with each of its arguments (claudeTools is made from the
// tools' argument structs, so a renamed argument follows; a new tool must
// be added there).
func TestEveryToolHasAClaudeName(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tools.NewRegistry(ws)
	for _, spec := range reg.Specs() {
		ct, ok := claudeTools()[spec.Name]
		if !ok {
			t.Errorf("tool %s has no Claude Code name (claudeTools, tools.go)", spec.Name)
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		if got, want := slices.Sorted(slices.Values(ct.fields)), slices.Sorted(maps.Keys(schema.Properties)); !slices.Equal(got, want) {
			t.Errorf("%s: fields %q, the tool's schema has %q", spec.Name, got, want)
		}
	}
}

// TestToolResponse: bash's result is stdout; a file tool's names its file,
// absolute; another tool's path argument is its server's, not a file of
// the workspace.
func TestToolResponse(t *testing.T) {
	s := &Set{opts: Options{Workspace: "/w"}}
	for _, tc := range []struct {
		call chat.ToolCall
		want string
	}{
		{chat.ToolCall{Name: tools.Bash, Arguments: `{"command":"ls"}`}, `{"interrupted":false,"stderr":"","stdout":"out"}`},
		{chat.ToolCall{Name: tools.ReadFile, Arguments: `{"path":"a.go"}`}, `{"filePath":"/w/a.go","output":"out","success":true}`},
		{chat.ToolCall{Name: tools.Grep, Arguments: `{"pattern":"x"}`}, `{"output":"out","success":true}`},
		{chat.ToolCall{Name: "mcp__fs__read", Arguments: `{"path":"a.go"}`}, `{"output":"out","success":true}`},
	} {
		b, _ := json.Marshal(s.toolResponse(tc.call, "out"))
		if string(b) != tc.want {
			t.Errorf("%s: %s, want %s", tc.call.Name, b, tc.want)
		}
	}
}

// A decision value Claude Code does not document for the event is
// ignored with a warning naming the hook, never silently.
func TestUnknownDecisionsWarn(t *testing.T) {
	f := newFixture(t, map[string][]Group{
		Stop:             {cmd("", `echo '{"decision":"approve"}'`)},
		UserPromptSubmit: {cmd("", `echo '{"decision":"deny"}'`)},
		PostToolUse:      {cmd("", `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`)},
	})
	if res, _ := f.reg.RunTurnEnd(context.Background(), &hooks.TurnEndInput{Final: chat.Message{Role: chat.RoleAssistant, Content: "done"}}, 0, nil); res.Action != hooks.TurnFinish {
		t.Errorf("Stop: %+v", res)
	}
	if res := f.reg.RunPromptSubmit(context.Background(), &hooks.PromptInput{Message: chat.UserMessage("hi")}, nil); res.Action != hooks.PromptContinue {
		t.Errorf("UserPromptSubmit: %+v", res)
	}
	f.reg.RunPostToolCall(context.Background(), &hooks.PostToolInput{Call: bash("ls"), Result: chat.ToolResult{Status: chat.StatusOK}}, nil)
	w := strings.Join(f.warn, "\n")
	for _, want := range []string{
		`Claude Code hook Stop (test.json, echo '{"decision":"approve"}'): "approve" is not a decision of Stop (Claude Code's are block); ignored`,
		`"deny" is not a decision of UserPromptSubmit (Claude Code's are block); ignored`,
		`"deny" is not a permissionDecision of PostToolUse (Claude Code's are none); ignored`,
	} {
		if !strings.Contains(w, want) {
			t.Errorf("no warning %q in:\n%s", want, w)
		}
	}
}

// TestSubagentEvents: a subagent's turn fires SubagentStart (matched by
// its type, its context joining the subagent's prompt) instead of
// SessionStart and UserPromptSubmit, SubagentStop instead of Stop (a
// block continues the subagent), and its tool events carry agent_id and
// agent_type; the main agent's carry neither.
func TestSubagentEvents(t *testing.T) {
	f := newFixture(t, map[string][]Group{
		SessionStart:     {cmd("", `echo started >> session`)},
		UserPromptSubmit: {cmd("", `echo prompted >> prompts`)},
		SubagentStart: {
			cmd("explore", `cat > start.json; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be thorough"}}'`),
			cmd("other", `echo other >> others`),
		},
		PreToolUse:   {cmd("", `cat >> pre.jsonl`)},
		Stop:         {cmd("", `echo stop >> stops`)},
		SubagentStop: {cmd("explore", `cat > stop.json; echo '{"decision":"block","reason":"check the tests too"}'`)},
	})
	child := hooks.WithAgent(context.Background(), hooks.Agent{ID: "call_t1", Parent: hooks.MainAgent, Type: "explore"})

	in := hooks.PromptInput{Message: chat.UserMessage("find the bug")}
	f.reg.RunPromptSubmit(child, &in, nil)
	if in.Message.Content != "find the bug\n\nbe thorough" {
		t.Errorf("the subagent's prompt is %q", in.Message.Content)
	}
	start := readJSON(t, filepath.Join(f.root, "start.json"))
	if start["hook_event_name"] != SubagentStart || start["agent_id"] != "call_t1" || start["agent_type"] != "explore" {
		t.Errorf("SubagentStart input %v", start)
	}
	for _, name := range []string{"session", "prompts", "others"} {
		if _, err := os.Stat(filepath.Join(f.root, name)); err == nil {
			t.Errorf("%s ran for a subagent's prompt", name)
		}
	}

	f.reg.RunPreToolCall(child, &hooks.PreToolInput{Call: bash("ls")}, 0, nil)
	f.pre(bash("pwd")) // the main agent's
	b, err := os.ReadFile(filepath.Join(f.root, "pre.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("PreToolUse inputs:\n%s", b)
	}
	var sub, main map[string]any
	json.Unmarshal([]byte(lines[0]), &sub)
	json.Unmarshal([]byte(lines[1]), &main)
	if sub["agent_id"] != "call_t1" || sub["agent_type"] != "explore" {
		t.Errorf("a subagent's PreToolUse input %v", sub)
	}
	if _, ok := main["agent_id"]; ok {
		t.Errorf("the main agent's PreToolUse input names an agent: %v", main)
	}

	res, _ := f.reg.RunTurnEnd(child, &hooks.TurnEndInput{Final: chat.Message{Role: chat.RoleAssistant, Content: "found it"}}, 0, nil)
	if res.Action != hooks.TurnContinueWithMessages || len(res.Messages) != 1 || res.Messages[0].Content != "check the tests too" {
		t.Errorf("SubagentStop's block: %+v", res)
	}
	stop := readJSON(t, filepath.Join(f.root, "stop.json"))
	if stop["hook_event_name"] != SubagentStop || stop["last_assistant_message"] != "found it" || stop["agent_type"] != "explore" {
		t.Errorf("SubagentStop input %v", stop)
	}
	if _, err := os.Stat(filepath.Join(f.root, "stops")); err == nil {
		t.Error("Stop ran at a subagent's end")
	}
	f.reg.RunTurnEnd(context.Background(), &hooks.TurnEndInput{Final: chat.Message{Role: chat.RoleAssistant, Content: "done"}}, 0, nil)
	if b, _ := os.ReadFile(filepath.Join(f.root, "stops")); string(b) != "stop\n" {
		t.Errorf("Stop at the main agent's end: %q", b)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}
