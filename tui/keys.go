package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// handleKey handles a key press: the top dialog gets it when one is open;
// otherwise the global keys, then the editor.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	var b *binding
	for i := range m.keys {
		if key.Matches(msg, m.keys[i].key) {
			b = &m.keys[i]
			break
		}
	}
	if b == nil || b.action != "cancel" {
		m.quitArmed = false
	}
	m.notice = ""
	if len(m.dialogs) > 0 {
		return m.dialogKey(msg)
	}
	if b != nil && b.run != nil {
		if handled, cmd := b.run(m); handled {
			return cmd
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.update(msg)
	return cmd
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
		text, _, added := m.input.submit()
		return tea.Batch(m.saveHistory(text, added), m.command(name, arg))
	}
	text, shown, added := m.input.submit()
	save := m.saveHistory(text, added)
	if shown != text {
		m.pasted[text] = shown // the transcript shows the placeholders
	}
	if m.running || m.quitting {
		m.queue = append(m.queue, text)
		return save
	}
	if isCommandLine(text) {
		return tea.Batch(save, m.startCommand(text))
	}
	return tea.Batch(save, m.startTurn(text))
}

// isCommandLine reports whether text is "!cmd": a shell command to run
// directly, not a message.
func isCommandLine(text string) bool {
	return strings.HasPrefix(text, "!") && strings.TrimSpace(text[1:]) != ""
}

func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if len(m.dialogs) > 0 {
		return m.dialogMsg(msg)
	}
	if mention, ok := pastedImagePath(msg.Content); ok && m.opts.Mentions != nil {
		// A dropped screenshot: attached as an image when sent.
		msg.Content = mention
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
		m.queuePrint(m.scrollback())
		m.print.quit = true
		return m.printNext()
	}
	return tea.Quit
}
