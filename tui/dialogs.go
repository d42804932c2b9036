package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/themes"
)

// dialog is a modal drawn over the bottom of the transcript. Dialogs form
// a stack; the top one gets the keys and answers with an action.
type dialog interface {
	// update handles a key, a paste, the mouse wheel or a message meant
	// for the dialog (such as a file it asked for).
	update(msg tea.Msg) (dialogAction, tea.Cmd)
	// layout prepares the dialog for at most width × height cells.
	layout(st *themes.Styles, width, height int)
	// view draws the dialog as laid out.
	view(st *themes.Styles) string
}

// dialogAction is what a dialog asks the root model to do.
type dialogAction struct {
	close bool
	// decided is the decision just made for one pending call; batch
	// those "approve these" made.
	decided *agent.Decision
	batch   []agent.Decision
	// decisions, when set, answer every pending call: resume the run.
	decisions []agent.Decision
	// interrupt stops the run: every pending call is answered with an
	// abort.
	interrupt bool
	// resume continues a run paused at turn end; stop ends it.
	resume, stop bool
	// notice, when set, is said in the transcript.
	notice string
	// fill, when set, replaces the editor's text.
	fill *string
	// openSession, when set, goes on with that session (/resume).
	openSession string
	// undoForce, when set, undoes that many turns, overwriting files that
	// changed since (the user confirmed).
	undoForce int
	// save, when set, saves rules to a config file (RuleFiles).
	save *ruleSave
	// model and mode, when set, switch the model or the approval mode
	// (a picker's choice).
	model, mode string
	// forward, when set, is a key that closed an overlay and goes on to
	// the editor (typing /cost right after /status).
	forward *tea.KeyPressMsg
}

// overlayKey is how an overlay answers a key it does not scroll with:
// esc, enter and q close it; any other key closes it and goes on.
func overlayKey(msg tea.KeyPressMsg) dialogAction {
	if key.Matches(msg, dialogKeys().dismiss) {
		return dialogAction{close: true}
	}
	return dialogAction{close: true, forward: &msg}
}

func (m *Model) pushDialog(d dialog) {
	m.dialogs = append(m.dialogs, d)
	m.input.blur()
	d.layout(&m.styles, m.dialogWidth(), m.dialogHeight())
}

func (m *Model) popDialog() {
	if n := len(m.dialogs); n > 0 {
		m.dialogs = m.dialogs[:n-1]
	}
	if len(m.dialogs) == 0 {
		m.input.focus()
	}
}

// dialogKey gives a key to the top dialog.
func (m *Model) dialogKey(msg tea.KeyPressMsg) tea.Cmd { return m.dialogMsg(msg) }

// dialogMsg gives a message to the top dialog and carries out its action.
func (m *Model) dialogMsg(msg tea.Msg) tea.Cmd {
	top := m.dialogs[len(m.dialogs)-1]
	act, cmd := top.update(msg)
	var save tea.Cmd
	if act.save != nil && m.opts.RuleFiles != nil {
		save = saveRules(m.opts.RuleFiles, *act.save)
	}
	return tea.Batch(cmd, m.dialogAction(top, act), save)
}

func (m *Model) dialogAction(d dialog, act dialogAction) tea.Cmd {
	if a, ok := d.(*approvalDialog); ok && a.answer != nil {
		return m.childAnswered(a, act)
	}
	if act.decided != nil {
		m.showDecided(*act.decided)
	}
	for _, dec := range act.batch {
		m.showDecided(dec)
	}
	if act.notice != "" {
		m.note(noteInfo, act.notice)
	}
	if act.close || act.interrupt || act.resume || act.stop {
		m.popDialog()
	}
	if act.fill != nil {
		m.input.setValue(*act.fill)
	}
	if act.model != "" {
		m.setModel(act.model)
	}
	if act.mode != "" {
		m.setMode(act.mode)
	}
	if act.forward != nil && len(m.dialogs) == 0 {
		return m.handleKey(*act.forward)
	}
	switch {
	case act.undoForce > 0:
		m.undone(m.opts.Checkpoints.Undo(act.undoForce, true))
	case act.openSession != "":
		return openSession(m.opts.Sessions, act.openSession)
	case act.interrupt:
		a, ok := d.(*approvalDialog)
		if !ok {
			return nil
		}
		cmd := m.resume(abortAll(a.pending, "interrupted by the user"))
		m.interrupting = true // after resume, which starts a run afresh
		return cmd
	case act.decisions != nil:
		return m.resume(act.decisions)
	case act.resume:
		return m.resume(nil)
	case act.stop:
		// A run paused at turn end has no call to abort: resuming it
		// with a cancelled context ends it, and on_abort hooks run.
		ctx, cancel := context.WithCancel(m.ctx)
		cancel()
		m.running, m.interrupting = true, true
		return resumeAgent(ctx, m.agent, m.bridge, m.runs, nil)
	}
	return nil
}

// showDecided updates a tool's line with the user's decision.
func (m *Model) showDecided(d agent.Decision) {
	t, ok := m.tools[d.CallID]
	if !ok {
		return
	}
	switch d.Verdict {
	case agent.Approve, agent.ApproveAlways:
		t.state = toolProposed
	case agent.Deny:
		t.decidedBy = "you"
	}
	t.touch()
}

// ---- yes or no ----

// questionDialog asks a question with two answers: its title and body,
// and each answer's key and the action it takes (a run paused at turn
// end, an undo that would overwrite changes).
type questionDialog struct {
	title string
	// body draws what the question is about, inner cells wide.
	body        func(st *themes.Styles, inner int) []string
	yes, no     key.Binding
	onYes, onNo dialogAction
	width       int
}

