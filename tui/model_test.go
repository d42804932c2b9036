package tui

// Model-level tests: every key path, driven by calling Update directly.

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

func paused(calls ...chat.ToolCall) fakeOutcome {
	var p []agent.PendingCall
	for _, c := range calls {
		p = append(p, agent.PendingCall{Call: c, Hook: approval.HookName, Reason: c.Name + " wants to run"})
	}
	return fakeOutcome{out: agent.Outcome{Status: agent.StatusPaused, Pending: p}}
}

// ask submits a prompt whose run pauses on calls.
func ask(t *testing.T, calls ...chat.ToolCall) *harness {
	t.Helper()
	h := newHarness(t)
	h.agent.outcomes = []fakeOutcome{paused(calls...)}
	h.typeText("do it").keys("enter")
	if len(h.m.dialogs) != 1 {
		t.Fatalf("no approval dialog after a pause:\n%s", h.screen())
	}
	return h
}

func TestStreamedTextIsDrawnInFrames(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("hi").keys("enter")
	h.send(eventsMsg{events: []agent.Event{agent.TextDelta{Text: "Hello "}, agent.TextDelta{Text: "there"}}})
	if strings.Contains(h.screen(), "Hello") {
		t.Fatalf("text drawn before the frame:\n%s", h.screen())
	}
	if !h.m.framePending {
		t.Fatal("no frame scheduled for pending text")
	}
	h.send(frameMsg{})
	if !strings.Contains(h.screen(), "● Hello there") {
		t.Fatalf("text not drawn on the frame:\n%s", h.screen())
	}
	// One frame is scheduled at a time, however many deltas arrive.
	frames := 0
	h.m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { frames++; return nil }
	for range 10 {
		h.send(eventsMsg{events: []agent.Event{agent.TextDelta{Text: "!"}}})
	}
	if frames != 1 {
		t.Fatalf("%d frames scheduled for 10 deltas, want 1", frames)
	}
	h.send(frameMsg{})
	if !strings.Contains(h.screen(), "● Hello there!!!!!!!!!!") {
		t.Fatalf("text not drawn on the frame:\n%s", h.screen())
	}
}

func TestApprovalKeys(t *testing.T) {
	call := bashCall("c1", "git status")
	cases := []struct {
		keys    []string
		text    string
		verdict agent.Verdict
		reason  string
	}{
		{keys: []string{"y"}, verdict: agent.Approve},
		{keys: []string{"a"}, verdict: agent.ApproveAlways},
		{keys: []string{"n"}, verdict: agent.Deny},
		{keys: []string{"esc"}, verdict: agent.Deny},
		{keys: []string{"d"}, text: "too slow", verdict: agent.Deny, reason: "too slow"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.keys, "+"), func(t *testing.T) {
			h := ask(t, call)
			h.keys(c.keys...)
			if c.text != "" {
				if !strings.Contains(h.screen(), "deny with this reason") {
					t.Fatalf("no reason editor:\n%s", h.screen())
				}
				h.typeText(c.text).keys("enter")
			}
			want := [][]agent.Decision{{{CallID: "c1", Verdict: c.verdict, Reason: c.reason}}}
			if !slices.EqualFunc(h.agent.resumes, want, slices.Equal) {
				t.Fatalf("resumes = %+v, want %+v", h.agent.resumes, want)
			}
			if len(h.m.dialogs) != 0 {
				t.Error("the dialog is still open")
			}
		})
	}
}

func TestApprovalReasonEditorEscGoesBack(t *testing.T) {
	h := ask(t, bashCall("c1", "ls"))
	h.keys("d").typeText("hm").keys("esc")
	if len(h.agent.resumes) != 0 || len(h.m.dialogs) != 1 {
		t.Fatalf("esc in the reason editor decided the call: %+v", h.agent.resumes)
	}
	if strings.Contains(h.screen(), "deny with this reason") {
		t.Fatalf("the reason editor is still open:\n%s", h.screen())
	}
	h.keys("y")
	if len(h.agent.resumes) != 1 || h.agent.resumes[0][0].Verdict != agent.Approve {
		t.Fatalf("resumes = %+v", h.agent.resumes)
	}
}

