package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// scriptedRunner pauses once with two pending calls, then finishes, and
// records the decisions it was given.
type scriptedRunner struct {
	decisions []agent.Decision
}

func (r *scriptedRunner) Run(context.Context, string, ...chat.Image) (agent.Outcome, error) {
	return agent.Outcome{Status: agent.StatusPaused, Pending: []agent.PendingCall{
		{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"make test"}`}, Hook: "approval", Reason: "bash wants to run: make test"},
		{Call: chat.ToolCall{ID: "c2", Name: "write_file", Arguments: `{"path":"a.go"}`}, Hook: "approval", Reason: "write_file wants to change a.go"},
	}}, nil
}

func (r *scriptedRunner) Resume(_ context.Context, d []agent.Decision) (agent.Outcome, error) {
	r.decisions = d
	return agent.Outcome{Status: agent.StatusFinished, Text: "done"}, nil
}

// summaries words calls as the real tools do.
func summaries(t *testing.T) Summarizer {
	t.Helper()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return tools.NewRegistry(ws).Summary
}

func TestDriveWithYesApprovesEveryPendingCall(t *testing.T) {
	var stderr bytes.Buffer
	r := &scriptedRunner{}
	res := Drive(context.Background(), r, "go", nil, Answers{Yes: true, Summarize: summaries(t)}, &stderr)
	if res.Err != nil || res.Outcome.Status != agent.StatusFinished || res.Denied != 0 {
		t.Fatalf("Drive = %+v", res)
	}
	if len(r.decisions) != 2 || r.decisions[0].Verdict != agent.Approve || r.decisions[1].CallID != "c2" || r.decisions[1].Verdict != agent.Approve ||
		r.decisions[0].By != ByYes {
		t.Errorf("decisions = %+v", r.decisions)
	}
	want := "tackle: approved by --yes: bash  make test (asked by hook approval: bash wants to run: make test)\n" +
		"tackle: approved by --yes: write_file  a.go (asked by hook approval: write_file wants to change a.go)\n"
	if stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

func TestDriveWithYesDeniesWhatProtectionRefuses(t *testing.T) {
	var stderr bytes.Buffer
	r := &scriptedRunner{}
	protected := func(c chat.ToolCall) string {
		if c.Name == "write_file" {
			return "a.go is protected"
		}
		return ""
	}
	res := Drive(context.Background(), r, "go", nil, Answers{Yes: true, HeldBack: protected, Summarize: summaries(t)}, &stderr)
	if res.Denied != 1 || len(r.decisions) != 2 {
		t.Fatalf("Denied = %d, decisions = %+v", res.Denied, r.decisions)
	}
	if d := r.decisions[0]; d.Verdict != agent.Approve {
		t.Errorf("unprotected call: %+v", d)
	}
	if d := r.decisions[1]; d.Verdict != agent.Deny || d.By != ByYes || !strings.Contains(d.Reason, "a.go is protected") {
		t.Errorf("protected call: %+v", d)
	}
	// The refused call is reported once, as denied, never as approved.
	s := stderr.String()
	if strings.Contains(s, "approved by --yes: write_file") || !strings.Contains(s, "denied write_file  a.go") ||
		!strings.Contains(s, "--dangerously-skip-protection") {
		t.Errorf("stderr = %q", s)
	}
}

// pausingRunner pauses once with pending, then finishes, and records the
// decisions it was given.
type pausingRunner struct {
	pending   []chat.ToolCall
	decisions []agent.Decision
}

func (r *pausingRunner) Run(context.Context, string, ...chat.Image) (agent.Outcome, error) {
	out := agent.Outcome{Status: agent.StatusPaused}
	for _, c := range r.pending {
		out.Pending = append(out.Pending, agent.PendingCall{Call: c, Hook: "approval"})
	}
	return out, nil
}

func (r *pausingRunner) Resume(_ context.Context, d []agent.Decision) (agent.Outcome, error) {
	r.decisions = d
	return agent.Outcome{Status: agent.StatusFinished}, nil
}

// TestYesHoldsBackWhatThePolicyHoldsBack: --yes denies exactly what the
// policy holds back (approval.Policy.HeldBack), the calls the UI's
// "approve these" leaves to be asked on their own (tui
// TestApproveTheseHoldsBackWhatThePolicyHoldsBack has the same calls):
// writes to protected paths, by a file tool or a shell redirect, but not
// one an allow rule names exactly.
func TestYesHoldsBackWhatThePolicyHoldsBack(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg := tools.NewRegistry(ws)
	allow, _, err := approval.Rules{Allow: []string{"write_file(.env)"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	policy := approval.New(approval.Default, reg, approval.WithRules(allow, nil))
	call := func(id, name string, args any) chat.ToolCall {
		b, _ := json.Marshal(args)
		return chat.ToolCall{ID: id, Name: name, Arguments: string(b)}
	}
	r := &pausingRunner{pending: []chat.ToolCall{
		call("c1", tools.Bash, tools.BashArgs{Command: "make test"}),
		call("c2", tools.WriteFile, tools.WriteFileArgs{Path: "a.go", Content: "x"}),
		call("c3", tools.WriteFile, tools.WriteFileArgs{Path: ".git/config", Content: "x"}),
		call("c4", tools.Bash, tools.BashArgs{Command: "echo x > .env"}),
		call("c5", tools.EditFile, tools.EditFileArgs{Path: ".tackle/config.json", OldString: "a", NewString: "b"}),
		call("c6", tools.WriteFile, tools.WriteFileArgs{Path: ".env", Content: "x"}),
	}}
	var stderr bytes.Buffer
	res := Drive(context.Background(), r, "go", nil, Answers{Yes: true, HeldBack: policy.HeldBack, Summarize: reg.Summary}, &stderr)
	approved := map[string]bool{"c1": true, "c2": true, "c6": true}
	if res.Denied != 3 || len(r.decisions) != len(r.pending) {
		t.Fatalf("Denied = %d, decisions = %+v", res.Denied, r.decisions)
	}
	for _, d := range r.decisions {
		switch {
		case approved[d.CallID] && d.Verdict != agent.Approve:
			t.Errorf("%s: %+v, want it approved", d.CallID, d)
		case !approved[d.CallID] && (d.Verdict != agent.Deny || d.By != ByYes || !strings.Contains(d.Reason, "protected")):
			t.Errorf("%s: %+v, want it denied by --yes as protected", d.CallID, d)
		}
	}
}

func TestDriveWithoutYesDeniesAndSaysHowToAllow(t *testing.T) {
	var stderr bytes.Buffer
	r := &scriptedRunner{}
	res := Drive(context.Background(), r, "go", nil, Answers{Summarize: summaries(t)}, &stderr)
	if res.Denied != 2 {
		t.Fatalf("Denied = %d", res.Denied)
	}
	for _, d := range r.decisions {
		if d.Verdict != agent.Deny || !strings.Contains(d.Reason, "non-interactively") {
			t.Errorf("decision = %+v", d)
		}
	}
	if !strings.Contains(r.decisions[0].Reason, "bash wants to run: make test") {
		t.Errorf("the model is not told what needed approval: %q", r.decisions[0].Reason)
	}
	if s := stderr.String(); !strings.Contains(s, "denied bash  make test") || !strings.Contains(s, "--yes") {
		t.Errorf("stderr = %q", s)
	}
}

func TestTextPrinterSeparatesMessagesAndKeepsProgressOnStderr(t *testing.T) {
	var out, errw bytes.Buffer
	p := NewPrinter(Text, &out, &errw).SummarizeWith(summaries(t))
	call := chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"go test ./...\n"}`}
	for _, e := range []agent.Event{
		agent.TextDelta{Text: "Running "}, agent.TextDelta{Text: "tests."},
		agent.AssistantMessage{},
		agent.HookDecision{Decision: hooks.Decision{Event: hooks.PreToolCall, Hook: "approval", Result: "continue"}},
		agent.ToolCallStarted{Call: call},
		agent.ToolCallFinished{Call: call, Result: chat.ToolResult{Status: chat.StatusError, Content: "exit code 1\nFAIL x"}},
		agent.TextDelta{Text: "One test fails.\n"},
		agent.AssistantMessage{},
		agent.Warning{Message: "hook x failed"},
	} {
		p.Event(e)
	}
	if err := p.Finish(Result{}, 0); err != nil {
		t.Fatal(err)
	}
	if want := "Running tests.\n\nOne test fails.\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
	want := "→ bash  go test ./...\n✗ bash: exit code 1\ntackle: warning: hook x failed\n"
	if errw.String() != want {
		t.Errorf("stderr = %q, want %q", errw.String(), want)
	}
}

func TestJSONPrinterPrintsOneObject(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(JSON, &out, &bytes.Buffer{})
	call := chat.ToolCall{ID: "c1", Name: "read_file", Arguments: `not json`}
	p.Event(agent.TextDelta{Text: "ignored in json mode"})
	p.Event(agent.ToolCallFinished{Call: call, Result: chat.ToolResult{CallID: "c1", Status: chat.StatusOK, Content: "data"}})
	if err := p.Finish(Result{Outcome: agent.Outcome{Status: agent.StatusFinished, Text: "final"}}, 0); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status, Result string
		ToolCalls      []struct {
			ID, Status, Result string
			Arguments          json.RawMessage
		} `json:"tool_calls"`
		HookDecisions []any `json:"hook_decisions"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if got.Status != "finished" || got.Result != "final" || len(got.ToolCalls) != 1 || got.HookDecisions == nil {
		t.Errorf("json = %s", out.String())
	}
	if string(got.ToolCalls[0].Arguments) != `"not json"` {
		t.Errorf("invalid arguments are not kept as a string: %s", got.ToolCalls[0].Arguments)
	}
}

func TestPrinterReportsCompactions(t *testing.T) {
	started := agent.CompactStarted{Trigger: hooks.CompactAuto, Tokens: 9100, Window: 10000}
	done := agent.Compacted{
		Trigger: hooks.CompactAuto, Messages: []chat.Message{chat.UserMessage("summary")},
		Summary: "The user asked for X.", Replaced: 12, Pruned: 3, Before: 9100, After: 2000, Window: 10000,
	}

	var out, errw bytes.Buffer
	p := NewPrinter(Text, &out, &errw)
	p.Event(started)
	p.Event(done)
	want := "⇣ compacting the conversation (≈9100 tokens, 91% of the model's 10000-token window)\n" +
		"⇣ compacted the conversation: summarized 12 messages and pruned 3 old tool outputs: ≈9100 → ≈2000 tokens (20% of the window)\n"
	if out.Len() != 0 || errw.String() != want {
		t.Errorf("text: stdout %q, stderr %q\nwant stderr %q", out.String(), errw.String(), want)
	}

	out.Reset()
	p = NewPrinter(StreamJSON, &out, &errw)
	p.Event(done)
	if want := `{"type":"compaction","agent":{"id":"main"},"trigger":"auto","summary":"The user asked for X.","replaced":12,"pruned":3,"tokens_before":9100,"tokens_after":2000,"window":10000,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}` + "\n"; out.String() != want {
		t.Errorf("stream-json = %s\nwant          %s", out.String(), want)
	}

	out.Reset()
	p = NewPrinter(JSON, &out, &errw)
	p.Event(done)
	if err := p.Finish(Result{Outcome: agent.Outcome{Status: agent.StatusFinished}}, 0); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Compactions []map[string]any `json:"compactions"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Compactions) != 1 || res.Compactions[0]["replaced"] != 12.0 || res.Compactions[0]["summary"] != "The user asked for X." {
		t.Errorf("json compactions = %v", res.Compactions)
	}
}

