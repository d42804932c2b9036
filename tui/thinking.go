package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// liveThinkingLines is how many of the latest lines of reasoning show while
// the model thinks.
const liveThinkingLines = 4

// thinkingEntry is a reply's reasoning: dim and apart from the answer. While
// it streams, its latest lines show under "Thinking…"; once the answer
// starts it folds to one line, and ctrl+o (with the tool outputs) shows it
// whole. It is never part of the answer.
type thinkingEntry struct {
	cache
	fold
	text strings.Builder
	done bool
}

func (e *thinkingEntry) live() bool           { return !e.done }
func (e *thinkingEntry) conversational() bool { return false }

func (e *thinkingEntry) write(s string) {
	e.text.WriteString(s)
	e.touch()
}

// finish folds the entry: the reply's reasoning is complete.
func (e *thinkingEntry) finish() {
	if !e.done {
		e.done = true
		e.touch()
	}
}

func (e *thinkingEntry) render(rc *renderCtx) []string {
	st := rc.st
	text := strings.TrimSpace(plainText(e.text.String(), st.ControlChar))
	var body []string
	if text != "" {
		body = prefixed(st.Subtle.Render, text, rc.width, "  ", "  ")
	}
	head := "✻ Thinking…"
	if e.done {
		head = "✻ Thought"
	}
	switch {
	case e.expandedIn(rc):
		if len(body) > maxExpandedOutput {
			body = body[len(body)-maxExpandedOutput:]
		}
	case !e.done:
		if len(body) > liveThinkingLines {
			body = body[len(body)-liveThinkingLines:]
		}
	default:
		if n := len(body); n > 0 {
			head += fmt.Sprintf(" · %d %s", n, plural(n, "line", "lines"))
			if !rc.noHints {
				head += " (ctrl+o to expand)"
			}
		}
		body = nil
	}
	return append([]string{e.mark(rc, ansi.Truncate(st.Muted.Italic(true).Render(head), rc.width, "…"))}, body...)
}