func TestApprovalEachPendingCallInTurn(t *testing.T) {
	h := ask(t, bashCall("c1", "make build"), bashCall("c2", "make test"))
	if s := h.screen(); !strings.Contains(s, "(1 of 2)") || !strings.Contains(s, "$ make build") {
		t.Fatalf("first call not shown:\n%s", s)
	}
	h.keys("y")
	if len(h.agent.resumes) != 0 {
		t.Fatal("resumed before the last decision")
	}
	if s := h.screen(); !strings.Contains(s, "(2 of 2)") || !strings.Contains(s, "$ make test") {
		t.Fatalf("second call not shown:\n%s", s)
	}
	h.keys("n")
	want := []agent.Decision{{CallID: "c1", Verdict: agent.Approve}, {CallID: "c2", Verdict: agent.Deny}}
	if len(h.agent.resumes) != 1 || !slices.Equal(h.agent.resumes[0], want) {
		t.Fatalf("resumes = %+v", h.agent.resumes)
	}
}

func TestApprovalCtrlCAbortsTheRun(t *testing.T) {
	h := ask(t, bashCall("c1", "ls"), bashCall("c2", "pwd"))
	h.agent.outcomes = []fakeOutcome{{out: agent.Outcome{Status: agent.StatusAborted}, err: fmt.Errorf("%w: interrupted by the user", agent.ErrUserAbort)}}
	h.keys("ctrl+c")
	if len(h.agent.resumes) != 1 {
		t.Fatalf("resumes = %+v", h.agent.resumes)
	}
	for _, d := range h.agent.resumes[0] {
		if d.Verdict != agent.AbortRun {
			t.Errorf("decision %+v, want AbortRun", d)
		}
	}
	if s := h.screen(); !strings.Contains(s, "⏹ interrupted") {
		t.Errorf("no interruption shown:\n%s", s)
	}
}

func TestApprovalShowsControlCharacters(t *testing.T) {
	h := ask(t, bashCall("c1", "echo ok\x1b[2K\rrm -rf ~ \u202ecod.exe\x7f"))
	s := h.screen()
	want := `$ echo ok\x1b[2K\rrm -rf ~ \u202ecod.exe\x7f`
	if !strings.Contains(s, want) {
		t.Fatalf("the command is not shown with its control characters visible:\n%s", s)
	}
	// Nothing raw reaches the terminal from the command.
	raw := h.m.View().Content
	for _, bad := range []string{"\r", "\u202e", "\x7f", "\x1b[2K"} {
		if strings.Contains(raw, bad) {
			t.Errorf("view contains raw %q", bad)
		}
	}
}

func TestApprovalLongCommandScrolls(t *testing.T) {
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf("echo line-%02d", i))
	}
	h := ask(t, bashCall("c1", strings.Join(lines, "\n")))
	s := h.screen()
	if !strings.Contains(s, "more lines (pgdn)") || strings.Contains(s, "line-59") {
		t.Fatalf("a long command is not scrollable:\n%s", s)
	}
	h.keys("end")
	if s := h.screen(); !strings.Contains(s, "line-59") {
		t.Fatalf("end does not show the last line:\n%s", s)
	}
	h.keys("home")
	if s := h.screen(); !strings.Contains(s, "line-00") {
		t.Fatalf("home does not show the first line:\n%s", s)
	}
}

func TestApprovalEditShowsDiff(t *testing.T) {
	args := `{"path":"main.go","old_string":"func a() {\n\treturn 1\n}\n","new_string":"func a() {\n\treturn 2\n}\n"}`
	h := ask(t, chat.ToolCall{ID: "e1", Name: "edit_file", Arguments: args})
	s := h.screen()
	for _, want := range []string{"edit main.go", "-    return 1", "+    return 2", " func a() {"} {
		if !strings.Contains(s, want) {
			t.Errorf("the diff lacks %q:\n%s", want, s)
		}
	}
}

func TestApprovalEditDiffsInTheFile(t *testing.T) {
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	h := newHarness(t).file("f.txt", strings.Join(lines, "\n")+"\n")
	h.agent.outcomes = []fakeOutcome{paused(
		chat.ToolCall{ID: "e1", Name: "edit_file", Arguments: `{"path":"f.txt","old_string":"line 20\n","new_string":"line twenty\n"}`},
		chat.ToolCall{ID: "e2", Name: "edit_file", Arguments: `{"path":"f.txt","old_string":"line","new_string":"LINE"}`},
	)}
	h.typeText("edit").keys("enter")
	s := h.screen()
	for _, want := range []string{"@@ -17,7 +17,7 @@", " line 19", "-line 20", "+line twenty", " line 23"} {
		if !strings.Contains(s, want) {
			t.Errorf("the diff in context lacks %q:\n%s", want, s)
		}
	}
	h.keys("y")
	if s := h.screen(); !strings.Contains(s, "old_string occurs 30 times: the edit will fail") {
		t.Errorf("an ambiguous edit is not flagged:\n%s", s)
	}
}