// newTurnPauseDialog asks whether a run that an on_turn_end hook paused
// should go on.
func newTurnPauseDialog(reason string) *questionDialog {
	k := dialogKeys()
	return &questionDialog{
		title: "A hook paused the turn",
		body: func(st *themes.Styles, inner int) []string {
			if reason == "" {
				return nil
			}
			return prefixed(st.ModalReason.Render, plainText(reason, st.ControlChar), inner, "", "")
		},
		yes: k.goOn, no: k.stop,
		onYes: dialogAction{resume: true}, onNo: dialogAction{stop: true},
	}
}

func (d *questionDialog) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return dialogAction{}, nil
	}
	switch {
	case key.Matches(k, d.yes):
		return d.onYes, nil
	case key.Matches(k, d.no):
		return d.onNo, nil
	}
	return dialogAction{}, nil
}

func (d *questionDialog) layout(_ *themes.Styles, width, _ int) { d.width = width }

func (d *questionDialog) view(st *themes.Styles) string {
	inner := max(d.width-4, 8)
	lines := append([]string{st.ModalTitle.Render(d.title)}, d.body(st, inner)...)
	lines = append(lines, "")
	lines = append(lines, flowParts([]string{hint(st, d.yes), hint(st, d.no)}, "   ", inner)...)
	return box(st.ModalBorder, lines, d.width)
}

// ---- help ----

// helpDialog lists the keys (keys: from the keymap) and slash commands.
type helpDialog struct {
	pager
	keys [][2]string
}

// pager is a dialog of lines that scrolls: the arrows, page keys,
// home/end and the mouse wheel move it; esc, enter and q close it; any
// other key closes it and goes on to the editor (overlayKey).
type pager struct {
	lines  []string
	scroll int
	rows   int
	width  int
}

// typingHelp are the rows of /help's section on what the editor reads
// in the text itself.
func typingHelp() [][2]string {
	return [][2]string{
		{"!command", "run a shell command yourself, through the bash tool, its hooks and approvals; it and its output go to the model with your next message"},
		{"@path", "attach a file of the workspace to the message (tab completes the path)"},
		{"/command", "a slash command (below); tab completes it"},
		{"\\ enter", "a \\ at the end of the message continues it on a new line"},
		{"paste", "a large paste shows as [paste #1: N lines, N bytes], here and in the transcript, and is sent whole"},
	}
}

// helpCommands are the rows of /help's command section.
func helpCommands() [][2]string {
	var rows [][2]string
	for _, c := range slashCommands() {
		rows = append(rows, [2]string{strings.TrimSpace("/" + c.name + " " + c.args), c.help})
	}
	return rows
}

func newHelpDialog(keys [][2]string) *helpDialog { return &helpDialog{keys: keys} }

func (d *pager) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		last := max(len(d.lines)-d.rows, 0)
		if msg.Text != "" && !key.Matches(msg, dialogKeys().dismiss) {
			// Typed text (j, k, g, space too) is the editor's.
			return overlayKey(msg), nil
		}
		switch k := dialogKeys(); {
		case key.Matches(msg, k.up):
			d.scroll = max(d.scroll-1, 0)
		case key.Matches(msg, k.down):
			d.scroll = min(d.scroll+1, last)
		case key.Matches(msg, k.pageUp):
			d.scroll = max(d.scroll-d.rows, 0)
		case key.Matches(msg, k.pageDown):
			d.scroll = min(d.scroll+d.rows, last)
		case key.Matches(msg, k.top):
			d.scroll = 0
		case key.Matches(msg, k.bottom):
			d.scroll = last
		default:
			return overlayKey(msg), nil
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			d.scroll = max(d.scroll-wheelLines, 0)
		} else {
			d.scroll = min(d.scroll+wheelLines, max(len(d.lines)-d.rows, 0))
		}
	}
	return dialogAction{}, nil
}

func (d *helpDialog) layout(st *themes.Styles, width, height int) {
	d.width = width
	inner := max(width-4, 8)
	var lines []string
	section := func(title string, rows [][2]string) {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, st.ModalTitle.Render(title))
		kw := 0
		for _, r := range rows {
			kw = max(kw, ansi.StringWidth(r[0]))
		}
		kw = min(kw, inner/2)
		for _, r := range rows {
			k := st.ModalKey.Render(r[0]) + strings.Repeat(" ", max(kw-ansi.StringWidth(r[0]), 0)) + "  "
			lines = append(lines, prefixed(st.ModalHint.Render, r[1], inner, k, strings.Repeat(" ", kw+2))...)
		}
	}
	section("Keys", d.keys)
	section("Typing", typingHelp())
	section("Approval dialog", approvalHelp())
	section("Commands", helpCommands())
	d.setLines(lines, height)
}

// setLines fills the pager for a dialog height rows high.
func (d *pager) setLines(lines []string, height int) {
	d.lines = lines
	d.rows = max(height-3, 1)
	d.scroll = min(d.scroll, max(len(d.lines)-d.rows, 0))
}

func (d *pager) view(st *themes.Styles) string {
	end := min(d.scroll+d.rows, len(d.lines))
	lines := append([]string(nil), d.lines[d.scroll:end]...)
	hint := "esc to close; typing goes to the editor"
	if end < len(d.lines) {
		hint = "↓ more (pgdn) · " + hint
	}
	lines = append(lines, st.ModalHint.Render(hint))
	return box(st.ModalBorder, lines, d.width)
}
