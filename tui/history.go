package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools/chat"
)

// historySaveFailedMsg reports a prompt that could not be kept for later
// sessions.
type historySaveFailedMsg struct{ err error }

// saveHistory keeps a prompt new to the history for later sessions.
func (m *Model) saveHistory(text string, added bool) tea.Cmd {
	save := m.opts.SaveHistory
	if !added || save == nil {
		return nil
	}
	return func() tea.Msg {
		if err := save(text); err != nil {
			return historySaveFailedMsg{err}
		}
		return nil
	}
}

// searchHistory opens the reverse search of the prompt history (ctrl+r).
func (m *Model) searchHistory() {
	if len(m.input.history) == 0 {
		m.notice = "no earlier prompts to search"
		return
	}
	m.pushDialog(newHistoryDialog(m.input.history, m.input.value()))
}

// historyDialog searches the prompt history, newest first: typing
// narrows the matches (every word must appear, in any case), up/down or
// ctrl+r move, enter puts the chosen prompt in the editor.
type historyDialog struct {
	history []string // oldest first
	query   string
	matches []int // indices into history, newest first
	sel     int
	// laid out by layout:
	width, rows int
}

func newHistoryDialog(history []string, query string) *historyDialog {
	d := &historyDialog{history: history, query: query}
	d.filter()
	return d
}

// filter finds the prompts that hold every word of the query.
func (d *historyDialog) filter() {
	words := strings.Fields(strings.ToLower(d.query))
	d.matches = d.matches[:0]
	for i := len(d.history) - 1; i >= 0; i-- {
		p := strings.ToLower(d.history[i])
		ok := true
		for _, w := range words {
			if !strings.Contains(p, w) {
				ok = false
				break
			}
		}
		if ok {
			d.matches = append(d.matches, i)
		}
	}
	d.sel = 0
}

func (d *historyDialog) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch k := dialogKeys(); {
		case key.Matches(msg, k.leave):
			return dialogAction{close: true}, nil
		case key.Matches(msg, k.take):
			if len(d.matches) == 0 {
				return dialogAction{close: true}, nil
			}
			text := d.history[d.matches[d.sel]]
			return dialogAction{close: true, fill: &text}, nil
		case key.Matches(msg, k.older):
			d.sel = min(d.sel+1, max(len(d.matches)-1, 0))
		case key.Matches(msg, k.newer):
			d.sel = max(d.sel-1, 0)
		case key.Matches(msg, k.erase):
			if d.query != "" {
				r := []rune(d.query)
				d.query = string(r[:len(r)-1])
				d.filter()
			}
		case key.Matches(msg, k.clear):
			d.query = ""
			d.filter()
		default:
			if t := msg.Text; t != "" {
				d.query += t
				d.filter()
			}
		}
	case tea.PasteMsg:
		d.query += strings.ReplaceAll(msg.Content, "\n", " ")
		d.filter()
	}
	return dialogAction{}, nil
}

func (d *historyDialog) layout(_ *themes.Styles, width, height int) {
	d.width = width
	// The border, the title, the query, a blank line and the keys.
	d.rows = max(min(height-6, 10), 1)
}

func (d *historyDialog) view(st *themes.Styles) string {
	inner := max(d.width-4, 8)
	lines := []string{
		st.ModalTitle.Render("Search earlier prompts"),
		st.ModalKey.Render("› ") + plainText(d.query, st.ControlChar) + st.ModalHint.Render("▏"),
	}
	if len(d.matches) == 0 {
		lines = append(lines, st.ModalHint.Render("no prompt matches"))
	}
	// The selected match stays in view; the newest is at the top.
	first := max(d.sel-d.rows+1, 0)
	end := min(first+d.rows, len(d.matches))
	for i := first; i < end; i++ {
		text := chat.OneLine(d.history[d.matches[i]], 0)
		mark := "  "
		if i == d.sel {
			mark = st.ModalKey.Render("▸ ")
		}
		lines = append(lines, mark+ansi.Truncate(plainText(text, st.ControlChar), inner-2, "…"))
	}
	if len(d.matches) > d.rows {
		lines = append(lines, st.ModalHint.Render(fmt.Sprintf("%d of %d prompts", len(d.matches), len(d.history))))
	}
	lines = append(lines, "")
	k := dialogKeys()
	lines = append(lines, flowParts([]string{hint(st, k.typeHint), hint(st, k.olderNewerHint), hint(st, k.take), hint(st, k.leave)}, "   ", inner)...)
	return box(st.ModalBorder, lines, d.width)
}
