package tui

import "github.com/charmbracelet/x/ansi"

// fold is the state of an item that shows more when expanded (a tool
// call's output, a reply's reasoning): expanded on its own, and focused
// by the item cursor.
type fold struct {
	open, focused bool
}

// expandedIn reports whether the item shows in full: all items are
// expanded (ctrl+o with no item focused) or this one is.
func (f *fold) expandedIn(rc *renderCtx) bool { return rc.expanded || f.open }

// mark draws the first line of the focused item after a "›", in the
// selection style.
func (f *fold) mark(rc *renderCtx, line string) string {
	if !f.focused || rc.noHints {
		return line
	}
	return rc.st.Selection.Render(ansi.Truncate("›"+ansi.Strip(line), rc.width, "…"))
}

// foldOf returns the fold of entry e, or nil when it has none.
func foldOf(e entry) *fold {
	switch e := e.(type) {
	case *toolEntry:
		return &e.fold
	case *thinkingEntry:
		return &e.fold
	}
	return nil
}

// moveFocus moves the item cursor to the previous (d < 0) or next
// foldable item; from no focus it starts at the last one. It reports
// whether there was one to move to.
func (m *Model) moveFocus(d int) bool {
	entries := m.transcript.entries
	i := m.focus
	if i < 0 {
		i = len(entries)
		if d > 0 {
			return false
		}
	}
	for i += d; i >= 0 && i < len(entries); i += d {
		if foldOf(entries[i]) != nil {
			m.setFocus(i)
			return true
		}
	}
	return m.focus >= 0
}

// setFocus puts the item cursor on entry i (-1: none), and the
// transcript's window on it.
func (m *Model) setFocus(i int) {
	if m.focus >= 0 && m.focus < len(m.transcript.entries) {
		if f := foldOf(m.transcript.entries[m.focus]); f != nil {
			f.focused = false
			m.transcript.entries[m.focus].base().touch()
		}
	}
	m.focus = i
	if i < 0 {
		return
	}
	foldOf(m.transcript.entries[i]).focused = true
	m.transcript.entries[i].base().touch()
	m.transcript.reveal = i
}

// toggleFocused expands or folds the focused item; it reports whether an
// item is focused.
func (m *Model) toggleFocused() bool {
	if m.focus < 0 || m.focus >= len(m.transcript.entries) {
		return false
	}
	f := foldOf(m.transcript.entries[m.focus])
	f.open = !f.open
	m.transcript.entries[m.focus].base().touch()
	m.transcript.reveal = m.focus
	return true
}
