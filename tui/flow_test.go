package tui

// teatest flows: the real Worker, talking to the scripted OpenAI-compatible
// server through the real client, with real tools in a temporary
// workspace, driven through a running Bubble Tea program.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// probe wraps the root model and publishes the screen after every
// update, so a test waits for what the user would see.
type probe struct {
	m *Model

	mu      sync.Mutex
	screen  string
	changed chan struct{} // closed and replaced on every update
}

func newProbe(m *Model) *probe { return &probe{m: m, changed: make(chan struct{})} }

func (p *probe) Init() tea.Cmd { return p.m.Init() }

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.m.Update(msg)
	screen := ansi.Strip(p.m.View().Content)
	p.mu.Lock()
	p.screen = screen
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	return p, cmd
}

func (p *probe) View() tea.View { return p.m.View() }

// waitFor waits until the screen satisfies cond, failing the test after
// the deadline. Every update is an event; nothing sleeps.
func (p *probe) waitFor(t *testing.T, what string, cond func(screen string) bool) string {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		screen, changed := p.screen, p.changed
		p.mu.Unlock()
		if cond(screen) {
			return screen
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; the screen is:\n%s", what, screen)
		}
	}
}

func (p *probe) waitText(t *testing.T, text string) string {
	t.Helper()
	return p.waitFor(t, "“"+text+"”", func(s string) bool { return strings.Contains(flatten(s), text) })
}

// flatten joins the screen's lines so a text wrapped across lines is found.
func flatten(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "│●›⎿")))
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// flow is one UI session against a scripted server.
type flow struct {
	t         *testing.T
	srv       *llmtest.Server
	workspace string
	tm        *teatest.TestModel
	p         *probe
}

// newFlow starts a UI session on the script; tweaks change the Worker's
// configuration.
func newFlow(t *testing.T, script string, tweaks ...func(*agent.Config)) *flow {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join("..", "testdata", "e2e", script)))
	dir := t.TempDir()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	checkpoints := tools.NewCheckpoints(ws)
	toolbox := tools.NewRegistry(ws, tools.WithCheckpoints(checkpoints))
	policy := approval.New(approval.Default, toolbox, approval.WithWorkspace(ws.Dir()))
	reg := hooks.NewRegistry()
	reg.PreToolCall(policy.Hook())

	bridge := NewBridge()
	cfg := agent.Config{
		Client:          agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "sk-test", MaxRetries: -1}),
		Model:           "flow-model",
		Tools:           toolbox,
		Hooks:           reg,
		OnEvent:         bridge.Send,
		OnApproveAlways: func(c chat.ToolCall) { policy.Remember(c) },
	}
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	w := agent.New(cfg)
	m := New(Options{
		Agent:       w,
		Bridge:      bridge,
		Policy:      policy,
		Tools:       toolbox,
		Checkpoints: checkpoints,
		Mentions: WorkspaceMentions{WS: ws, Refuse: func(rel string) string {
			if rel == ".env" {
				return "it is a protected file"
			}
			return ""
		}},
		Model:   "flow-model",
		Workdir: dir,
		Theme:   "dark",
		Env:     []string{},
	})
	p := newProbe(m)
	tm := teatest.NewTestModel(t, p,
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	t.Cleanup(func() {
		bridge.Close()
		_ = tm.Quit()
	})
	return &flow{t: t, srv: srv, workspace: dir, tm: tm, p: p}
}

func (f *flow) submit(prompt string) {
	f.tm.Type(prompt)
	f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
}

func (f *flow) key(k string) { f.tm.Send(keyMsg(k)) }

// quit ends the program with ctrl+d and waits for it.
func (f *flow) quit() *Model {
	f.key("ctrl+d")
	fm := f.tm.FinalModel(f.t, teatest.WithFinalTimeout(10*time.Second))
	return fm.(*probe).m
}

// toolResult is the result the server received for a call.
func (f *flow) toolResult(callID string) string {
	f.t.Helper()
	for _, r := range f.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == chat.RoleTool && m.ToolCallID == callID {
				return m.Content
			}
		}
	}
	f.t.Fatalf("no request carried a result for %s", callID)
	return ""
}