func TestApprovalWriteDiffsAgainstCurrentFile(t *testing.T) {
	h := newHarness(t).file("notes.txt", "one\ntwo\n")
	h.agent.outcomes = []fakeOutcome{paused(
		chat.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"path":"notes.txt","content":"one\nthree\n"}`},
		chat.ToolCall{ID: "w2", Name: "write_file", Arguments: `{"path":"new.txt","content":"hello\n"}`},
	)}
	h.typeText("write").keys("enter")
	s := h.screen()
	if !strings.Contains(s, "-two") || !strings.Contains(s, "+three") {
		t.Errorf("no diff against the current file:\n%s", s)
	}
	h.keys("y")
	s = h.screen()
	if !strings.Contains(s, "new file, 1 line") || !strings.Contains(s, "+hello") {
		t.Errorf("a new file is not shown as one:\n%s", s)
	}
}

// TestApprovalShowsTheToolsPreview: the dialog draws the preview that
// came with the pending call, not a file of its own reading.
func TestApprovalShowsTheToolsPreview(t *testing.T) {
	h := newHarness(t).file("notes.txt", "on disk now\n")
	call := chat.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"path":"notes.txt","content":"new\n"}`}
	out := paused(call)
	out.out.Pending[0].Preview = &tools.Preview{Change: &tools.FileChange{Action: "write", Path: "notes.txt", Old: "as previewed\n", New: "new\n"}}
	h.agent.outcomes = []fakeOutcome{out}
	h.typeText("write").keys("enter")
	s := h.screen()
	if !strings.Contains(s, "-as previewed") || strings.Contains(s, "on disk now") {
		t.Errorf("the dialog does not show the preview it was given:\n%s", s)
	}
}

// TestApprovalSaysWhyThereIsNoExactPreview: a call whose effect the tool
// cannot work out says why, and a call without a preview says so.
func TestApprovalSaysWhyThereIsNoExactPreview(t *testing.T) {
	h := newHarness(t)
	missing := chat.ToolCall{ID: "e1", Name: "edit_file", Arguments: `{"path":"gone.go","old_string":"a\n","new_string":"b\n"}`}
	bare := paused(bashCall("b1", "ls"))
	h.agent.outcomes = []fakeOutcome{paused(missing)}
	h.typeText("edit").keys("enter")
	s := h.screen()
	if !strings.Contains(s, "the edit will fail: gone.go does not exist") || !strings.Contains(s, "-a") || !strings.Contains(s, "+b") {
		t.Errorf("an edit of a missing file does not say so:\n%s", s)
	}
	h.keys("n")
	bare.out.Pending[0].Preview = nil
	h.agent.tools = nil
	h.agent.outcomes = []fakeOutcome{bare}
	h.typeText("list").keys("enter")
	if s := h.screen(); !strings.Contains(s, "no preview: the tool cannot say what this call will do") || !strings.Contains(s, `"command": "ls"`) {
		t.Errorf("a call without a preview is not flagged:\n%s", s)
	}
}

// TestNewToolIsShownByItsArguments: a tool the UI knows nothing about is
// summarised and previewed from its typed arguments, never as JSON.
func TestNewToolIsShownByItsArguments(t *testing.T) {
	h := newHarness(t)
	deploy := tools.New("deploy", "Deploy.", tools.KindNetwork, func(context.Context, struct {
		Env   string `json:"env"`
		Force bool   `json:"force,omitempty"`
	}) (tools.Result, error) {
		return tools.OK(""), nil
	}, nil)
	if err := h.tools.Add(deploy); err != nil {
		t.Fatal(err)
	}
	h.agent.outcomes = []fakeOutcome{paused(chat.ToolCall{ID: "d1", Name: "deploy", Arguments: `{"env":"prod","force":true}`})}
	h.typeText("ship").keys("enter")
	s := h.screen()
	for _, want := range []string{"deploy  env: prod, force: true", "env: prod", "force: true"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, `"env"`) {
		t.Errorf("the call is shown as JSON:\n%s", s)
	}
}

var (
	ansiWhite = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	ansiBlack = color.RGBA{A: 0xff}
)

