package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// listNav is the selection of a dialog's list of n items, rows of which
// are shown from scroll on: the keys and the mouse wheel every list
// dialog moves it with, and the scrolling that keeps it in view.
type listNav struct {
	sel, scroll int
	rows        int // shown at once, set by the dialog's layout
}

// handle moves the selection for a navigation key or the wheel over a
// list of n items; it reports whether msg was one.
func (l *listNav) handle(msg tea.Msg, n int) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch k := dialogKeys(); {
		case key.Matches(msg, k.up):
			l.move(-1, n)
		case key.Matches(msg, k.down):
			l.move(1, n)
		case key.Matches(msg, k.pageUp):
			l.move(-l.rows, n)
		case key.Matches(msg, k.pageDown):
			l.move(l.rows, n)
		case key.Matches(msg, k.top):
			l.move(-n, n)
		case key.Matches(msg, k.bottom):
			l.move(n, n)
		default:
			return false
		}
		return true
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			l.move(-1, n)
		} else {
			l.move(1, n)
		}
		return true
	}
	return false
}

// move moves the selection by d within n items and scrolls it into view;
// move(0, n) only clamps and scrolls, after the list or rows changed.
func (l *listNav) move(d, n int) {
	l.sel = min(max(l.sel+d, 0), max(n-1, 0))
	switch {
	case l.sel < l.scroll:
		l.scroll = l.sel
	case l.rows > 0 && l.sel >= l.scroll+l.rows:
		l.scroll = l.sel - l.rows + 1
	}
	l.scroll = max(min(l.scroll, n-l.rows), 0)
}

// shown returns the range of items in view.
func (l *listNav) shown(n int) (from, to int) { return l.scroll, min(l.scroll+l.rows, n) }
