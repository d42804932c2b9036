package tui

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// fakeAgent records what the UI asks of it and answers with scripted
// outcomes, at once.
type fakeAgent struct {
	// tools previews the calls of a paused outcome that have no preview,
	// as the Worker does.
	tools    agent.Previewer
	mu       sync.Mutex
	runs     []string
	resumes  [][]agent.Decision
	model    string
	outcomes []fakeOutcome // answers to Run and Resume, in order
	ctxs     []context.Context
	// compacts are the focuses Compact was called with; compactErr is
	// its answer.
	compacts   []string
	compactErr error
	// notes are the notes for the model the UI gave (Note).
	notes []string
}

type fakeOutcome struct {
	out agent.Outcome
	err error
	// block, when set, makes the call wait until its context ends and then
	// return the context's error.
	block bool
}

func (f *fakeAgent) next(ctx context.Context) (agent.Outcome, error) {
	f.mu.Lock()
	f.ctxs = append(f.ctxs, ctx)
	if len(f.outcomes) == 0 {
		f.mu.Unlock()
		return agent.Outcome{Status: agent.StatusFinished}, nil
	}
	o := f.outcomes[0]
	f.outcomes = f.outcomes[1:]
	f.mu.Unlock()
	o.out.Pending = f.previewed(o.out.Pending)
	if o.block {
		<-ctx.Done()
		return agent.Outcome{Status: agent.StatusAborted}, ctx.Err()
	}
	return o.out, o.err
}

// previewed gives each pending call without a preview its tool's.
func (f *fakeAgent) previewed(pending []agent.PendingCall) []agent.PendingCall {
	if f.tools == nil || len(pending) == 0 {
		return pending
	}
	out := slices.Clone(pending)
	for i, p := range out {
		if p.Preview == nil {
			pv := f.tools.Preview(p.Call)
			out[i].Preview = &pv
		}
	}
	return out
}

func (f *fakeAgent) Run(ctx context.Context, input string, images ...chat.Image) (agent.Outcome, error) {
	f.mu.Lock()
	f.runs = append(f.runs, input)
	f.mu.Unlock()
	return f.next(ctx)
}

func (f *fakeAgent) RunCommand(ctx context.Context, command string) (agent.Outcome, error) {
	f.mu.Lock()
	f.runs = append(f.runs, "!"+command)
	f.mu.Unlock()
	return f.next(ctx)
}

func (f *fakeAgent) Resume(ctx context.Context, d []agent.Decision) (agent.Outcome, error) {
	f.mu.Lock()
	f.resumes = append(f.resumes, d)
	f.mu.Unlock()
	return f.next(ctx)
}

func (f *fakeAgent) Compact(_ context.Context, focus string) (agent.Compacted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.compacts = append(f.compacts, focus)
	return agent.Compacted{}, f.compactErr
}

func (f *fakeAgent) Note(text string) {
	f.mu.Lock()
	f.notes = append(f.notes, text)
	f.mu.Unlock()
}

func (f *fakeAgent) SetModel(m string) {
	f.mu.Lock()
	f.model = m
	f.mu.Unlock()
}

// harness drives a Model by calling Update directly. Cmds are run at once,
// and the messages they return that the model handles itself (a run's
// end, a file read) are fed back; the others are kept in out.
type harness struct {
	t     *testing.T
	m     *Model
	agent *fakeAgent
	tools *tools.Registry
	dir   string // the workspace of the tools
	out   []tea.Msg
	// hold, when set, keeps the Cmds Update returns in held instead of
	// running them, so a test can look at (and press keys in) the model
	// while a run is in progress; release runs them.
	hold bool
	held []tea.Cmd
}

var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func newHarness(t *testing.T, opts ...func(*Options)) *harness {
	t.Helper()
	reg, dir := testTools(t)
	fa := &fakeAgent{tools: reg}
	o := Options{
		Agent:   fa,
		Model:   "test-model",
		Workdir: "/home/user/src/proj",
		Theme:   "dark",
		Policy:  approval.New(approval.Default, reg),
		Tools:   reg,
		Env:     []string{"HOME=/home/user"},
		Now:     func() time.Time { return fixedNow },
	}
	for _, f := range opts {
		f(&o)
	}
	o.Bridge = NewBridge()
	o.Bridge.Close() // tests deliver events with eventsMsg
	m := New(o)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	h := &harness{t: t, m: m, agent: fa, tools: reg, dir: dir}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	return h
}