// childRunner's Run asks its ChildAsker, as a subagent's call does, and
// records the answers.
type childRunner struct {
	ask       agent.ChildAsker
	pending   []agent.PendingCall
	decisions []agent.Decision
}

func (r *childRunner) AskChildrenWith(ask agent.ChildAsker) { r.ask = ask }

func (r *childRunner) Run(ctx context.Context, _ string, _ ...chat.Image) (agent.Outcome, error) {
	d, err := r.ask(ctx, hooks.Agent{ID: "t1", Parent: hooks.MainAgent, Type: "general"}, r.pending)
	r.decisions = d
	return agent.Outcome{Status: agent.StatusFinished}, err
}

func (r *childRunner) Resume(context.Context, []agent.Decision) (agent.Outcome, error) {
	return agent.Outcome{}, agent.ErrNotPaused
}

// TestSubagentCallsAreAnsweredLikeTheRuns: a piped run answers its
// subagents' calls as its own — --yes approves, but not a write of a
// protected path, and without --yes, or with --on-pause save (a subagent
// cannot wait for a later process), they are denied and counted.
func TestSubagentCallsAreAnsweredLikeTheRuns(t *testing.T) {
	pending := []agent.PendingCall{
		{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"make test"}`}, Hook: "approval", Reason: "bash wants to run"},
		{Call: chat.ToolCall{ID: "c2", Name: "write_file", Arguments: `{"path":".git/config"}`}, Hook: "approval", Reason: "protected"},
	}
	protected := func(c chat.ToolCall) string {
		if c.Name == "write_file" {
			return ".git/config is protected"
		}
		return ""
	}
	for _, tc := range []struct {
		name   string
		a      Answers
		want   []agent.Verdict
		denied int
	}{
		{"yes", Answers{Yes: true, HeldBack: protected}, []agent.Verdict{agent.Approve, agent.Deny}, 1},
		{"no", Answers{HeldBack: protected}, []agent.Verdict{agent.Deny, agent.Deny}, 2},
		{"save", Answers{Save: true, HeldBack: protected}, []agent.Verdict{agent.Deny, agent.Deny}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &childRunner{pending: pending}
			var stderr bytes.Buffer
			res := Drive(context.Background(), r, "go", nil, tc.a, &stderr)
			var got []agent.Verdict
			for _, d := range r.decisions {
				got = append(got, d.Verdict)
			}
			if res.Err != nil || len(got) != 2 || got[0] != tc.want[0] || got[1] != tc.want[1] || res.Denied != tc.denied {
				t.Errorf("verdicts %v, denied %d, err %v; want %v and %d", got, res.Denied, res.Err, tc.want, tc.denied)
			}
		})
	}
}

// TestTextPrinterShowsSubagentsOnStderr: a subagent's calls and warnings
// go to stderr, named by its task call; its text never reaches stdout,
// which carries only the main agent's answer.
func TestTextPrinterShowsSubagentsOnStderr(t *testing.T) {
	var out, errw bytes.Buffer
	p := NewPrinter(Text, &out, &errw).SummarizeWith(summaries(t))
	who := hooks.Agent{ID: "call_t", Parent: hooks.MainAgent, Type: "general"}
	call := chat.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}
	for _, e := range []agent.Event{
		agent.SubagentEvent{Agent: who, Event: agent.TextDelta{Text: "the child thinks aloud"}},
		agent.SubagentEvent{Agent: who, Event: agent.ToolCallStarted{Call: call}},
		agent.SubagentEvent{Agent: who, Event: agent.ToolCallFinished{Call: call, Result: chat.ToolResult{Status: chat.StatusOK}}},
		agent.SubagentEvent{Agent: who, Event: agent.Warning{Message: "slow"}},
		agent.TextDelta{Text: "Answer."},
	} {
		p.Event(e)
	}
	p.Finish(Result{}, 0)
	if out.String() != "Answer.\n" {
		t.Errorf("stdout = %q", out.String())
	}
	if want := "  [call_t] → read_file  a.go\n  [call_t] ✓ read_file\ntackle: warning: subagent call_t: slow\n"; errw.String() != want {
		t.Errorf("stderr = %q, want %q", errw.String(), want)
	}
}
