// Package tui is tackle's interactive terminal UI: a Bubble Tea v2 program
// on top of the agent's Worker. It shows the conversation as it streams
// (markdown rendered by tui/internal/markdown in the active theme), tool calls and
// their results, hook decisions and turn-end checks; asks for approval of
// paused tool calls in a modal; and takes prompts in a multi-line editor.
//
// The Worker never imports this package. Its events reach the UI through a
// Bridge (its Config.OnEvent is Bridge.Send); Run and Resume run inside
// Cmds that report back with a runDoneMsg.
//
// The root Model is one type whose handlers are split by concern:
// keys.go (the keyboard and mouse), agent_events.go (the Worker's events
// and the end of a run), dialogs.go (the dialog stack), commands.go (slash
// commands) and cmds.go (every Cmd that does I/O).
package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/slash"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tui/internal/markdown"
)

// Agent is the part of the Worker the UI drives.
type Agent interface {
	Run(ctx context.Context, input string, images ...chat.Image) (agent.Outcome, error)
	Resume(ctx context.Context, decisions []agent.Decision) (agent.Outcome, error)
	// RunCommand runs a shell command the user typed (!cmd) through the
	// same hooks and approvals as a model's call and puts it and its
	// output into the conversation.
	RunCommand(ctx context.Context, command string) (agent.Outcome, error)
	SetModel(model string)
	// Note tells the model something that happened outside the
	// conversation, with the next user message (files /undo restored).
	Note(text string)
	// Compact compacts the conversation now (/compact).
	Compact(ctx context.Context, focus string) (agent.Compacted, error)
}

// Policy is the part of the approval policy the UI changes and shows.
type Policy interface {
	Mode() approval.Mode
	SetMode(approval.Mode)
	// Always are the rules approving call "always" adds: only rules that
	// cover the whole call, none when no rule can.
	Always(call chat.ToolCall) []approval.Rule
	// Permissions lists the rules in force with their sources, for
	// /permissions; Revoke drops one for the rest of the session.
	Permissions() []approval.Permission
	Revoke(approval.Permission) bool
	// HeldBack says why "approve these" must leave a call to be asked
	// on its own (it writes a protected path), or "" when it may approve
	// it.
	HeldBack(call chat.ToolCall) string
}

// Tools tells the UI about the calls it shows; *tools.Registry is one.
type Tools interface {
	// Summary says in one line what a call is about, from its tool's
	// typed arguments, without touching the file system.
	Summary(call chat.ToolCall) string
}

// Options configure the UI.
type Options struct {
	// Agent runs the turns. Its events must reach Bridge (Config.OnEvent
	// is Bridge.Send).
	Agent  Agent
	Bridge *Bridge
	// NewAgent, when set, starts a fresh conversation for /new (and
	// /clear); its events must reach the same Bridge. Without it /new only
	// clears the screen.
	NewAgent func() Agent
	// Sessions, when set, backs /resume. Resumed, when set, is the saved
	// conversation to start with (instead of Agent and Model); with
	// PickSession the UI starts with the list of sessions to resume.
	Sessions    Sessions
	Resumed     *Resumed
	PickSession bool
	// Policy, when set, backs /mode and /permissions and names the rules
	// "approve always" adds.
	Policy Policy
	// RuleFiles, when set, lets the approval dialog and /permissions save
	// a rule to the user's or the project's config file.
	RuleFiles RuleFiles

	// Tools, when set, summarises each call on its line of the
	// transcript; without it a call shows its arguments as sent.
	Tools Tools
	// Checkpoints, when set, records each turn's file changes (a turn
	// begins with each prompt) and backs /undo and /diff.
	Checkpoints Checkpoints
	// MCP, when set, backs /mcp: the MCP servers' state and tools.
	MCP MCPServers
	// Mentions, when set, backs @path: completion of the workspace's
	// files, and their content attached to the message.
	Mentions Mentions
	// Commands are the custom slash commands (custom.go); TurnRules,
	// when set, applies their allowed-tools while their turn runs.
	Commands  []slash.Command
	TurnRules TurnRules
	// About says what the welcome block (shown when About.Version is set)
	// and /status show; Prices are
	// the configured prices per model, for /cost.
	About  About
	Prices map[string]Price
	// Keys rebinds the UI's keys: action name → keys (see KeyActions and
	// CheckKeys). An invalid keymap leaves the defaults.
	Keys map[string][]string

	// Model is the model name shown in the status line. Models, when
	// set, lists the endpoint's models for /model's picker.
	Model  string
	Models Models
	// Workdir is the workspace root, shown in the status line.
	Workdir string

	// Theme names the theme; "" or "auto" picks one from the terminal
	// background (and NO_COLOR gives no colour). UserThemes are the themes
	// loaded from the user's theme directory.
	Theme      string
	UserThemes []themes.Theme
	// Env is the environment ("KEY=value", as os.Environ returns it): it
	// gives NO_COLOR, HOME and the terminal's colour profile. Nil means
	// os.Environ().
	Env []string

	// Inline keeps the terminal's normal screen: finished transcript
	// entries are printed into the terminal's scrollback and only the live
	// part is redrawn. The default is the full-screen (alternate screen)
	// mode, which writes the transcript to the terminal when it exits.
	Inline bool

	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// ContextParts are what every request sends before the conversation
	// (the system prompt's parts, the tool definitions), for /context.
	// ContextLive, when set, gives the parts that change while the UI
	// runs as they are when /context opens (the MCP servers' instructions
	// and tools join as each server is ready); they come after
	// ContextParts.
	ContextParts []ContextPart
	ContextLive  func() []ContextPart

	// Prompt, when set, is the first message, sent as the UI starts (as
	// if typed and sent): `tackle "explain main.go"`. When the UI starts
	// with a dialog (a session to pick, a pause to answer) it waits in
	// the editor instead.
	Prompt string

	// History are earlier prompts of this workspace, oldest first: up and
	// ctrl+r reach them. SaveHistory, when set, keeps each new prompt for
	// later sessions; it runs in a Cmd.
	History     []string
	SaveHistory func(prompt string) error
}

