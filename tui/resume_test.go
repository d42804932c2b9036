package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// savedRecords is a session as the Recorder writes it: a prompt, a reply
// with two calls (one ran, one a hook skipped), a check that pushed
// feedback, the answer after it; then a second prompt whose run was
// interrupted.
func savedRecords() []session.Record {
	msg := func(m chat.Message) *chat.Message { return &m }
	calls := []chat.ToolCall{
		{ID: "c1", Name: "bash", Arguments: `{"command":"go test ./..."}`},
		{ID: "c2", Name: "bash", Arguments: `{"command":"rm -rf build"}`},
	}
	return []session.Record{
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleSystem, Content: "You are tackle."})},
		{Kind: session.KindMessage, Prompt: true, Message: msg(chat.UserMessage("fix the failing test"))},
		{Kind: session.KindUsage, Usage: &chat.Usage{PromptTokens: 1200, CompletionTokens: 40, TotalTokens: 1240}},
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleAssistant, Content: "Running the **tests** first.", ToolCalls: calls})},
		{Kind: session.KindDecision, Decision: &hooks.Decision{Event: hooks.PreToolCall, Hook: "no-rm", Result: "skip", Reason: "rm is not allowed here", CallID: "c2"}},
		{Kind: session.KindMessage, Status: chat.StatusOK, Message: msg(chat.Message{Role: chat.RoleTool, ToolCallID: "c1", Content: "--- FAIL: TestParse\nFAIL"})},
		{Kind: session.KindMessage, Status: chat.StatusSkipped, Message: msg(chat.Message{Role: chat.RoleTool, ToolCallID: "c2", Content: `Skipped by hook "no-rm"; the tool did not run. Reason: rm is not allowed here`})},
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleAssistant, Content: "Fixed the split in parse.go."})},
		{Kind: session.KindCheck, Check: &agent.CheckFinished{Check: "go vet", Status: "problems", Problems: 1, Summary: "parse.go:3: x declared and not used"}},
		{Kind: session.KindDecision, Decision: &hooks.Decision{Event: hooks.OnTurnEnd, Hook: "checks", Result: "continue_with_messages"}},
		{Kind: session.KindMessage, Message: msg(chat.UserMessage("parse.go:3: x declared and not used\nFix it."))},
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleAssistant, Content: "Removed the unused variable."})},
		{Kind: session.KindOutcome, Outcome: &session.Outcome{Status: "finished", Turns: 1}},
		{Kind: session.KindMessage, Prompt: true, Message: msg(chat.UserMessage("now the docs"))},
		{Kind: session.KindOutcome, Outcome: &session.Outcome{Status: "aborted", Reason: "context canceled", Turns: 2}},
	}
}

// The resumed transcript is drawn from the records as it was shown live:
// prompts, rendered answers, tool lines with their status, hook and check
// lines, the feedback, the interruption.
func TestResumedTranscriptShowsTheSessionAsItWas(t *testing.T) {
	next := &fakeAgent{}
	h := newHarness(t, func(o *Options) {
		o.Resumed = &Resumed{ID: "20261122-223000-1a2b", Agent: next, Model: "saved-model", Records: savedRecords(),
			Warnings: []string{"session.jsonl:9: the last line is incomplete (tackle stopped while writing it); skipped"}}
	})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 40})
	screen := h.screen()
	for _, want := range []string{
		"› fix the failing test",
		"● Running the tests first.", // markdown rendered: no asterisks
		"✓ bash  go test ./...", "--- FAIL: TestParse",
		"⤼ bash  rm -rf build  skipped", "rm is not allowed here",
		"pre_tool_call hook no-rm: skip",
		"● Fixed the split in parse.go.",
		"◆ checks  go vet ✗ 1 problem", "parse.go:3: x declared and not used",
		"↻ checks pushed feedback to the model: parse.go:3: x declared and not used",
		"● Removed the unused variable.",
		"› now the docs", "⏹ interrupted",
		"⚠ session.jsonl:9: the last line is incomplete",
		"· resumed session 20261122-223000-1a2b (2 turns)",
		"saved-model",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the resumed transcript lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "You are tackle.") || strings.Contains(screen, "**tests**") {
		t.Errorf("the system prompt or raw markdown is shown:\n%s", screen)
	}
	golden(t, "resumed_80x40", screen)

	h.typeText("go on").keys("enter")
	if len(next.runs) != 1 || next.runs[0] != "go on" || len(h.agent.runs) != 0 {
		t.Errorf("runs: resumed agent %v, first agent %v", next.runs, h.agent.runs)
	}
}

