package session

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// echoTools is a toolbox of one tool, "echo", which returns its
// arguments.
type echoTools struct{}

func (echoTools) Specs() []chat.ToolSpec {
	return []chat.ToolSpec{{Name: "echo", Description: "Echo.", Parameters: []byte(`{"type":"object"}`)}}
}

func (echoTools) Run(_ context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	return chat.ToolResult{Status: chat.StatusOK, Content: call.Arguments}, nil
}

// recordedWorker is a Worker recording into a new session of store.
func recordedWorker(t *testing.T, s *Store, script llmtest.Script, reg *hooks.Registry, history []chat.Message, rec *Recorder) *agent.Worker {
	t.Helper()
	srv := llmtest.NewServer(t, script)
	return agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "m", System: "You are a test.", History: history, Tools: echoTools{}, Hooks: reg,
		OnMessage: rec.Message, OnEvent: rec.Event,
	})
}

// A recorded run loads back as the conversation the Worker holds, with
// its decisions, usage, pause, answer and outcome, and a paused run's
// state goes on in a new Worker.
func TestRecorderRecordsARunThatResumesElsewhere(t *testing.T) {
	s := Open(t.TempDir())
	var warned []error
	rec := s.Recorder(Header{Workspace: "/src/proj", Model: "m"}, func(err error) { warned = append(warned, err) })
	rec.SetRedact(func(s string) string { return strings.ReplaceAll(s, "secret", "[REDACTED]") })
	if rec.ID() != "" {
		t.Fatal("a session file exists before the first record")
	}
	reg := hooks.NewRegistry()
	reg.PreToolCall(hooktest.PreTool("gate", func(*hooks.PreToolInput) hooks.PreToolResult {
		return hooks.PreToolResult{Action: hooks.ToolPause, Reason: "asks"}
	}))
	script := llmtest.NewScript(llmtest.ToolCalls(llmtest.Call("c1", "echo", `{"x":1}`)), llmtest.Text("done"))
	w := recordedWorker(t, s, script, reg, nil, rec)
	out, err := w.Run(context.Background(), "go on, secret")
	if err != nil || out.Status != agent.StatusPaused {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if err := rec.Close(); err != nil || len(warned) > 0 {
		t.Fatalf("Close = %v, warnings %v", err, warned)
	}

	info, ok, err := s.Latest("/src/proj")
	if err != nil || !ok || info.ID != rec.ID() || info.Status != "paused" || info.Turns != 1 || info.FirstPrompt != "go on, [REDACTED]" {
		t.Fatalf("Latest = %+v %v %v", info, ok, err)
	}
	l, err := Load(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	live := w.Messages()
	live[1].Content = "go on, [REDACTED]" // the file has it redacted
	if !reflect.DeepEqual(l.Messages(), live) {
		t.Errorf("loaded %+v\nworker %+v", l.Messages(), live)
	}
	var kinds []Kind
	for _, r := range l.Records {
		kinds = append(kinds, r.Kind)
	}
	want := []Kind{KindMessage, KindMessage, KindUsage, KindMessage, KindDecision, KindPaused, KindOutcome}
	if !slices.Equal(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	p := l.LastPause()
	if p == nil || p.Paused == nil || len(p.Pending) != 1 || p.Paused.Calls[0].Hook != "gate" {
		t.Fatalf("LastPause = %+v", p)
	}

	// Another process: the same hooks, the loaded conversation.
	wr, l, err := s.Reopen(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	rec2 := NewRecorder(wr, nil)
	w2 := recordedWorker(t, s, llmtest.NewScript(llmtest.Text("done")), reg, l.Messages(), rec2)
	if _, err := w2.Restore(*p.Paused); err != nil {
		t.Fatal(err)
	}
	out, err = w2.Resume(context.Background(), []agent.Decision{{CallID: "c1", Verdict: agent.Deny, Reason: "no", By: "--deny"}})
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	rec2.Close()
	l, err = Load(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Messages(), w2.Messages()) || l.LastPause() != nil || w2.Messages()[1].Content != "go on, [REDACTED]" {
		t.Errorf("after the resume: loaded %+v\nworker %+v", l.Messages(), w2.Messages())
	}
	var answer *Record
	for i := range l.Records {
		if l.Records[i].Kind == KindAnswered {
			answer = &l.Records[i]
		}
	}
	if answer == nil || answer.Answers[0] != (Answer{CallID: "c1", Verdict: "deny", Reason: "no", By: "--deny"}) {
		t.Errorf("answer = %+v", answer)
	}
	if r := l.Records[len(l.Records)-4]; r.Kind != KindMessage || r.Status != chat.StatusDenied {
		t.Errorf("the denied result's record = %+v", r)
	}
}

// A record that cannot be written (a full disk) is a warning, once; it is
// kept and written, in order, once writing works again.
func TestRecorderKeepsWhatItCouldNotWrite(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	_, w := newSession(t)
	var warned []error
	rec := NewRecorder(w, func(err error) { warned = append(warned, err) })
	msg := func(s string) agent.AddedMessage {
		return agent.AddedMessage{Message: chat.UserMessage(s), Prompt: true}
	}
	rec.Message(msg("one"))

	real := w.f
	w.f = full
	rec.Message(msg("two"))
	rec.Event(agent.TurnFinished{Outcome: agent.Outcome{Status: agent.StatusFinished}})
	rec.Message(msg("three"))
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "not being saved") {
		t.Fatalf("warnings = %v", warned)
	}
	w.f = real
	rec.Message(msg("four"))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range l.Messages() {
		got = append(got, m.Content)
	}
	if !slices.Equal(got, []string{"one", "two", "three", "four"}) || l.Turns() != 4 || len(l.Warnings) != 0 {
		t.Errorf("messages %q, turns %d, warnings %v", got, l.Turns(), l.Warnings)
	}
	if len(warned) != 1 {
		t.Errorf("warned %d times", len(warned))
	}
}

// Records that are never written are named when the session closes.
func TestRecorderCloseNamesLostRecords(t *testing.T) {
	s := Open("/dev/null/sessions") // cannot be created
	var warned []error
	rec := s.Recorder(Header{Workspace: "/src/proj"}, func(err error) { warned = append(warned, err) })
	rec.Message(agent.AddedMessage{Message: chat.UserMessage("one")})
	rec.Event(agent.UsageReport{})
	if len(warned) != 1 || rec.ID() != "" {
		t.Fatalf("warnings %v, id %q", warned, rec.ID())
	}
	if err := rec.Close(); err == nil || !strings.Contains(err.Error(), "lost its last 2 records") {
		t.Errorf("Close = %v", err)
	}
	rec.Message(agent.AddedMessage{Message: chat.UserMessage("late")}) // after Close: ignored
}

// The file keeps the redacted text; the Worker's conversation and its
// paused state are not touched.
func TestRecorderRedactsWithoutTouchingTheRun(t *testing.T) {
	_, w := newSession(t)
	w.SetRedact(func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") })
	rec := NewRecorder(w, nil)
	state := &agent.PausedRun{Calls: []agent.PausedCall{{Call: chat.ToolCall{ID: "c", Arguments: "hunter2"}, Current: chat.ToolCall{ID: "c", Arguments: "hunter2"}, State: agent.CallPending}}}
	rec.Event(agent.PausedEvent{State: state})
	rec.Close()
	if state.Calls[0].Call.Arguments != "hunter2" || state.Calls[0].Current.Arguments != "hunter2" {
		t.Errorf("the live state was changed: %+v", state)
	}
	l, err := Load(w.Path())
	if err != nil || l.Records[0].Paused.Calls[0].Current.Arguments != "[REDACTED]" {
		t.Errorf("record = %+v, %v", l.Records, err)
	}
}

// /model is recorded: the session goes on with the model it used last,
// and a check's result is kept for the transcript.
func TestRecorderKeepsModelSwitchesAndChecks(t *testing.T) {
	s := Open(t.TempDir())
	rec := s.Recorder(Header{Workspace: "/src/proj", Model: "first"}, nil)
	w := recordedWorker(t, s, llmtest.NewScript(llmtest.Text("ok")), nil, nil, rec)
	w.SetModel("second")
	if _, err := w.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	rec.Event(agent.CheckFinished{Check: "go vet", Status: "ok"})
	rec.Close()
	info, _, _ := s.Latest("/src/proj")
	l, err := Load(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Model() != "second" || info.Model != "first" {
		t.Errorf("Model = %q (header %q)", l.Model(), info.Model)
	}
	if c := l.Records[len(l.Records)-1]; c.Kind != KindCheck || c.Check.Check != "go vet" {
		t.Errorf("last record = %+v", c)
	}
}

// A request's usage is kept with the conversation's size and the
// model's window, so a resumed session shows its context use at once.
func TestRecorderKeepsTheContextUse(t *testing.T) {
	s := Open(t.TempDir())
	rec := s.Recorder(Header{Workspace: "/src/proj", Model: "m"}, nil)
	rec.Event(agent.UsageReport{Request: chat.Usage{PromptTokens: 90, CompletionTokens: 10, TotalTokens: 100}, Context: 100, Window: 128000})
	rec.Close()
	info, _, _ := s.Latest("/src/proj")
	l, err := Load(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	if u := l.Records[len(l.Records)-1]; u.Kind != KindUsage || u.Usage.PromptTokens != 90 || u.Context != 100 || u.Window != 128000 {
		t.Errorf("the usage record = %+v", u)
	}
}

// A compaction the Worker makes is recorded with the conversation after
// it, so a resumed session starts from exactly what the Worker held.
func TestRecorderKeepsACompaction(t *testing.T) {
	s := Open(t.TempDir())
	rec := s.Recorder(Header{Workspace: "/src/proj", Model: "m"}, nil)
	script := llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("c1", "echo", `{"x":"`+strings.Repeat("y", 4000)+`"}`)), llmtest.Text("first done"),
		llmtest.Text("The user asked for an echo; it ran."), // the summary
		llmtest.Text("second done"))
	w := recordedWorker(t, s, script, hooks.NewRegistry(), nil, rec)
	if out, err := w.Run(context.Background(), "echo something long"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if _, err := w.Compact(context.Background(), "the echo"); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if out, err := w.Run(context.Background(), "and now?"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Load(rec.w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var comp *Compaction
	for _, r := range l.Records {
		if r.Kind == KindCompaction {
			comp = r.Compaction
		}
	}
	if comp == nil || comp.Focus != "the echo" || len(comp.Parts) == 0 || comp.Messages != nil {
		t.Fatalf("compaction record = %+v", comp)
	}
	// The messages kept are named, not copied: only the summary (and the
	// shortened outputs) are written out.
	for _, p := range comp.Parts {
		if p.Message != nil && strings.Contains(p.Message.Content, strings.Repeat("y", 4000)) {
			t.Errorf("a kept message was written out again: %.80q", p.Message.Content)
		}
	}
	if got, want := l.Messages(), w.Messages(); !reflect.DeepEqual(got, want) {
		t.Errorf("loaded conversation:\n%+v\nthe Worker's:\n%+v", got, want)
	}
}

// TestRecorderKeepsThePlanNotTheSubagents: a plan the model set is
// recorded (redacted) and loads back; a subagent's events are not the
// session's — its run's end is not an outcome of the session's runs, its
// decisions not its decisions.
func TestRecorderKeepsThePlanNotTheSubagents(t *testing.T) {
	s := Open(t.TempDir())
	rec := s.Recorder(Header{Workspace: "/src/proj", Model: "m"}, nil)
	rec.SetRedact(func(s string) string { return strings.ReplaceAll(s, "secret", "[REDACTED]") })
	rec.Message(agent.AddedMessage{Message: chat.UserMessage("plan it"), Prompt: true})
	rec.Event(agent.TodoUpdated{Todos: []tools.TodoItem{{Content: "rotate the secret", Status: tools.TodoInProgress}}})
	who := hooks.Agent{ID: "t1", Parent: hooks.MainAgent, Type: "general"}
	rec.Event(agent.SubagentEvent{Agent: who, Event: agent.HookDecision{Decision: hooks.Decision{Event: hooks.PreToolCall, Hook: "x", Result: "skip"}}})
	rec.Event(agent.SubagentEvent{Agent: who, Event: agent.TurnFinished{Outcome: agent.Outcome{Status: agent.StatusFinished}}})
	rec.Event(agent.TodoUpdated{})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := s.Find("/src/proj", rec.ID())
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range l.Records {
		got = append(got, string(r.Kind))
	}
	if want := []string{"message", "todos", "todos"}; !slices.Equal(got, want) {
		t.Fatalf("records %v, want %v", got, want)
	}
	if td := l.Records[1].Todos; len(td) != 1 || td[0].Content != "rotate the [REDACTED]" || td[0].Status != tools.TodoInProgress {
		t.Errorf("the plan loaded as %+v", td)
	}
	if len(l.Records[2].Todos) != 0 {
		t.Errorf("the cleared plan loaded as %+v", l.Records[2].Todos)
	}
}