// frameInterval spaces the frames that draw streamed text: text deltas in
// between are coalesced (~30 frames per second).
const frameInterval = time.Second / 30

var spinFrames = spinner.MiniDot

// Model is the root model of the UI.
type Model struct {
	opts   Options
	custom customTurn // the custom command whose turn runs, if any
	agent  Agent
	bridge *Bridge
	ctx    context.Context // the session's; each run's context derives from it
	runs   *sync.WaitGroup // Run and Resume calls in flight
	tick   ticker
	now    func() time.Time
	getenv func(string) string

	width, height int
	// mcpStates is each MCP server's latest state (agent.MCPServerStatus).
	mcpStates map[string]string
	ready     bool // a window size arrived

	theme      themes.Theme
	themeFixed bool // chosen by the user; the terminal background does not change it
	darkBG     bool
	styles     themes.Styles
	md         *markdown.Renderer

	transcript transcript
	input      input
	dialogs    []dialog

	// The run in progress.
	applied     uint64      // events shown, as counted by the bridge
	doneWaiting *runDoneMsg // a run's end, waiting for its last events
	// compactWaiting is the end of /compact, waiting for its last events.
	compactWaiting *compactDoneMsg
	running        bool
	userCommand    bool // the run is the user's !cmd
	cancel         context.CancelFunc
	interrupting   bool
	turnStart      time.Time
	keys           []binding             // the global keys, dispatched by handleKey
	usageBy        map[string]chat.Usage // tokens per model, for /cost
	menu           menu                  // the completion menu above the editor
	files          fileList              // the workspace's files, for @path
	focus          int                   // the item cursor's entry, -1 for none
	streaming      *assistantEntry
	thinking       *thinkingEntry // the reasoning being streamed
	tools          map[string]*toolEntry
	checks         *checksEntry
	retry          string           // "retry 1/3" while a turn-end check is being answered
	modelRetry     string           // the model request failed and waits to be retried: why, and when
	plan           []tools.TodoItem // the model's plan, pinned above the editor (plan.go)

	queue []string // prompts typed while a turn runs, sent after it
	// pasted are prompts with large pastes as the transcript shows them:
	// each paste as its placeholder.
	pasted map[string]string

	model    string
	mode     approval.Mode
	usage    chat.Usage // the session's total
	ctxSize  int64      // prompt tokens of the last request
	expanded bool       // tool output shown in full
	// The conversation's size in tokens and the model's context window
	// (0 when unknown), as the Worker last reported them; compacting is
	// set while a compaction runs.
	ctxUsed, ctxWindow int64
	compacting         bool

	spin         int
	spinning     bool // a spinner tick is scheduled
	framePending bool // a frame tick is scheduled

	quitArmed bool // ctrl+c once on an idle prompt
	quitting  bool
	final     bool // the session is over: entries are drawn for the scrollback

	// past are the entries of the conversations before /new and /resume
	// cleared the screen (full-screen mode; inline mode printed them):
	// the transcript written when the session ends begins with them.
	past []entry

	print  printer     // inline mode: the lines on their way to the scrollback
	frame  inlineFrame // inline mode: the frame on the screen
	notice string      // a one-off hint in the status line

	// The rule and the status line as last drawn: the view is drawn after
	// every message, and most messages change neither.
	rule, status memo
}

