package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Sessions are the workspace's saved conversations: /resume lists them
// and goes on with one. Its methods are called from Cmds, while no run
// is in progress.
type Sessions interface {
	// List returns the workspace's sessions, the one used last first, without the
	// current one.
	List() ([]session.Info, error)
	// Open ends the current conversation and goes on with session id.
	Open(id string) (Resumed, error)
}

// Resumed is a saved conversation the UI goes on with.
type Resumed struct {
	ID    string
	Agent Agent
	Model string
	// Records are what happened so far: the transcript is drawn from them.
	Records []session.Record
	// Paused, when set, is the run the session paused on: the UI asks for
	// its decisions.
	Paused *agent.Outcome
	// Warnings are problems reading the session file (a torn last line).
	Warnings []string
}

// sessionsListedMsg carries the sessions /resume offers.
type sessionsListedMsg struct {
	list []session.Info
	err  error
}

// sessionOpenedMsg carries the session picked in the list, opened.
type sessionOpenedMsg struct {
	res Resumed
	err error
}

// listSessions is the Cmd that lists the sessions to pick from.
func listSessions(s Sessions) tea.Cmd {
	return func() tea.Msg {
		list, err := s.List()
		return sessionsListedMsg{list: list, err: err}
	}
}

// openSession is the Cmd that goes on with session id.
func openSession(s Sessions, id string) tea.Cmd {
	return func() tea.Msg {
		res, err := s.Open(id)
		return sessionOpenedMsg{res: res, err: err}
	}
}

// pickSession starts /resume: the list of sessions comes in a Cmd.
func (m *Model) pickSession() tea.Cmd {
	switch {
	case m.opts.Sessions == nil:
		m.note(noteError, "sessions are not kept here (no state directory)")
		return nil
	case m.running:
		m.note(noteWarn, "a turn is running: interrupt it (esc) before /resume")
		return nil
	}
	return listSessions(m.opts.Sessions)
}

// sessionsListed opens the list of sessions to pick from.
func (m *Model) sessionsListed(msg sessionsListedMsg) {
	switch {
	case msg.err != nil:
		m.note(noteError, msg.err.Error())
	case len(msg.list) == 0:
		m.note(noteInfo, "no other sessions in this workspace yet")
	default:
		m.pushDialog(newSessionPicker(msg.list, m.now))
	}
}

// sessionOpened makes a picked session the conversation.
func (m *Model) sessionOpened(msg sessionOpenedMsg) tea.Cmd {
	if msg.err != nil {
		m.note(noteError, msg.err.Error())
		return nil
	}
	return m.resumeSession(msg.res)
}

// resumeSession shows res's transcript and goes on with it: with its
// approval dialog when it paused.
func (m *Model) resumeSession(res Resumed) tea.Cmd {
	m.keepPast()
	m.transcript.clear()
	m.focus = -1
	clear(m.tools)
	m.checks, m.streaming, m.retry = nil, nil, ""
	m.usage, m.ctxSize = chat.Usage{}, 0
	m.plan = nil
	m.agent = res.Agent
	if res.Model != "" {
		m.model = res.Model
	}
	m.showRecords(res.Records)
	for _, w := range res.Warnings {
		m.note(noteWarn, w)
	}
	turns := 0
	for _, r := range res.Records {
		if r.Prompt {
			turns++
		}
	}
	m.note(noteInfo, fmt.Sprintf("resumed session %s (%s)", res.ID, plural(turns, "1 turn", itoa(turns)+" turns")))
	m.transcript.toBottom()
	if res.Paused != nil {
		return m.paused(*res.Paused)
	}
	if m.opts.Inline {
		return tea.ClearScreen
	}
	return nil
}

// showRecords draws a saved session's transcript from its records as it
// was shown live: prompts, answers (rendered), each tool call's line with
// its status, hook and check lines, turn-end feedback, how runs ended.
func (m *Model) showRecords(recs []session.Record) {
	var feedbackBy string // the hook whose feedback the next user message is
	prompted := false     // a message before the first prompt is the system prompt
	for _, r := range recs {
		switch r.Kind {
		case session.KindMessage:
			if r.Message != nil && (prompted || r.Message.Role != chat.RoleSystem) {
				prompted = prompted || r.Prompt
				m.showMessage(r, feedbackBy)
			}
		case session.KindDecision:
			if d := r.Decision; d != nil {
				if d.Result == "continue_with_messages" {
					feedbackBy = d.Hook
				}
				m.applyEvent(agent.HookDecision{Decision: *d})
			}
		case session.KindUsage:
			if r.Usage != nil {
				m.applyEvent(agent.UsageReport{Request: *r.Usage, Context: r.Context, Window: r.Window})
			}
		case session.KindCheck:
			if r.Check != nil {
				m.applyEvent(*r.Check)
			}
		case session.KindAnswered:
			for _, a := range r.Answers {
				m.showAnswer(a)
			}
		case session.KindModel:
			m.note(noteInfo, "model: "+r.Model)
		case session.KindTodos:
			m.setPlan(r.Todos)
		case session.KindCompaction:
			if c := r.Compaction; c != nil {
				m.note(noteInfo, fmt.Sprintf("conversation compacted: %d messages summarised, %d tool outputs shortened", c.Replaced, c.Pruned))
			}
		case session.KindOutcome:
			if r.Outcome != nil {
				m.showOutcome(*r.Outcome)
			}
		}
	}
	m.checks = nil
}