func TestEscAndCtrlCCancelTheTurn(t *testing.T) {
	for _, k := range []string{"esc", "ctrl+c"} {
		t.Run(k, func(t *testing.T) {
			h := newHarness(t)
			h.agent.outcomes = []fakeOutcome{{block: true}}
			h.hold = true
			h.typeText("think").keys("enter")
			if !h.m.running {
				t.Fatal("not running")
			}
			h.keys(k)
			if !strings.Contains(h.screen(), "interrupting") {
				t.Errorf("no interrupting state:\n%s", h.screen())
			}
			h.release()
			if err := h.agent.ctxs[0].Err(); !errors.Is(err, context.Canceled) {
				t.Fatalf("run context: %v", err)
			}
			s := h.screen()
			if !strings.Contains(s, "⏹ interrupted") || h.m.running {
				t.Fatalf("not interrupted:\n%s", s)
			}
			if h.quit() {
				t.Error("cancelling a turn quit")
			}
		})
	}
}

func TestQueuedMessageIsSentAfterTheTurn(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("first").keys("enter")
	h.typeText("second").keys("enter")
	if got := h.m.queue; !slices.Equal(got, []string{"second"}) {
		t.Fatalf("queue = %q", got)
	}
	if !strings.Contains(h.screen(), "1 message queued") {
		t.Errorf("the queue is not shown:\n%s", h.screen())
	}
	h.release()
	if !slices.Equal(h.agent.runs, []string{"first", "second"}) {
		t.Fatalf("runs = %q", h.agent.runs)
	}
	if len(h.m.queue) != 0 {
		t.Errorf("queue = %q", h.m.queue)
	}
}

func TestQueueReturnsToEditorAfterInterrupt(t *testing.T) {
	h := newHarness(t)
	h.agent.outcomes = []fakeOutcome{{block: true}}
	h.hold = true
	h.typeText("first").keys("enter")
	h.typeText("second").keys("enter")
	h.keys("esc")
	h.release()
	if !slices.Equal(h.agent.runs, []string{"first"}) {
		t.Fatalf("runs = %q", h.agent.runs)
	}
	if got := h.m.input.value(); got != "second" {
		t.Fatalf("editor = %q, want the queued message", got)
	}
}

func TestHistory(t *testing.T) {
	h := newHarness(t)
	h.typeText("one").keys("enter")
	h.typeText("two\nlines").keys("enter")
	h.typeText("draft")
	h.keys("up")
	if got := h.m.input.value(); got != "two\nlines" {
		t.Fatalf("up: %q", got)
	}
	// The cursor is on the last line of a two-line entry: up moves it to
	// the first line, and only then walks the history.
	h.keys("up")
	if got := h.m.input.value(); got != "two\nlines" {
		t.Fatalf("up inside a multi-line entry walked the history: %q", got)
	}
	h.keys("up")
	if got := h.m.input.value(); got != "one" {
		t.Fatalf("up up up: %q", got)
	}
	h.keys("up")
	if got := h.m.input.value(); got != "one" {
		t.Fatalf("up past the oldest: %q", got)
	}
	h.keys("down")
	if got := h.m.input.value(); got != "two\nlines" {
		t.Fatalf("down: %q", got)
	}
	h.keys("down")
	if got := h.m.input.value(); got != "draft" {
		t.Fatalf("down to the draft: %q", got)
	}
}

func TestEnterSendsAndNewlineKeysDoNot(t *testing.T) {
	h := newHarness(t)
	h.typeText("a").keys("alt+enter").typeText("b").keys("ctrl+j").typeText("c")
	if len(h.agent.runs) != 0 {
		t.Fatal("a newline key sent the message")
	}
	if got := h.m.input.value(); got != "a\nb\nc" {
		t.Fatalf("editor = %q", got)
	}
	h.keys("enter")
	if !slices.Equal(h.agent.runs, []string{"a\nb\nc"}) {
		t.Fatalf("runs = %q", h.agent.runs)
	}
	h.keys("enter") // an empty editor sends nothing
	if len(h.agent.runs) != 1 {
		t.Fatalf("runs = %q", h.agent.runs)
	}
}

func TestPaste(t *testing.T) {
	h := newHarness(t)
	h.send(tea.PasteMsg{Content: "small paste"})
	if got := h.m.input.value(); got != "small paste" {
		t.Fatalf("editor = %q", got)
	}
	h.m.input.reset()

	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "line %d\twith a tab\r\n", i)
	}
	big := b.String()
	h.typeText("explain: ")
	h.send(tea.PasteMsg{Content: big})
	if got := h.m.input.value(); !strings.HasPrefix(got, "explain: [paste #1: 5000 lines") {
		t.Fatalf("a large paste is not a placeholder: %.80q", got)
	}
	h.keys("enter")
	want := "explain: " + strings.ReplaceAll(big, "\r\n", "\n")
	if len(h.agent.runs) != 1 || h.agent.runs[0] != want {
		t.Fatalf("the sent message is not the paste (%d bytes, want %d)", len(h.agent.runs[0]), len(want))
	}
}