// getenvIn returns a lookup of env's variables: the last assignment of a
// name wins, as for a child process.
func getenvIn(env []string) func(string) string {
	return func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}

// New returns the root model.
func New(opts Options) *Model {
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Bridge == nil {
		opts.Bridge = NewBridge()
	}
	m := &Model{
		opts:       opts,
		agent:      opts.Agent,
		bridge:     opts.Bridge,
		ctx:        context.Background(),
		runs:       new(sync.WaitGroup),
		tick:       tea.Tick,
		now:        opts.Now,
		getenv:     getenvIn(opts.Env),
		darkBG:     true,
		transcript: newTranscript(),
		tools:      map[string]*toolEntry{},
		pasted:     map[string]string{},
		model:      opts.Model,
		focus:      -1,
	}
	if opts.Policy != nil {
		m.mode = opts.Policy.Mode()
	}
	if km, err := keymap(opts.Keys); err == nil {
		m.keys = km
	} else {
		m.keys = defaultKeymap()
	}
	name := strings.TrimSpace(opts.Theme)
	m.themeFixed = name != "" && name != themes.Auto
	th, err := themes.Select(name, m.getenv, m.darkBG, opts.UserThemes)
	if err != nil {
		th, _ = themes.Get("dark")
		m.notice = err.Error()
	}
	m.setTheme(th)
	m.input = newInput(&m.styles, opts.Inline)
	m.input.loadHistory(opts.History)
	if opts.About.Version != "" {
		m.transcript.add(m.welcome())
	}
	if opts.Resumed != nil {
		m.resumeSession(*opts.Resumed)
	}
	return m
}

// Init starts listening to the Worker and asks the terminal for its
// background colour, which picks the theme unless one was chosen. With
// PickSession it lists the sessions to resume.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitForEvents(m.bridge)}
	if !m.themeFixed {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.opts.PickSession {
		cmds = append(cmds, m.pickSession())
	}
	if m.opts.Prompt != "" {
		cmds = append(cmds, func() tea.Msg { return firstPromptMsg{} })
	}
	return tea.Batch(cmds...)
}

// firstPromptMsg sends Options.Prompt.
type firstPromptMsg struct{}

// firstPrompt sends the prompt the UI was started with, as if typed; with
// a dialog open it waits in the editor.
func (m *Model) firstPrompt() tea.Cmd {
	m.input.setValue(m.opts.Prompt)
	if len(m.dialogs) > 0 || m.opts.PickSession {
		return nil
	}
	return m.submit()
}

// Update dispatches a message to the handler for its kind.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		m.backgroundColor(msg.IsDark())
	case tea.KeyPressMsg:
		cmd = m.handleKey(msg)
	case tea.PasteMsg:
		cmd = m.handlePaste(msg)
	case tea.MouseWheelMsg:
		cmd = m.handleWheel(msg)
	case eventsMsg:
		cmd = tea.Batch(m.eventsArrived(msg), waitForEvents(m.bridge))
	case runDoneMsg:
		cmd = m.runDone(msg)
	case compactDoneMsg:
		cmd = m.compactDone(msg)
	case mcpRestarted:
		m.mcpRestartDone(msg)
	case rulesSavedMsg:
		m.rulesSaved(msg)
	case modelsListedMsg:
		m.modelsListed(msg)
	case firstPromptMsg:
		cmd = m.firstPrompt()
	case resourcesRead:
		cmd = m.resourcesDone(msg)
	case promptGot:
		cmd = m.promptDone(msg)
	case historySaveFailedMsg:
		m.note(noteWarn, msg.err.Error())
	case sessionsListedMsg:
		m.sessionsListed(msg)
	case sessionOpenedMsg:
		cmd = m.sessionOpened(msg)
	case frameMsg:
		m.framePending = false
		m.layout(true)
	case spinMsg:
		cmd = m.spinTick()
	case printedMsg:
		cmd = m.printed()
	case tea.CursorPositionMsg:
		cmd = m.cursorAnswered()
	case syncTimeoutMsg:
		if msg.seq == m.frame.seq {
			m.synced()
		}
	case tea.MouseMsg:
		// Only the wheel is used; clicks would reach the editor with
		// screen coordinates.
	default:
		if len(m.dialogs) == 0 {
			m.input, cmd = m.input.update(msg)
		}
	}
	return m, tea.Batch(cmd, m.afterUpdate())
}

