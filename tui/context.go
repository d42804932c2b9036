package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/themes"
)

// ContextPart is one part of what every request sends before the
// conversation: tackle's own instructions, an instruction file, the
// environment block, the tool definitions.
type ContextPart struct {
	Name string // "AGENTS.md (/src/proj/AGENTS.md)"
	Text string // what is sent, for its size
}

// estimateTokens is a rough token count for text: about four bytes a
// token for English and code. The status line's figure is the server's.
func estimateTokens(s string) int64 { return int64(len(s)+3) / 4 }

// showContext opens /context: what the system prompt and the tool
// definitions hold, with their size, and what the last request used.
func (m *Model) showContext() {
	parts := slices.Clone(m.opts.ContextParts)
	if m.opts.ContextLive != nil {
		parts = append(parts, m.opts.ContextLive()...)
	}
	if len(parts) == 0 {
		m.note(noteError, "the context breakdown is not available here")
		return
	}
	m.pushDialog(&contextDialog{parts: parts, lastPrompt: m.ctxSize, used: m.ctxUsed, window: m.ctxWindow})
}

// contextDialog lists the parts of the context with their estimated
// tokens, and the conversation as the rest of the last request.
type contextDialog struct {
	parts      []ContextPart
	lastPrompt int64 // prompt tokens of the last request, from the server; 0 before the first
	// used and window are the Worker's measure of the next request and
	// the model's context window (0 when not known).
	used, window int64
	width        int
}

func (d *contextDialog) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return overlayKey(k), nil
	}
	return dialogAction{}, nil
}

func (d *contextDialog) layout(_ *themes.Styles, width, _ int) { d.width = width }

func (d *contextDialog) view(st *themes.Styles) string {
	inner := max(d.width-4, 8)
	lines := []string{st.ModalTitle.Render("Context") + st.ModalHint.Render(" — sent with every request; tokens estimated at 4 bytes each")}
	var fixed int64
	rows := make([][2]string, 0, len(d.parts)+2)
	for _, p := range d.parts {
		n := estimateTokens(p.Text)
		fixed += n
		rows = append(rows, [2]string{"≈" + tokens(n), p.Name})
	}
	rows = append(rows, [2]string{"≈" + tokens(fixed), "in all, before the conversation"})
	if d.lastPrompt > 0 {
		rows = append(rows, [2]string{tokens(d.lastPrompt), fmt.Sprintf("the last request in all (the server's count); the conversation ≈%s", tokens(max(d.lastPrompt-fixed, 0)))})
	} else {
		rows = append(rows, [2]string{"", "no request yet"})
	}
	if d.window > 0 {
		rows = append(rows, [2]string{tokens(d.window), fmt.Sprintf("the model's context window; the next request uses ≈%s (%d%%)", tokens(d.used), d.used*100/d.window)})
	}
	w := 0
	for _, r := range rows {
		w = max(w, ansi.StringWidth(r[0]))
	}
	for _, r := range rows {
		n := r[0] + strings.Repeat(" ", w-ansi.StringWidth(r[0]))
		lines = append(lines, ansi.Truncate(st.ModalKey.Render(n)+"  "+plainText(r[1], st.ControlChar), inner, "…"))
	}
	lines = append(lines, "", st.ModalHint.Render("esc to close; typing goes to the editor"))
	return box(st.ModalBorder, lines, d.width)
}