// testTools is tackle's tool registry on an empty workspace, and the
// workspace's directory.
func testTools(t *testing.T) (*tools.Registry, string) {
	t.Helper()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return tools.NewRegistry(ws), ws.Dir()
}

// file writes a file into the workspace of the tools, and the model reads
// it (an edit or a write of a file the model never read is refused before
// anyone is asked).
func (h *harness) file(name, content string) *harness {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, name), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	args, _ := json.Marshal(tools.ReadFileArgs{Path: name})
	if res, err := h.tools.Run(context.Background(), chat.ToolCall{ID: "read", Name: tools.ReadFile, Arguments: string(args)}); err != nil || res.Status != chat.StatusOK {
		h.t.Fatalf("read %s: %v %v", name, res, err)
	}
	return h
}

// send updates the model with msg and runs the Cmds it returns.
func (h *harness) send(msgs ...tea.Msg) *harness {
	h.t.Helper()
	for _, msg := range msgs {
		_, cmd := h.m.Update(msg)
		if h.hold {
			if cmd != nil {
				h.held = append(h.held, cmd)
			}
			continue
		}
		h.run(cmd)
	}
	return h
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case runDoneMsg, compactDoneMsg, eventsMsg, historySaveFailedMsg, sessionsListedMsg, sessionOpenedMsg, mcpRestarted, resourcesRead, promptGot, printedMsg, rulesSavedMsg, modelsListedMsg:
		h.send(msg)
	default:
		if reflect.TypeOf(msg).Name() == "requestCursorPosMsg" {
			// The terminal answers a cursor position request (inline
			// mode's frame syncs).
			h.send(tea.CursorPositionMsg{})
			return
		}
		if isSequence(msg) {
			for _, c := range sequenceCmds(msg) {
				h.run(c)
			}
			return
		}
		h.out = append(h.out, msg)
	}
}

// release stops holding Cmds and runs the ones held.
func (h *harness) release() *harness {
	held := h.held
	h.held, h.hold = nil, false
	for _, c := range held {
		h.run(c)
	}
	return h
}

func (h *harness) events(evs ...agent.Event) *harness {
	h.t.Helper()
	return h.send(eventsMsg{events: evs}, frameMsg{})
}

func (h *harness) keys(ks ...string) *harness {
	h.t.Helper()
	for _, k := range ks {
		h.send(keyMsg(k))
	}
	return h
}

func (h *harness) typeText(s string) *harness {
	for _, r := range s {
		if r == '\n' {
			h.send(keyMsg("ctrl+j"))
			continue
		}
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return h
}

// screen is the view as plain text, trailing spaces trimmed.
func (h *harness) screen() string {
	lines := strings.Split(ansi.Strip(h.m.View().Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (h *harness) quit() bool {
	for _, m := range h.out {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// keyMsg builds a key press from its String() form.
func keyMsg(k string) tea.KeyPressMsg {
	named := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
		"space": tea.KeySpace,
	}
	var mod tea.KeyMod
	for {
		switch {
		case strings.HasPrefix(k, "ctrl+") && len(k) > 5:
			mod |= tea.ModCtrl
			k = k[5:]
			continue
		case strings.HasPrefix(k, "alt+") && len(k) > 4:
			mod |= tea.ModAlt
			k = k[4:]
			continue
		case strings.HasPrefix(k, "shift+") && len(k) > 6:
			mod |= tea.ModShift
			k = k[6:]
			continue
		}
		break
	}
	if r, ok := named[k]; ok {
		msg := tea.KeyPressMsg{Code: r, Mod: mod}
		if r == tea.KeySpace && mod == 0 {
			msg.Text = " "
		}
		return msg
	}
	r := []rune(k)[0]
	msg := tea.KeyPressMsg{Code: r, Mod: mod}
	if mod == 0 {
		msg.Text = k
	}
	return msg
}

// golden compares got with testdata/tui/name.golden at the repository
// root; go test -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "tui", name+".golden")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./tui -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func bashCall(id, cmd string) chat.ToolCall {
	b, _ := jsonMarshal(map[string]string{"command": cmd})
	return chat.ToolCall{ID: id, Name: "bash", Arguments: string(b)}
}

// isSequence reports whether msg is tea.Sequence's internal message.
func isSequence(msg tea.Msg) bool {
	v := reflect.ValueOf(msg)
	return v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil))
}

func sequenceCmds(msg tea.Msg) []tea.Cmd {
	v := reflect.ValueOf(msg)
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func noStyleForTest() lipgloss.Style { return lipgloss.NewStyle() }