// afterUpdate lays the transcript out again and schedules what the new
// state needs: a frame for streamed text, the spinner while work runs,
// and in inline mode the printing of finished entries.
func (m *Model) afterUpdate() tea.Cmd {
	m.layout(false)
	m.input.refresh(m.theme.Name)
	var cmds []tea.Cmd
	if m.streaming != nil && m.streaming.pending && !m.framePending {
		m.framePending = true
		cmds = append(cmds, frameTick(m.tick))
	}
	if m.busy() && !m.spinning {
		m.spinning = true
		cmds = append(cmds, spinTick(m.tick))
	}
	if m.opts.Inline && m.ready {
		m.queuePrint(m.transcript.takePrintable())
		cmds = append(cmds, m.syncFrame(), m.printNext())
	}
	return tea.Batch(cmds...)
}

// busy reports whether something is in progress that the spinner shows.
func (m *Model) busy() bool { return m.running || m.checksRunning() }

func (m *Model) checksRunning() bool { return m.checks != nil && m.checks.live() }

// spinTick advances the spinner and redraws the entries that show it.
func (m *Model) spinTick() tea.Cmd {
	m.spinning = false
	m.spin++
	for _, t := range m.tools {
		if t.state == toolRunning {
			t.touch()
		}
	}
	if m.checks != nil && m.checks.live() {
		m.checks.touch()
	}
	return nil
}

// renderCtx is the drawing context for the current size and theme.
func (m *Model) renderCtx() *renderCtx {
	frames := spinFrames.Frames
	return &renderCtx{
		st:       &m.styles,
		width:    max(m.width, 1),
		spinner:  frames[m.spin%len(frames)],
		expanded: m.expanded,
		noHints:  m.final || m.opts.Inline,
		summary:  m.summary,
	}
}

// summary says in one line what a call is about (Tools.Summary).
func (m *Model) summary(c chat.ToolCall) string {
	if m.opts.Tools == nil {
		return c.Arguments
	}
	return m.opts.Tools.Summary(c)
}

// layout sizes the parts of the screen and lays the transcript out.
func (m *Model) layout(frame bool) {
	if !m.ready {
		return
	}
	m.input.setSize(m.width, m.inputMaxHeight())
	m.transcript.layout(m.renderCtx(), frame)
	m.transcript.setHeight(m.transcriptHeight())
	for _, d := range m.dialogs {
		d.layout(&m.styles, m.dialogWidth(), m.dialogHeight())
	}
}

// inputMaxHeight is how tall the editor may grow.
func (m *Model) inputMaxHeight() int { return min(10, max(m.height/3, 1)) }

// chromeHeight is the height of everything below the transcript: the rule
// above the editor, the editor and the status line.
func (m *Model) chromeHeight() int {
	if len(m.dialogs) > 0 {
		return 1 // the status line; a dialog replaces the editor
	}
	return len(m.planLines()) + 1 + m.input.height() + 1
}

func (m *Model) transcriptHeight() int { return max(m.height-m.chromeHeight(), 0) }

func (m *Model) dialogWidth() int { return max(min(m.width, 120), 10) }

func (m *Model) dialogHeight() int {
	if m.opts.Inline {
		return max(m.inlineFrameMax()-1, 5)
	}
	return max(m.height-1, 5)
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.ready = true
	m.layout(false)
}

// scrollback draws what is left of the transcript for the terminal's
// scrollback, once the session is over: all of it in full-screen mode,
// the entries not printed yet in inline mode.
func (m *Model) scrollback() []string {
	m.final = true
	if len(m.past) > 0 {
		m.transcript.entries = append(m.past, m.transcript.entries...)
		m.past = nil
	}
	if m.streaming != nil {
		m.streaming.finish()
		m.streaming = nil
	}
	m.endThinking()
	for _, e := range m.transcript.entries {
		e.base().touch()
	}
	m.layout(true)
	return m.transcript.takeAll()
}

// keepPast keeps the entries on the screen for the transcript written
// when a full-screen session ends, before /new or /resume clears it.
func (m *Model) keepPast() {
	if !m.opts.Inline {
		m.past = append(m.past, m.transcript.entries...)
	}
}