func TestFlowStreamAnswer(t *testing.T) {
	f := newFlow(t, "tui_answer.json")
	f.submit("why does TestParse fail?")
	f.p.waitText(t, "why does TestParse fail?")
	screen := f.p.waitText(t, "That is all.")
	for _, want := range []string{"Plan", "TestParse", "func parse(s string) []string {", "read the test", "fix the split"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the answer lacks %q:\n%s", want, screen)
		}
	}
	screen = f.p.waitFor(t, "the turn to end", func(s string) bool { return !strings.Contains(s, "esc to interrupt") })
	if !strings.Contains(screen, "1.3k tok") {
		t.Errorf("the status line does not count the tokens:\n%s", screen)
	}
	m := f.quit()
	if got := m.transcript.all(); !strings.Contains(ansi.Strip(got), "That is all.") {
		t.Errorf("the transcript written on exit lacks the answer:\n%s", got)
	}
}

func TestFlowApproveToolCall(t *testing.T) {
	f := newFlow(t, "tui_approve.json")
	f.submit("say hello")
	screen := f.p.waitText(t, "Allow bash?")
	if !strings.Contains(screen, "$ echo hello-from-tool | tee ran.txt") {
		t.Errorf("the modal does not show the command:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "ran.txt")); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	f.key("y")
	screen = f.p.waitText(t, "The command printed its greeting.")
	if !strings.Contains(screen, "✓ bash  echo hello-from-tool | tee ran.txt") || !strings.Contains(screen, "hello-from-tool") {
		t.Errorf("the tool call is not shown as run:\n%s", screen)
	}
	if got := f.toolResult("call_echo"); !strings.Contains(got, "hello-from-tool") {
		t.Errorf("tool result = %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "ran.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	f.quit()
}

func TestFlowDenyWithReason(t *testing.T) {
	f := newFlow(t, "tui_deny.json")
	f.submit("say hello")
	f.p.waitText(t, "Allow bash?")
	f.key("d")
	f.p.waitText(t, "deny with this reason")
	f.tm.Type("use printf instead")
	f.key("enter")
	screen := f.p.waitText(t, "Understood: I did not run it.")
	if !strings.Contains(screen, "denied") || !strings.Contains(screen, "by you: use printf instead") {
		t.Errorf("the denial is not shown:\n%s", screen)
	}
	got := f.toolResult("call_echo")
	if !strings.HasPrefix(got, "This tool call was denied") || !strings.Contains(got, "use printf instead") {
		t.Errorf("the model was not told the reason: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "ran.txt")); err == nil {
		t.Error("the denied command ran")
	}
	f.quit()
}

func TestFlowCancelMidStream(t *testing.T) {
	f := newFlow(t, "tui_stall.json")
	f.submit("think hard")
	select {
	case <-f.srv.Stalled():
	case <-time.After(15 * time.Second):
		t.Fatal("the server never stalled")
	}
	f.p.waitText(t, "Thinking about it")
	f.key("esc")
	screen := f.p.waitText(t, "interrupted")
	if strings.Contains(screen, "esc to interrupt") {
		t.Errorf("the turn still runs after the interruption:\n%s", screen)
	}
	if !strings.Contains(screen, "Thinking about it") {
		t.Errorf("the partial answer is gone:\n%s", screen)
	}
	// The session goes on: the next prompt can be typed.
	f.tm.Type("next")
	f.p.waitFor(t, "the typed text", func(s string) bool { return strings.Contains(s, "› next") })
	f.key("ctrl+c") // clears the editor
	f.quit()
}

func TestFlowApproveAlways(t *testing.T) {
	f := newFlow(t, "tui_always.json")
	f.submit("check go")
	screen := f.p.waitText(t, "Allow bash?")
	if !strings.Contains(screen, "always allow bash(go version *)") {
		t.Errorf("the dialog does not name the rule it adds:\n%s", screen)
	}
	f.key("a")
	// The second call is covered by the session rule: it runs without a
	// dialog, and the turn ends.
	screen = f.p.waitText(t, "Both ran.")
	if strings.Count(screen, "bash  go version") != 2 || strings.Contains(screen, "denied") {
		t.Errorf("both calls did not run:\n%s", screen)
	}
	// It ran: go version -m fails on /dev/null, and says so.
	if got := f.toolResult("call_2"); !strings.Contains(got, "exit code 1") {
		t.Errorf("second result = %q", got)
	}
	m := f.quit()
	if got := m.opts.Policy.(*approval.Policy).SessionRules(); len(got) != 1 || got[0] != "bash(go version *)" {
		t.Errorf("session rules = %q", got)
	}
}

func TestFlowCompact(t *testing.T) {
	f := newFlow(t, "tui_compact.json", func(c *agent.Config) {
		c.ContextWindow = func(context.Context, string) int { return 10000 }
	})
	if err := os.WriteFile(filepath.Join(f.workspace, "notes.txt"), []byte(strings.Repeat("ship on friday\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.submit("read my notes")
	f.p.waitText(t, "I read the notes.")
	screen := f.p.waitFor(t, "the context use", func(s string) bool { return strings.Contains(s, "ctx 20%") })
	if !strings.Contains(screen, "✓ read_file") {
		t.Errorf("the read is not shown:\n%s", screen)
	}

	f.submit("/compact the deadline")
	screen = f.p.waitText(t, "conversation compacted (/compact): summarized 3 messages")
	if !strings.Contains(flatten(screen), "focus: the deadline") {
		t.Errorf("the compaction line lacks the focus:\n%s", screen)
	}
	screen = f.p.waitFor(t, "the end of the compaction", func(s string) bool { return !strings.Contains(s, "esc to interrupt") })
	if !strings.Contains(screen, "ctx 9%") {
		t.Errorf("the status line does not show the smaller context:\n%s", screen)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[2].Messages[1].Content, "keep in particular: the deadline") {
		t.Fatalf("%d requests; the last is not the summary request", len(reqs))
	}

	// The next turn sends the compacted conversation.
	f.submit("when do we ship?")
	f.p.waitText(t, "On Friday.")
	reqs = f.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if len(last) != 3 || !strings.HasSuffix(last[0].Content, "The user had notes.txt read: ship on friday.") || last[1].Content != "I read the notes." {
		t.Errorf("the request after /compact has %d messages: %.200q", len(last), last[0].Content)
	}
	f.quit()
}

// TestFlowReasoning: a thinking model's reasoning streams live, dim, under
// "Thinking…" (its latest lines), folds to one line when the answer comes
// or the turn is interrupted, and ctrl+o shows it whole. It is never part
// of the answer the transcript keeps.
func TestFlowReasoning(t *testing.T) {
	f := newFlow(t, "tui_reasoning.json")
	f.submit("why does the parser fail?")
	select {
	case <-f.srv.Stalled():
	case <-time.After(15 * time.Second):
		t.Fatal("the server never stalled")
	}
	// Four frames of reasoning arrived (16 bytes each) before the stall:
	// the live block shows them.
	f.p.waitFor(t, "the live reasoning", func(s string) bool {
		return strings.Contains(s, "Thinking…") && strings.Contains(s, "is lost when")
	})
	f.key("esc")
	screen := f.p.waitText(t, "✻ Thought")
	if strings.Contains(screen, "Thinking…") {
		t.Errorf("the interrupted reasoning did not fold:\n%s", screen)
	}

	f.submit("and now?")
	screen = f.p.waitFor(t, "the answer under its folded reasoning", func(s string) bool {
		return strings.Contains(s, "Done thinking: the answer.") && strings.Contains(s, "✻ Thought · 6 lines (ctrl+o to expand)")
	})
	if strings.Contains(screen, "Second line of thought") {
		t.Errorf("the finished reasoning is not folded:\n%s", screen)
	}
	f.key("ctrl+o")
	screen = f.p.waitText(t, "Sixth line of thought.")
	for _, want := range []string{"First line of thought.", "Fourth line of thought."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the expanded reasoning lacks %q:\n%s", want, screen)
		}
	}
	m := f.quit()
	for _, e := range m.transcript.entries {
		if a, ok := e.(*assistantEntry); ok && strings.Contains(a.raw.String(), "line of thought") {
			t.Errorf("the reasoning is in an answer: %q", a.raw.String())
		}
	}
}

// TestFlowUndo: two turns change a file through the file tools (and run a
// command); /diff shows the session's change, /undo reverts the last turn
// (saying the command is not tracked), a file changed by someone else
// since is only overwritten once the user says so, and /undo then reverts
// the first turn too.
func TestFlowUndo(t *testing.T) {
	f := newFlow(t, "tui_undo.json")
	notes := filepath.Join(f.workspace, "notes.md")
	read := func() string {
		b, err := os.ReadFile(notes)
		if err != nil {
			return "<absent>"
		}
		return string(b)
	}
	f.submit("write notes")
	f.p.waitText(t, "Allow write_file?")
	f.key("y")
	f.p.waitText(t, "Wrote notes.md.")
	f.submit("improve them")
	f.p.waitText(t, "Allow edit_file?")
	f.key("y")
	f.p.waitText(t, "Allow bash?")
	f.key("y")
	f.p.waitFor(t, "the second turn to end", func(s string) bool {
		return strings.Contains(flatten(s), "Edited notes.md.") && !strings.Contains(s, "esc to interrupt")
	})
	if got := read(); got != "# Notes\nsecond draft\n" {
		t.Fatalf("notes.md = %q", got)
	}

	f.submit("/diff")
	screen := f.p.waitText(t, "Changes in this session")
	for _, want := range []string{"notes.md created", "+# Notes", "+second draft"} {
		if !strings.Contains(flatten(screen), want) {
			t.Errorf("/diff lacks %q:\n%s", want, screen)
		}
	}
	f.key("esc")

	f.submit("/undo")
	screen = f.p.waitText(t, "undid 1 turn: restored notes.md")
	if !strings.Contains(flatten(screen), "not tracked, so not undone") || !strings.Contains(flatten(screen), "echo log > run.log") {
		t.Errorf("the undo does not name the untracked command:\n%s", screen)
	}
	if got := read(); got != "# Notes\nfirst draft\n" {
		t.Errorf("after /undo notes.md = %q, want the first draft", got)
	}

	// Someone else edits the file: the next undo asks first.
	if err := os.WriteFile(notes, []byte("# Notes\nmy own words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.submit("/undo")
	f.p.waitText(t, "Undo: files changed since")
	f.key("n")
	f.p.waitText(t, "undo cancelled")
	if got := read(); got != "# Notes\nmy own words\n" {
		t.Fatalf("a cancelled undo changed notes.md: %q", got)
	}
	f.submit("/undo")
	f.p.waitText(t, "Undo: files changed since")
	f.key("y")
	f.p.waitText(t, "deleted notes.md (created by the turn)")
	if got := read(); got != "<absent>" {
		t.Errorf("after undoing the first turn notes.md = %q, want it gone", got)
	}
	f.submit("/undo")
	f.p.waitText(t, "nothing to undo")

	// The model is told, with the next message, what the undos did to the
	// files behind its back.
	f.submit("where are we?")
	f.p.waitText(t, "I see the notes are gone.")
	reqs := f.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	got := msgs[len(msgs)-1].Content
	for _, want := range []string{
		"[Note from tackle: the user ran /undo: the file changes of your last turn were reverted. Restored to how they were before: notes.md. Not undone, what these commands changed: echo log > run.log. Read a file again before you change it.]\n",
		"[Note from tackle: the user ran /undo: the file changes of your last turn were reverted. Deleted (created in those turns): notes.md. Read a file again before you change it.]\n",
		"\n\nwhere are we?",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the message after /undo lacks %q:\n%s", want, got)
		}
	}
	f.quit()
}

// TestFlowApproveThese: three parallel calls through the real Worker; Y
// approves the two that write no protected path, the one that does is
// asked on its own and denied; the model gets one result per call.
func TestFlowApproveThese(t *testing.T) {
	f := newFlow(t, "tui_batch.json")
	f.submit("do three things")
	f.p.waitText(t, "3 calls wait for approval:")
	f.key("Y")
	f.p.waitFor(t, "the protected call on its own", func(s string) bool {
		return strings.Contains(s, "Allow write_file?") && !strings.Contains(s, "calls wait for approval")
	})
	f.key("n")
	f.p.waitText(t, "Done with what was allowed.")
	for _, name := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(f.workspace, name)); err != nil {
			t.Errorf("%s was not written: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.workspace, ".git", "config")); !os.IsNotExist(err) {
		t.Errorf(".git/config was written: %v", err)
	}
	if r := f.toolResult("call_3"); !strings.Contains(r, "denied") {
		t.Errorf("the protected call's result: %q", r)
	}
	for _, id := range []string{"call_1", "call_2"} {
		if r := f.toolResult(id); strings.Contains(r, "denied") {
			t.Errorf("%s: %q", id, r)
		}
	}
	f.quit()
}

// TestFlowMentionAttachesFiles: @ opens a menu of the workspace's files
// (fuzzy), tab completes, and the message the model gets carries the
// mentioned file's content. Paths out of the workspace (.., a link out)
// and a protected file are not attached: the transcript says why.
func TestFlowMentionAttachesFiles(t *testing.T) {
	f := newFlow(t, "tui_mention.json")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	for name, body := range map[string]string{"docs/notes.md": "# Notes\nthe plan\n", ".env": "TOKEN=hunter2\n", outside: "outside the workspace\n"} {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(f.workspace, name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(f.workspace, "link.txt")); err != nil {
		t.Fatal(err)
	}
	f.tm.Type("read @nts")
	f.p.waitText(t, "@docs/notes.md")
	f.key("tab")
	f.p.waitFor(t, "the completed mention", func(s string) bool { return strings.Contains(s, "› read @docs/notes.md") })
	f.tm.Type("and @../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt @link.txt @.env")
	f.key("esc") // close the menu
	f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	f.p.waitText(t, "I read the notes you attached.")
	screen := f.p.waitText(t, "attached docs/notes.md")
	for _, want := range []string{"@link.txt not attached", "@.env not attached: it is a protected file"} {
		if !strings.Contains(flatten(screen), want) {
			t.Errorf("the transcript lacks %q:\n%s", want, screen)
		}
	}
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var user string
	for _, m := range reqs[0].Messages {
		if m.Role == chat.RoleUser {
			user = m.Content
		}
	}
	if !strings.Contains(user, "<file path=\"docs/notes.md\">\n# Notes\nthe plan\n</file>") {
		t.Errorf("the message lacks the file:\n%s", user)
	}
	for _, leak := range []string{"hunter2", "outside the workspace"} {
		if strings.Contains(user, leak) {
			t.Errorf("the message leaks %q:\n%s", leak, user)
		}
	}
	f.quit()
}

// TestFlowShellCommand: "!cmd" runs the command through the bash tool and
// the approval dialog (no model request), shows it like a tool call, and
// the model reads the command and its output with the next prompt.
func TestFlowShellCommand(t *testing.T) {
	f := newFlow(t, "tui_command.json")
	f.submit("!echo hello-from-the-user")
	f.p.waitText(t, "Allow bash?")
	f.key("y")
	f.p.waitFor(t, "the command's output", func(s string) bool {
		return strings.Contains(flatten(s), "hello-from-the-user") && !strings.Contains(s, "esc to interrupt")
	})
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests for a shell command, want none", n)
	}
	f.submit("what did it print?")
	f.p.waitText(t, "The command printed hello-from-the-user.")
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var users []string
	for _, m := range reqs[0].Messages {
		if m.Role == chat.RoleUser {
			users = append(users, m.Content)
		}
		if m.Role == chat.RoleTool || len(m.ToolCalls) > 0 {
			t.Errorf("the request carries a tool message for the user's command: %+v", m)
		}
	}
	if len(users) != 2 || !strings.Contains(users[0], "$ echo hello-from-the-user\nhello-from-the-user") {
		t.Errorf("user messages %q", users)
	}
	f.quit()
}
