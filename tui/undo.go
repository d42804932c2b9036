package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools"
)

// Checkpoints is tackle's record of the files each turn changed
// (*tools.Checkpoints): /undo reverts turns, /diff shows the session's
// changes.
type Checkpoints interface {
	Begin(prompt string)
	Undo(n int, force bool) (tools.UndoResult, error)
	SessionDiff() []tools.FileDiff
}

// undo runs /undo [N]: the file changes of the last N turns that made
// any are reverted, unless a file changed since tackle wrote it: then a
// dialog asks first.
func (m *Model) undo(arg string) {
	cp := m.opts.Checkpoints
	if cp == nil {
		m.note(noteError, "undo is not available here")
		return
	}
	if m.running {
		m.note(noteWarn, "a turn is running: interrupt it (esc) before /undo")
		return
	}
	n := 1
	if arg = strings.TrimSpace(arg); arg != "" {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 {
			m.note(noteError, fmt.Sprintf("/undo takes a number of turns (1 or more), not %q", arg))
			return
		}
		n = v
	}
	res, err := cp.Undo(n, false)
	if err == nil && len(res.Changed) > 0 {
		m.pushDialog(newUndoConfirmDialog(n, res.Changed))
		return
	}
	m.undone(res, err)
}

// undone says what an undo did.
func (m *Model) undone(res tools.UndoResult, err error) {
	switch {
	case errors.Is(err, tools.ErrNothingToUndo):
		m.note(noteInfo, "nothing to undo: no turn of this session changed a file through the file tools")
		return
	case err != nil && len(res.Restored)+len(res.Deleted) == 0:
		m.note(noteError, err.Error())
		return
	}
	var parts []string
	if len(res.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(res.Restored, ", "))
	}
	if len(res.Deleted) > 0 {
		parts = append(parts, "deleted "+strings.Join(res.Deleted, ", ")+" (created by the turn)")
	}
	m.note(noteInfo, fmt.Sprintf("undid %d %s: %s", len(res.Turns), plural(len(res.Turns), "turn", "turns"), strings.Join(parts, "; ")))
	m.agent.Note(undoNote(res))
	if len(res.Untracked) > 0 {
		m.note(noteWarn, "not tracked, so not undone: what these commands changed: "+strings.Join(res.Untracked, "; "))
	}
	if err != nil {
		m.note(noteError, err.Error())
	}
}

// undoNote tells the model what an undo changed in the files behind its
// back: which files are as they were, which are gone, and what was not
// undone.
func undoNote(res tools.UndoResult) string {
	turns := "your last turn"
	if n := len(res.Turns); n > 1 {
		turns = fmt.Sprintf("your last %d turns", n)
	}
	s := fmt.Sprintf("the user ran /undo: the file changes of %s were reverted.", turns)
	if len(res.Restored) > 0 {
		s += " Restored to how they were before: " + strings.Join(res.Restored, ", ") + "."
	}
	if len(res.Deleted) > 0 {
		s += " Deleted (created in those turns): " + strings.Join(res.Deleted, ", ") + "."
	}
	if len(res.Untracked) > 0 {
		s += " Not undone, what these commands changed: " + strings.Join(res.Untracked, "; ") + "."
	}
	return s + " Read a file again before you change it."
}

// newUndoConfirmDialog asks before an undo of n turns overwrites the
// files that changed since tackle wrote them.
func newUndoConfirmDialog(n int, changed []string) *questionDialog {
	k := dialogKeys()
	return &questionDialog{
		title: "Undo: files changed since",
		body: func(st *themes.Styles, inner int) []string {
			lines := prefixed(st.ModalHint.Render, "These files are no longer what tackle wrote (you, an editor or a command changed them). Undo would overwrite those changes:", inner, "", "")
			for _, p := range changed {
				lines = append(lines, "  "+st.ToolArgs.Render(p))
			}
			return lines
		},
		yes: k.undoAnyway, no: k.keep,
		onYes: dialogAction{close: true, undoForce: n},
		onNo:  dialogAction{close: true, notice: "undo cancelled: nothing was changed"},
	}
}

// showDiff opens /diff: every file the file tools changed in the session,
// from before the first change to now.
func (m *Model) showDiff() {
	cp := m.opts.Checkpoints
	if cp == nil {
		m.note(noteError, "/diff is not available here")
		return
	}
	diffs := cp.SessionDiff()
	if len(diffs) == 0 {
		m.note(noteInfo, "no file changed through the file tools in this session")
		return
	}
	m.pushDialog(&diffDialog{diffs: diffs})
}

// diffDialog shows the session's changes, a coloured diff per file.
type diffDialog struct {
	pager
	diffs []tools.FileDiff
}

func (d *diffDialog) layout(st *themes.Styles, width, height int) {
	d.width = width
	inner := max(width-4, 8)
	lines := []string{st.ModalTitle.Render("Changes in this session") + st.ModalHint.Render(fmt.Sprintf(" — %d %s, through the file tools", len(d.diffs), plural(len(d.diffs), "file", "files")))}
	for _, f := range d.diffs {
		what := "changed"
		switch {
		case f.Created && f.Deleted:
			what = "created, then deleted"
		case f.Created:
			what = "created"
		case f.Deleted:
			what = "deleted"
		case f.Diff == "":
			what = "changed back to how it was"
		}
		lines = append(lines, "", st.DiffHeader.Render(f.Path)+" "+st.ModalHint.Render(what))
		lines = append(lines, styledDiff(st, f.Diff, inner)...)
	}
	d.setLines(lines, height)
}