// setTheme switches every style and the markdown renderer to th and
// renders the transcript again.
func (m *Model) setTheme(th themes.Theme) {
	m.theme = th
	m.styles = th.Styles()
	m.md = markdown.NewRenderer(th.Glamour())
	for _, e := range slices.Concat(m.past, m.transcript.entries) {
		if a, ok := e.(*assistantEntry); ok {
			a.setStream(m.restream(a.raw.String(), a.finished))
		}
		e.base().touch()
	}
	if m.input.ta.Width() > 0 {
		m.input.setStyles(&m.styles)
	}
}

// restream renders text again with the current markdown renderer.
func (m *Model) restream(text string, finished bool) mdStream {
	s := m.md.NewStream()
	s.Write(text)
	if finished {
		s.Finish()
	}
	return s
}

func (m *Model) backgroundColor(dark bool) {
	m.darkBG = dark
	if m.themeFixed {
		return
	}
	th, err := themes.Select(m.opts.Theme, m.getenv, dark, m.opts.UserThemes)
	if err == nil && th.Name != m.theme.Name {
		m.setTheme(th)
	}
}

// View draws the screen: the transcript (or, inline, its live part), a
// dialog over it when one is open, the editor and the status line.
func (m *Model) View() tea.View {
	if !m.ready {
		return tea.NewView("")
	}
	var rows []string
	var cursor *tea.Cursor
	if m.opts.Inline {
		rows, cursor = m.inlineView()
	} else {
		rows, cursor = m.screen()
	}
	v := tea.NewView(strings.Join(rows, "\n"))
	v.Cursor = cursor
	v.AltScreen = !m.opts.Inline
	if !m.opts.Inline {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "tackle — " + filepath.Base(m.opts.Workdir)
	return v
}

// screen lays out the rows of the view and the editor's cursor.
func (m *Model) screen() ([]string, *tea.Cursor) {
	var rows []string
	if m.opts.Inline {
		rows = m.transcript.liveLines(max(m.inlineFrameMax()-m.chromeHeight(), 0))
	} else {
		rows = m.transcript.window()
	}
	var cursor *tea.Cursor
	if len(m.dialogs) > 0 {
		d := centred(strings.Split(m.dialogs[len(m.dialogs)-1].view(&m.styles), "\n"), m.width)
		if m.opts.Inline {
			rows = d
		} else {
			keep := max(len(rows)-len(d), 0)
			rows = append(rows[:keep:keep], d...)
		}
	} else {
		if menu := m.menuLines(); len(menu) > 0 {
			keep := max(len(rows)-len(menu), 0)
			rows = append(rows[:keep:keep], menu...)
		}
		rows = append(rows, m.planLines()...)
		rows = append(rows, m.rule.get(m.ruleKey(), m.ruleLine))
		inputTop := len(rows)
		rows = append(rows, m.input.lines...)
		if c := m.input.cursor(); c != nil {
			c.Y += inputTop
			cursor = c
		}
	}
	return append(rows, m.status.get(m.statusKey(), m.statusLine)), cursor
}

// centred moves lines, a dialog, to the middle of a screen width cells
// wide (a dialog is at most 120 wide: on a wider screen it stood at the
// left).
func centred(lines []string, width int) []string {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	if pad := (width - w) / 2; pad > 0 {
		indent := strings.Repeat(" ", pad)
		for i, l := range lines {
			lines[i] = indent + l
		}
	}
	return lines
}

// memo keeps a string drawn from the state a key describes.
type memo struct{ key, val string }

func (c *memo) get(key string, draw func() string) string {
	if key != c.key || c.val == "" {
		c.key, c.val = key, draw()
	}
	return c.val
}

func (m *Model) ruleKey() string {
	return fmt.Sprint(m.width, m.theme.Name, len(m.queue), m.opts.Inline, m.transcript.atBottom(), m.transcript.below())
}

// ruleLine is the line above the editor; it says when the transcript is
// scrolled up.
func (m *Model) ruleLine() string {
	w := max(m.width, 1)
	label := ""
	switch {
	case len(m.queue) > 0:
		label = " " + plural(len(m.queue), "1 message queued", itoa(len(m.queue))+" messages queued") + " — sent when the turn ends "
	case !m.opts.Inline && !m.transcript.atBottom():
		n := m.transcript.below()
		label = " ↓ " + itoa(n) + " more " + plural(n, "line", "lines") + " (end / pgdn) "
	}
	if label == "" {
		return m.styles.Subtle.Render(strings.Repeat("─", w))
	}
	left := 2
	rest := max(w-left-lipgloss.Width(label), 0)
	return truncate(m.styles.Subtle.Render(strings.Repeat("─", left))+m.styles.Muted.Render(label)+m.styles.Subtle.Render(strings.Repeat("─", rest)), w)
}