func TestCtrlCOnIdlePrompt(t *testing.T) {
	h := newHarness(t)
	h.typeText("half a thought")
	h.keys("ctrl+c")
	if !h.m.input.empty() || h.quit() {
		t.Fatalf("ctrl+c with text: editor %q, quit %v", h.m.input.value(), h.quit())
	}
	h.keys("ctrl+c")
	if h.quit() || !strings.Contains(h.screen(), "press ctrl+c again to quit") {
		t.Fatalf("the first ctrl+c on an empty prompt quit or gave no hint:\n%s", h.screen())
	}
	h.keys("x", "backspace", "ctrl+c")
	if h.quit() {
		t.Fatal("ctrl+c after another key quit")
	}
	h.keys("ctrl+c")
	if !h.quit() {
		t.Fatal("ctrl+c twice did not quit")
	}
}

func TestCtrlDQuitsOnEmptyPrompt(t *testing.T) {
	h := newHarness(t)
	h.typeText("abc").keys("home", "ctrl+d")
	if h.quit() || h.m.input.value() != "bc" {
		t.Fatalf("ctrl+d with text: quit %v, editor %q", h.quit(), h.m.input.value())
	}
	h.m.input.reset()
	h.keys("ctrl+d")
	if !h.quit() {
		t.Fatal("ctrl+d on an empty prompt did not quit")
	}
}

func TestQuitDuringTurnWaitsForTheRun(t *testing.T) {
	h := newHarness(t)
	h.agent.outcomes = []fakeOutcome{{block: true}}
	h.hold = true
	h.typeText("long job").keys("enter")
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	if h.quit() {
		t.Fatal("quit before the run returned")
	}
	h.release()
	if !h.quit() {
		t.Fatal("no quit after the run returned")
	}
	if h.agent.ctxs[0].Err() == nil {
		t.Error("the run was not cancelled")
	}
}

func TestSlashCommands(t *testing.T) {
	newAgents := 0
	h := newHarness(t, func(o *Options) {
		o.NewAgent = func() Agent { newAgents++; return &fakeAgent{} }
	})
	pol := h.m.opts.Policy

	h.typeText("/mode accept-edits").keys("enter")
	if pol.Mode() != approval.AcceptEdits || !strings.Contains(h.screen(), "accept-edits") {
		t.Errorf("/mode: policy %s\n%s", pol.Mode(), h.screen())
	}
	h.typeText("/mode bogus").keys("enter")
	if pol.Mode() != approval.AcceptEdits || !strings.Contains(h.screen(), `unknown approval mode "bogus"`) {
		t.Errorf("/mode bogus:\n%s", h.screen())
	}

	h.typeText("/model gpt-x").keys("enter")
	if h.agent.model != "gpt-x" || !strings.Contains(h.screen(), "gpt-x ·") {
		t.Errorf("/model: agent has %q\n%s", h.agent.model, h.screen())
	}

	h.typeText("/theme light").keys("enter")
	if h.m.theme.Name != "light" {
		t.Errorf("/theme light: theme %s", h.m.theme.Name)
	}
	h.typeText("/theme nope").keys("enter")
	if h.m.theme.Name != "light" || !strings.Contains(h.screen(), `unknown theme "nope"`) {
		t.Errorf("/theme nope:\n%s", h.screen())
	}

	h.typeText("/help").keys("enter")
	if len(h.m.dialogs) != 1 || !strings.Contains(h.screen(), "alt+enter, ctrl+j") {
		t.Fatalf("/help:\n%s", h.screen())
	}
	for range 5 {
		if strings.Contains(h.screen(), "/mode [mode]") {
			break
		}
		h.keys("pgdown")
	}
	if len(h.m.dialogs) != 1 || !strings.Contains(h.screen(), "/mode [mode]") {
		t.Fatalf("/help, scrolled:\n%s", h.screen())
	}
	h.keys("q")
	if len(h.m.dialogs) != 0 {
		t.Fatal("a key did not close the help")
	}

	h.typeText("/frobnicate").keys("enter")
	if !strings.Contains(h.screen(), "unknown command /frobnicate") {
		t.Errorf("unknown command:\n%s", h.screen())
	}
	h.typeText("/etc/hosts looks wrong").keys("enter")
	if !slices.Equal(h.agent.runs, []string{"/etc/hosts looks wrong"}) {
		t.Errorf("a message starting with a path was not sent: %q", h.agent.runs)
	}

	h.typeText("/clear").keys("enter")
	if newAgents != 1 || strings.Contains(h.screen(), "hosts looks wrong") || !strings.Contains(h.screen(), "new conversation") {
		t.Errorf("/clear: %d new agents\n%s", newAgents, h.screen())
	}

	if h.quit() {
		t.Fatal("quit early")
	}
	h.typeText("/quit").keys("enter")
	if !h.quit() {
		t.Fatal("/quit did not quit")
	}
}