// showMessage draws one message of a saved conversation: a user or
// system message that is not a prompt is turn-end feedback.
func (m *Model) showMessage(r session.Record, feedbackBy string) {
	msg := *r.Message
	switch {
	case msg.Role == chat.RoleUser && r.Prompt:
		m.transcript.add(&userEntry{text: agent.WithoutNotes(msg.Content)})
	case msg.Role == chat.RoleUser && len(msg.Images) > 0:
		// The images of the tool results above, which their lines
		// describe.
	case msg.Role == chat.RoleUser || msg.Role == chat.RoleSystem:
		m.note(noteRetry, joinNonEmpty(": ", joinNonEmpty(" ", feedbackBy, "pushed feedback to the model"), firstLine(msg.Content)))
	case msg.Role == chat.RoleAssistant:
		m.assistantMessage(msg)
	case msg.Role == chat.RoleTool:
		t, ok := m.tools[msg.ToolCallID]
		if !ok {
			return
		}
		status := r.Status
		if status == "" {
			status = chat.StatusOK
		}
		t.state, t.result = toolDone, chat.ToolResult{CallID: msg.ToolCallID, Status: status, Content: msg.Content}
		t.touch()
	}
}

// showAnswer marks a call of a saved pause with how it was answered.
func (m *Model) showAnswer(a session.Answer) {
	t, ok := m.tools[a.CallID]
	if !ok || a.Verdict != agent.Deny.String() {
		return
	}
	t.decidedBy = a.By
	if a.By == "" {
		t.decidedBy = "you"
	}
	t.touch()
}

// showOutcome says how a saved run ended, as the live UI did.
func (m *Model) showOutcome(o session.Outcome) {
	switch agent.Status(o.Status) {
	case agent.StatusCapped:
		m.note(noteWarn, "stopped: "+o.Reason)
	case agent.StatusAborted:
		if strings.Contains(o.Reason, "context canceled") || strings.Contains(o.Reason, agent.ErrUserAbort.Error()) {
			m.note(noteInterrupted, "interrupted")
		} else {
			m.note(noteError, o.Reason)
		}
	}
}

// ---- the session picker ----

// sessionPicker lists sessions to go on with: when each was last used,
// its first prompt, its turns and model.
type sessionPicker struct {
	list  []session.Info
	now   func() time.Time
	nav   listNav
	width int // laid out by layout
}

func newSessionPicker(list []session.Info, now func() time.Time) *sessionPicker {
	return &sessionPicker{list: list, now: now}
}

func (d *sessionPicker) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	if d.nav.handle(msg, len(d.list)) {
		return dialogAction{}, nil
	}
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch k := dialogKeys(); {
		case key.Matches(msg, k.open):
			return dialogAction{close: true, openSession: d.list[d.nav.sel].ID}, nil
		case key.Matches(msg, k.close):
			return dialogAction{close: true}, nil
		}
	}
	return dialogAction{}, nil
}

func (d *sessionPicker) layout(_ *themes.Styles, width, height int) {
	d.width = width
	// The border, the title, the header, the keys.
	d.nav.rows = max(height-6, 1)
	d.nav.move(0, len(d.list))
}

func (d *sessionPicker) view(st *themes.Styles) string {
	inner := max(d.width-4, 8)
	lines := []string{st.ModalTitle.Render("Resume a session") + st.ModalHint.Render(" — last used first")}
	lines = append(lines, st.ModalHint.Render(ansi.Truncate(fmt.Sprintf("  %-16s  %5s  %-16s  %s", "last used", "turns", "model", "first prompt"), inner, "…")))
	from, end := d.nav.shown(len(d.list))
	for i := from; i < end; i++ {
		in := d.list[i]
		mark := "  "
		if i == d.nav.sel {
			mark = st.ModalKey.Render("▸ ")
		}
		model := ansi.Truncate(in.Model, 16, "…")
		row := fmt.Sprintf("%-16s  %5d  %-16s  ", d.when(in.Updated), in.Turns, model)
		prompt := plainText(markBreaks(in.FirstPrompt), st.ControlChar)
		if in.Unreadable != "" {
			prompt = st.ModalHint.Render(plainText(markBreaks("unreadable: "+in.Unreadable+": "+in.Path), st.ControlChar))
		}
		if prompt == "" {
			prompt = st.ModalHint.Render("(no prompt)")
		}
		lines = append(lines, ansi.Truncate(mark+row+prompt, inner, "…"))
	}
	if end < len(d.list) || from > 0 {
		lines = append(lines, st.ModalHint.Render(fmt.Sprintf("sessions %d–%d of %d", from+1, end, len(d.list))))
	}
	k := dialogKeys()
	lines = append(lines, flowParts([]string{hint(st, k.selectHint), hint(st, k.open), hint(st, k.close)}, "   ", inner)...)
	return box(st.ModalBorder, lines, d.width)
}

// when shows a time as the list does: the time of day today, the date
// before.
func (d *sessionPicker) when(t time.Time) string {
	now := d.now()
	if y, m, day := t.Date(); y == now.Year() && m == now.Month() && day == now.Day() {
		return "today " + t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}
