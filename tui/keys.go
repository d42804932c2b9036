package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// handleKey handles a key press: the top dialog gets it when one is open;
// otherwise the global keys, then the editor.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	if k != "ctrl+c" {
		m.quitArmed = false
	}
	m.notice = ""
	if len(m.dialogs) > 0 {
		return m.dialogKey(msg)
	}
	switch k {
	case "ctrl+c":
		return m.ctrlC()
	case "esc":
		if m.running {
			m.interrupt()
		} else if !m.transcript.atBottom() {
			m.transcript.toBottom()
		}
		return nil
	case "ctrl+d":
		if m.input.empty() {
			return m.quit()
		}
	case "enter":
		return m.submit()
	case "ctrl+r":
		m.searchHistory()
		return nil
	case "ctrl+o":
		m.expanded = !m.expanded
		for _, e := range m.transcript.entries {
			switch e.(type) {
			case *toolEntry, *thinkingEntry:
				e.base().touch()
			}
		}
		return nil
	case "up", "ctrl+p":
		if m.input.atFirstLine() && m.input.historyPrev() {
			return nil
		}
	case "down", "ctrl+n":
		if m.input.atLastLine() && m.input.historyNext() {
			return nil
		}
	}
	if m.scrollKey(k) {
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.update(msg)
	return cmd
}

// scrollKey scrolls the transcript; it reports whether k was a scroll
// key. Home and End scroll only when the editor is empty (otherwise they
// move the cursor in it). In inline mode the terminal scrolls its own
// scrollback, so none of these apply.
func (m *Model) scrollKey(k string) bool {
	if m.opts.Inline {
		return false
	}
	t := &m.transcript
	switch k {
	case "pgup":
		t.pageUp()
	case "pgdown":
		t.pageDown()
	case "ctrl+up", "shift+up":
		t.scroll(-1)
	case "ctrl+down", "shift+down":
		t.scroll(1)
	case "home":
		if !m.input.empty() {
			return false
		}
		t.toTop()
	case "end":
		if !m.input.empty() {
			return false
		}
		t.toBottom()
	default:
		return false
	}
	return true
}

// ctrlC interrupts a turn; on an idle prompt it clears the editor, and
// pressed twice in a row it quits.
func (m *Model) ctrlC() tea.Cmd {
	switch {
	case m.running:
		m.interrupt()
	case !m.input.empty():
		m.input.reset()
	case m.quitArmed:
		return m.quit()
	default:
		m.quitArmed = true
		m.notice = "press ctrl+c again to quit"
	}
	return nil
}

// submit sends the editor's text: a slash command runs at once; a prompt
// starts a turn, or waits in the queue while one runs.
func (m *Model) submit() tea.Cmd {
	raw := m.input.value()
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	if name, arg, ok := parseCommand(raw); ok {
		text, added := m.input.submit()
		return tea.Batch(m.saveHistory(text, added), m.command(name, arg))
	}
	text, added := m.input.submit()
	save := m.saveHistory(text, added)
	if m.running || m.quitting {
		m.queue = append(m.queue, text)
		return save
	}
	return tea.Batch(save, m.startTurn(text))
}

func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if len(m.dialogs) > 0 {
		return m.dialogMsg(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.update(msg)
	return cmd
}

// wheelLines is how far one notch of the mouse wheel scrolls.
const wheelLines = 3

func (m *Model) handleWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if len(m.dialogs) > 0 {
		return m.dialogMsg(msg)
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		m.transcript.scroll(-wheelLines)
	case tea.MouseWheelDown:
		m.transcript.scroll(wheelLines)
	}
	return nil
}

// quit ends the session. A run in progress is interrupted first, and the
// program ends when it has returned (its on_abort hooks have run).
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	if m.running {
		m.interrupt()
		return nil
	}
	return m.quitNow()
}

// quitNow ends the program. In inline mode what is left of the
// transcript is printed first, so all of it stays in the scrollback.
func (m *Model) quitNow() tea.Cmd {
	m.quitting = true
	if m.opts.Inline {
		if lines := m.scrollback(); len(lines) > 0 {
			return tea.Sequence(tea.Println(strings.Join(lines, "\n")), tea.Quit)
		}
	}
	return tea.Quit
}