func TestScrolling(t *testing.T) {
	h := newHarness(t)
	for i := range 40 {
		h.events(agent.Warning{Message: fmt.Sprintf("note %02d", i)})
	}
	if s := h.screen(); !strings.Contains(s, "note 39") || strings.Contains(s, "note 00") {
		t.Fatalf("not at the bottom:\n%s", s)
	}
	h.keys("pgup")
	s := h.screen()
	if strings.Contains(s, "note 39") || !strings.Contains(s, "more lines") {
		t.Fatalf("pgup did not scroll:\n%s", s)
	}
	// New content does not pull a scrolled-up view down.
	h.events(agent.Warning{Message: "note 40"})
	if strings.Contains(h.screen(), "note 40") {
		t.Fatal("new content scrolled the view")
	}
	h.keys("home")
	if s := h.screen(); !strings.Contains(s, "note 00") {
		t.Fatalf("home:\n%s", s)
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if s := h.screen(); strings.Contains(s, "note 00") || !strings.Contains(s, "note 03") {
		t.Fatalf("wheel down:\n%s", s)
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	h.keys("ctrl+down")
	if s := h.screen(); strings.Contains(s, "note 00") || !strings.Contains(s, "note 01") {
		t.Fatalf("ctrl+down:\n%s", s)
	}
	h.keys("end")
	if s := h.screen(); !strings.Contains(s, "note 40") {
		t.Fatalf("end:\n%s", s)
	}
	h.keys("pgup", "pgdown")
	if !h.m.transcript.follow {
		t.Fatal("pgdown back to the bottom does not follow new content")
	}
}

func TestResizeRewraps(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("word ", 60)
	h.typeText(strings.TrimSpace(long)).keys("enter")
	h.events(agent.TextDelta{Text: "A long answer " + long}, agent.AssistantMessage{})
	for _, size := range [][2]int{{80, 24}, {120, 40}, {39, 20}, {24, 12}, {100, 30}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		view := h.m.View().Content
		lines := strings.Split(view, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, ansi.Strip(l))
			}
		}
		if !strings.Contains(flatten(h.screen()), "word word") {
			t.Errorf("%dx%d: text lost:\n%s", size[0], size[1], h.screen())
		}
	}
	// Narrow: the user's message is wrapped, not cut.
	h.send(tea.WindowSizeMsg{Width: 30, Height: 60})
	h.keys("home")
	if n := strings.Count(h.screen(), "word"); n < 60 {
		t.Errorf("the wrapped message shows %d of 60 words:\n%s", n, h.screen())
	}
}

func TestToolOutputExpands(t *testing.T) {
	h := newHarness(t)
	var out []string
	for i := range 20 {
		out = append(out, fmt.Sprintf("out %02d", i))
	}
	call := bashCall("c1", "seq 20")
	h.events(
		agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{call}}},
		agent.ToolCallStarted{Call: call},
	)
	if !strings.Contains(h.screen(), "bash  seq 20") {
		t.Fatalf("running tool not shown:\n%s", h.screen())
	}
	h.events(agent.ToolCallFinished{Call: call, Result: chat.ToolResult{CallID: "c1", Status: chat.StatusOK, Content: strings.Join(out, "\n")}})
	s := h.screen()
	if !strings.Contains(s, "✓ bash  seq 20") || !strings.Contains(s, "out 03") || strings.Contains(s, "out 04") || !strings.Contains(s, "16 more lines (ctrl+o") {
		t.Fatalf("collapsed output:\n%s", s)
	}
	h.keys("ctrl+o")
	if s := h.screen(); !strings.Contains(s, "out 19") {
		t.Fatalf("expanded output:\n%s", s)
	}
	h.keys("ctrl+o")
	if s := h.screen(); strings.Contains(s, "out 19") {
		t.Fatalf("collapsed again:\n%s", s)
	}
}

