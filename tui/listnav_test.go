package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestListNavKeepsTheSelectionInView(t *testing.T) {
	l := listNav{rows: 3}
	steps := []struct {
		msg         tea.Msg
		sel, scroll int
	}{
		{keyMsg("down"), 1, 0},
		{keyMsg("j"), 2, 0},
		{keyMsg("down"), 3, 1},
		{keyMsg("pgdown"), 6, 4},
		{keyMsg("end"), 9, 7},
		{keyMsg("down"), 9, 7}, // the last stays the last
		{tea.MouseWheelMsg{Button: tea.MouseWheelUp}, 8, 7},
		{keyMsg("pgup"), 5, 5},
		{keyMsg("home"), 0, 0},
		{keyMsg("up"), 0, 0},
	}
	for i, s := range steps {
		if !l.handle(s.msg, 10) {
			t.Fatalf("step %d: %v not handled", i, s.msg)
		}
		if l.sel != s.sel || l.scroll != s.scroll {
			t.Errorf("step %d: sel %d scroll %d, want %d %d", i, l.sel, l.scroll, s.sel, s.scroll)
		}
	}
	if l.handle(keyMsg("enter"), 10) {
		t.Error("enter handled as navigation")
	}
	// The list shrinks under the selection: it is clamped and in view.
	l = listNav{sel: 9, scroll: 7, rows: 3}
	l.move(0, 4)
	if from, to := l.shown(4); l.sel != 3 || from != 1 || to != 4 {
		t.Errorf("after shrinking: sel %d, shown %d–%d", l.sel, from, to)
	}
	l.move(0, 0)
	if from, to := l.shown(0); l.sel != 0 || from != 0 || to != 0 {
		t.Errorf("empty: sel %d, shown %d–%d", l.sel, from, to)
	}
}
