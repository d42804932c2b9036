package tui

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/tools"
)

// The model's plan (the todo tool) is pinned above the editor and updated
// as each todo call sets it: shown while a step is open, and while the
// turn that finished it runs; /new clears it, /resume shows the session's.

// maxPlanRows bounds the plan's steps on screen: around the step in
// progress, with how many more above and below.
const maxPlanRows = 8

// setPlan makes items the plan shown.
func (m *Model) setPlan(items []tools.TodoItem) {
	m.plan = items
}

// planShown reports whether the plan is on screen: it has a step not
// done, or a turn that may have just finished it runs.
func (m *Model) planShown() bool {
	if len(m.plan) == 0 || len(m.dialogs) > 0 {
		return false
	}
	if m.running {
		return true
	}
	for _, t := range m.plan {
		if t.Status != tools.TodoCompleted {
			return true
		}
	}
	return false
}

// planLines draws the plan: a title with the count done, then a step a
// line, at most maxPlanRows of them around the one in progress.
func (m *Model) planLines() []string {
	if !m.planShown() {
		return nil
	}
	st := &m.styles
	w := max(m.width, 1)
	done, current := 0, -1
	for i, t := range m.plan {
		switch t.Status {
		case tools.TodoCompleted:
			done++
		case tools.TodoInProgress:
			current = i
		}
	}
	if current < 0 {
		current = min(done, len(m.plan)-1)
	}
	from := 0
	if len(m.plan) > maxPlanRows {
		from = min(max(current-maxPlanRows/2, 0), len(m.plan)-maxPlanRows)
	}
	to := min(from+maxPlanRows, len(m.plan))
	title := st.Accent.Render("Plan") + st.Muted.Render(fmt.Sprintf("  %d/%d done", done, len(m.plan)))
	lines := []string{ansi.Truncate(title, w, "…")}
	if from > 0 {
		lines = append(lines, st.Subtle.Render(fmt.Sprintf("  … %d more above", from)))
	}
	for _, t := range m.plan[from:to] {
		// The model wrote it: one row, every hidden character shown.
		text := markBreaks(t.Content)
		var line string
		switch t.Status {
		case tools.TodoCompleted:
			line = st.StatusOK.Render("  ✓ ") + visibleStyled(text, st.Muted, st.ControlChar)
		case tools.TodoInProgress:
			line = st.StatusRunning.Render("  ▸ ") + visibleStyled(text, st.Bold, st.ControlChar)
		default:
			line = st.Subtle.Render("  ○ ") + visibleStyled(text, st.App, st.ControlChar)
		}
		lines = append(lines, ansi.Truncate(line, w, "…"))
	}
	if to < len(m.plan) {
		lines = append(lines, st.Subtle.Render(fmt.Sprintf("  … %d more below", len(m.plan)-to)))
	}
	return lines
}