func TestToolStatuses(t *testing.T) {
	h := newHarness(t)
	calls := []chat.ToolCall{bashCall("a", "true"), bashCall("b", "false"), bashCall("c", "rm x"), bashCall("d", "curl x")}
	h.events(agent.AssistantMessage{Message: chat.Message{ToolCalls: calls}},
		agent.ToolCallFinished{Call: calls[0], Result: chat.ToolResult{Status: chat.StatusOK}},
		agent.ToolCallFinished{Call: calls[1], Result: chat.ToolResult{Status: chat.StatusError, Content: "exit status 1"}},
		agent.ToolCallFinished{Call: calls[2], Result: chat.ToolResult{Status: chat.StatusSkipped, Content: `Skipped by hook "approval"; the tool did not run. Reason: plan mode is read-only`}},
		agent.ToolCallFinished{Call: calls[3], Result: chat.ToolResult{Status: chat.StatusDenied, Content: "This tool call was denied; it did not run."}},
	)
	s := h.screen()
	for _, want := range []string{"✓ bash  true", "✗ bash  false", "exit status 1", "⤼ bash  rm x  skipped", "plan mode is read-only", "✗ bash  curl x  denied"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q:\n%s", want, s)
		}
	}
}

func TestChecksAndHookDecisionsAreCompact(t *testing.T) {
	h := newHarness(t)
	h.events(
		agent.HookDecision{Decision: hooks.Decision{Event: hooks.PreToolCall, Hook: approval.HookName, Result: "pause"}},
		agent.HookDecision{Decision: hooks.Decision{Event: hooks.PreToolCall, Hook: "guard", Result: "skip", Reason: "no network"}},
		agent.CheckStarted{Check: "gofmt"},
		agent.CheckFinished{Check: "gofmt", Status: "ok"},
		agent.CheckStarted{Check: "vet"},
	)
	if s := h.screen(); !strings.Contains(s, "gofmt ✓  vet ⠋") {
		t.Errorf("running check:\n%s", s)
	}
	h.events(
		agent.CheckFinished{Check: "vet", Status: "problems", Problems: 2, Summary: "main.go:3: x declared and not used\nmain.go:9: unreachable code"},
		agent.RetryPushed{Round: 1, Max: 3, Hook: "checks"},
	)
	s := h.screen()
	if !strings.Contains(s, "checks  gofmt ✓  vet ✗ 2 problems  → retry 1/3") {
		t.Errorf("checks line:\n%s", s)
	}
	if !strings.Contains(s, "main.go:3: x declared and not used") {
		t.Errorf("check details:\n%s", s)
	}
	if !strings.Contains(s, "pre_tool_call hook guard: skip — no network") || strings.Contains(s, "approval: pause") {
		t.Errorf("hook decisions:\n%s", s)
	}
	if !strings.Contains(s, "retry 1/3") {
		t.Errorf("status line lacks the retry round:\n%s", s)
	}
}

func TestRunErrorsAndCaps(t *testing.T) {
	h := newHarness(t)
	h.agent.outcomes = []fakeOutcome{
		{out: agent.Outcome{Status: agent.StatusAborted}, err: errors.New("model endpoint: 401 unauthorized")},
		{out: agent.Outcome{Status: agent.StatusCapped, Reason: "retry budget of 3 rounds used up"}},
	}
	h.typeText("a").keys("enter")
	h.typeText("b").keys("enter")
	s := h.screen()
	if !strings.Contains(s, "✗ model endpoint: 401 unauthorized") || !strings.Contains(s, "stopped: retry budget") {
		t.Errorf("errors:\n%s", s)
	}
}

func TestTurnEndPause(t *testing.T) {
	h := newHarness(t)
	h.agent.outcomes = []fakeOutcome{{out: agent.Outcome{Status: agent.StatusPaused, Reason: "review the diff first"}}}
	h.typeText("go").keys("enter")
	if s := h.screen(); !strings.Contains(s, "A hook paused the turn") || !strings.Contains(s, "review the diff first") {
		t.Fatalf("no turn pause dialog:\n%s", s)
	}
	h.keys("y")
	if len(h.agent.resumes) != 1 || h.agent.resumes[0] != nil {
		t.Fatalf("resumes = %+v", h.agent.resumes)
	}
	h.agent.outcomes = []fakeOutcome{{out: agent.Outcome{Status: agent.StatusPaused, Reason: "again"}}, {block: true}}
	h.typeText("go").keys("enter", "n")
	if len(h.agent.resumes) != 2 || h.agent.ctxs[len(h.agent.ctxs)-1].Err() == nil {
		t.Fatalf("stop did not resume with a cancelled context")
	}
	if s := h.screen(); !strings.Contains(s, "interrupted") {
		t.Errorf("stop:\n%s", s)
	}
}