// fakeSessions lists sessions and opens one with a fake agent.
type fakeSessions struct {
	list    []session.Info
	listErr error
	opened  []string
	agent   *fakeAgent
	paused  *agent.Outcome
}

func (f *fakeSessions) List() ([]session.Info, error) { return f.list, f.listErr }

func (f *fakeSessions) Open(id string) (Resumed, error) {
	f.opened = append(f.opened, id)
	if id == "broken" {
		return Resumed{}, errors.New("session broken is open in another tackle process")
	}
	return Resumed{ID: id, Agent: f.agent, Model: "m2", Records: savedRecords()[:8], Paused: f.paused}, nil
}

func infos() []session.Info {
	at := func(h int) time.Time { return fixedNow.Add(-time.Duration(h) * time.Hour) }
	return []session.Info{
		{ID: "20260501-110000-aaaa", Updated: at(1), FirstPrompt: "fix the failing test", Turns: 3, Model: "gpt-4.1"},
		{ID: "20260429-090000-bbbb", Updated: at(51), FirstPrompt: "write the\nREADME", Turns: 1, Model: "qwen3-coder"},
		{ID: "broken", Updated: at(70), FirstPrompt: "held elsewhere", Turns: 2, Model: "m"},
	}
}

// /resume lists the sessions (last use, turns, model, first prompt); enter
// goes on with the one selected; its transcript replaces the screen and
// the next prompt goes to its agent.
func TestResumePickerOpensASession(t *testing.T) {
	fs := &fakeSessions{list: infos(), agent: &fakeAgent{}}
	h := newHarness(t, func(o *Options) { o.Sessions = fs })
	h.typeText("hello").keys("enter")
	h.typeText("/resume").keys("enter")
	screen := h.screen()
	for _, want := range []string{"Resume a session", "last used", "▸ today 11:00", "3  gpt-4.1", "fix the failing test",
		"2026-04-29 09:00", "write the ⏎ README", "enter resume"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the picker lacks %q:\n%s", want, screen)
		}
	}
	h.keys("down", "enter")
	if len(fs.opened) != 1 || fs.opened[0] != "20260429-090000-bbbb" {
		t.Fatalf("opened %v", fs.opened)
	}
	screen = h.screen()
	if strings.Contains(screen, "› hello") || !strings.Contains(screen, "› fix the failing test") || !strings.Contains(screen, "resumed session 20260429-090000-bbbb") {
		t.Errorf("the transcript is not the resumed session's:\n%s", screen)
	}
	h.typeText("more").keys("enter")
	if len(fs.agent.runs) != 1 || fs.agent.runs[0] != "more" {
		t.Errorf("the resumed agent ran %v", fs.agent.runs)
	}

	// A session that cannot be opened leaves the conversation as it is.
	h.typeText("/resume").keys("enter", "end", "enter")
	if !strings.Contains(h.screen(), "open in another tackle process") || h.m.agent != Agent(fs.agent) {
		t.Errorf("a failed open:\n%s", h.screen())
	}
	// esc closes the list.
	h.typeText("/resume").keys("enter", "esc")
	if len(h.m.dialogs) != 0 || len(fs.opened) != 2 {
		t.Errorf("esc: dialogs %d, opened %v", len(h.m.dialogs), fs.opened)
	}
}