func TestUsageInStatusLine(t *testing.T) {
	h := newHarness(t)
	h.events(agent.UsageReport{Request: chat.Usage{PromptTokens: 9000, CompletionTokens: 500, TotalTokens: 9500}},
		agent.UsageReport{Request: chat.Usage{PromptTokens: 11000, CompletionTokens: 800, TotalTokens: 11800}})
	if s := h.screen(); !strings.Contains(s, "21.3k tok (ctx 11.0k)") {
		t.Errorf("usage:\n%s", s)
	}
}

func TestBackgroundPicksTheTheme(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Theme = "" })
	if cmd := h.m.Init(); cmd == nil {
		t.Fatal("Init asks nothing")
	}
	h.send(tea.BackgroundColorMsg{Color: ansiWhite})
	if h.m.theme.Name != "light" {
		t.Errorf("light background: theme %s", h.m.theme.Name)
	}
	h.send(tea.BackgroundColorMsg{Color: ansiBlack})
	if h.m.theme.Name != "dark" {
		t.Errorf("dark background: theme %s", h.m.theme.Name)
	}

	fixed := newHarness(t, func(o *Options) { o.Theme = "high-contrast" })
	fixed.send(tea.BackgroundColorMsg{Color: ansiWhite})
	if fixed.m.theme.Name != "high-contrast" {
		t.Errorf("--theme lost to the background: %s", fixed.m.theme.Name)
	}

	nc := newHarness(t, func(o *Options) {
		o.Theme = ""
		o.Env = []string{"NO_COLOR=1"}
	})
	nc.send(tea.BackgroundColorMsg{Color: ansiWhite})
	if !nc.m.theme.IsNoColor() {
		t.Errorf("NO_COLOR: theme %s", nc.m.theme.Name)
	}
}

// When the program ends while a run stops (SIGTERM during a tool call),
// the events the run sent while it stopped still reach the transcript the
// UI leaves behind, and a call with no end is shown as not run: before,
// the scrollback kept the spinner of the cancelled call.
func TestSettleAfterExitLeavesNoLiveCall(t *testing.T) {
	h := newHarness(t)
	a, b := bashCall("a", "sleep 60"), bashCall("b", "sleep 61")
	h.events(
		agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{a, b}}},
		agent.ToolCallStarted{Call: a},
		agent.ToolCallStarted{Call: b},
	)
	// What the run sent after the program stopped taking events.
	h.m.bridge.Send(agent.ToolCallFinished{Call: a, Result: chat.ToolResult{CallID: "a", Status: chat.StatusError, Content: "The command was cancelled."}})
	h.m.settle()
	for _, tl := range h.m.tools {
		if tl.live() {
			t.Errorf("call %s is still shown live (state %d)", tl.call.ID, tl.state)
		}
	}
	out := strings.Join(h.m.scrollback(), "\n")
	if !strings.Contains(out, "The command was cancelled.") || !strings.Contains(out, "not run") {
		t.Errorf("scrollback lacks the cancelled result or the call not run:\n%s", out)
	}
}

// TestModelRetriesShowAsOneLine: each retry of a failed model request
// replaces the one line of the status line that says so (it used to add
// a transcript line per retry), and the line goes once the reply comes.
func TestModelRetriesShowAsOneLine(t *testing.T) {
	h := newHarness(t)
	h.hold = true
	h.typeText("hi").keys("enter")
	before := len(h.m.transcript.entries)
	h.events(agent.ModelRetry{Attempt: 1, Retries: 4, Wait: 500 * time.Millisecond, Err: "connection refused"})
	h.events(agent.ModelRetry{Attempt: 2, Retries: 4, Wait: time.Second, Err: "connection refused"})
	s := h.screen()
	if n := strings.Count(s, "model request failed"); n != 1 || !strings.Contains(s, "model request failed (connection refused); retry 2 of 4 in 1s") {
		t.Fatalf("%d retry lines:\n%s", n, s)
	}
	if got := len(h.m.transcript.entries); got != before {
		t.Errorf("the retries added %d transcript entries", got-before)
	}
	h.events(agent.TextDelta{Text: "hello"})
	if s := h.screen(); strings.Contains(s, "model request failed") {
		t.Errorf("the retry line stayed after the reply began:\n%s", s)
	}
}