// A session saved paused opens with its approval dialog; the answer goes
// to the resumed agent.
func TestResumedPauseAsksForTheDecisions(t *testing.T) {
	pending := []agent.PendingCall{{Call: bashCall("c1", "go test ./..."), Hook: "approval", Reason: "bash wants to run: go test ./..."}}
	fs := &fakeSessions{list: infos()[:1], agent: &fakeAgent{}, paused: &agent.Outcome{Status: agent.StatusPaused, Pending: pending}}
	fs.agent.tools = nil
	h := newHarness(t, func(o *Options) { o.Sessions = fs; o.PickSession = true })
	h.run(h.m.Init())
	if !strings.Contains(h.screen(), "Resume a session") {
		t.Fatalf("PickSession does not open the list:\n%s", h.screen())
	}
	h.keys("enter")
	if !strings.Contains(h.screen(), "Allow bash?") {
		t.Fatalf("no approval dialog:\n%s", h.screen())
	}
	h.keys("y")
	if len(fs.agent.resumes) != 1 || fs.agent.resumes[0][0].Verdict != agent.Approve || fs.agent.resumes[0][0].CallID != "c1" {
		t.Errorf("resumes = %+v", fs.agent.resumes)
	}
}

func TestResumeWithoutSessionsOrWhileRunning(t *testing.T) {
	h := newHarness(t)
	h.typeText("/resume").keys("enter")
	if !strings.Contains(h.screen(), "sessions are not kept here") {
		t.Errorf("no Sessions:\n%s", h.screen())
	}
	fs := &fakeSessions{}
	h = newHarness(t, func(o *Options) { o.Sessions = fs })
	h.typeText("/resume").keys("enter")
	if !strings.Contains(h.screen(), "no other sessions in this workspace yet") {
		t.Errorf("empty list:\n%s", h.screen())
	}
	fs.listErr = errors.New("list sessions: permission denied")
	h.typeText("/resume").keys("enter")
	if !strings.Contains(h.screen(), "permission denied") {
		t.Errorf("list error:\n%s", h.screen())
	}
	h.agent.outcomes = []fakeOutcome{{block: true}}
	h.hold = true
	h.typeText("think").keys("enter")
	h.typeText("/resume").keys("enter")
	if !strings.Contains(h.screen(), "interrupt it (esc) before /resume") {
		t.Errorf("while running:\n%s", h.screen())
	}
	h.m.interrupt()
	h.release()
}

// The message that carries a tool's images is no feedback: a resumed
// transcript shows the call and its result, as it was shown live.
func TestResumedTranscriptSkipsTheImagesMessage(t *testing.T) {
	msg := func(m chat.Message) *chat.Message { return &m }
	call := chat.ToolCall{ID: "c1", Name: "mcp__test__read_media", Arguments: `{}`}
	records := []session.Record{
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleSystem, Content: "You are tackle."})},
		{Kind: session.KindMessage, Prompt: true, Message: msg(chat.UserMessage("look at the logo"))},
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call}})},
		{Kind: session.KindMessage, Status: chat.StatusOK, Message: msg(chat.Message{Role: chat.RoleTool, ToolCallID: "c1", Content: "[image: image/png, 2.0 KiB]"})},
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleUser, Content: "[The images the tool calls above returned, in order: c1 (mcp__test__read_media): 1 image.]",
			Images: []chat.Image{{MIMEType: "image/png", Data: []byte("\x89PNG")}}})},
		{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleAssistant, Content: "A blue logo."})},
	}
	h := newHarness(t, func(o *Options) {
		o.Resumed = &Resumed{ID: "20261125-100000-1a2b", Agent: &fakeAgent{}, Model: "m", Records: records}
	})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 30})
	screen := h.screen()
	if !strings.Contains(screen, "test › read_media") || !strings.Contains(screen, "[image: image/png, 2.0 KiB]") || !strings.Contains(screen, "A blue logo.") {
		t.Errorf("the resumed transcript:\n%s", screen)
	}
	if strings.Contains(screen, "pushed feedback") || strings.Contains(screen, "The images the tool calls") {
		t.Errorf("the images message is shown as feedback:\n%s", screen)
	}
}
