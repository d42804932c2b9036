package tui

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// statusLine is the bottom line: what is going on at the left; model,
// approval mode, tokens, retry round and working directory at the right.
// When the terminal is narrow, the least useful parts go first.
func (m *Model) statusLine() string {
	st := &m.styles
	w := max(m.width, 1)

	left := m.activity()

	type part struct {
		text string
		drop int // higher gives way first
		// shorter are shorter forms of text, tried in turn before the
		// part is dropped.
		shorter []string
	}
	parts := []part{
		{text: m.model, drop: 2},
		{text: string(m.mode), drop: 1},
	}
	sandbox := m.opts.About.Sandbox
	if sandbox != "" {
		parts = append(parts, part{text: sandbox, drop: 2})
	}
	if m.usage.TotalTokens > 0 {
		tok := tokens(m.usage.TotalTokens) + " tok"
		parts = append(parts, part{text: tok, drop: 3})
		if m.ctxSize > 0 && m.ctxWindow == 0 {
			parts[len(parts)-1].shorter = []string{tok}
			parts[len(parts)-1].text += " (ctx " + tokens(m.ctxSize) + ")"
		}
	}
	ctx := m.contextUse()
	if ctx != "" {
		parts = append(parts, part{text: ctx, drop: 1})
	}
	if m.retry != "" {
		parts = append(parts, part{text: m.retry, drop: 0})
	}
	failed := ""
	if names := m.mcpFailed(); len(names) > 0 {
		failed = "mcp: " + strings.Join(names, ", ") + " failed"
		parts = append(parts, part{text: failed, drop: 1, shorter: []string{"mcp ✗"}})
	}
	if dir := m.displayDir(); dir != "" {
		parts = append(parts, part{text: dir, drop: 4, shorter: shorterPaths(dir)})
	}

	render := func(ps []part) string {
		var out []string
		for _, p := range ps {
			if p.text == "" {
				continue
			}
			style := st.StatusBarValue
			if p.text == m.retry || (p.text == ctx && m.ctxUsed*100 >= contextWarn*m.ctxWindow) || (failed != "" && (p.text == failed || p.text == "mcp ✗")) ||
				(p.text == sandbox && !m.opts.About.SandboxFull) {
				style = st.Warn
			}
			out = append(out, style.Render(p.text))
		}
		return strings.Join(out, st.Subtle.Render(" · "))
	}
	right := render(parts)
	for ansi.StringWidth(left)+2+ansi.StringWidth(right) > w && len(parts) > 0 {
		// Shorten before dropping: the part that gives way first among
		// those with a shorter form; when none has one, drop that part.
		shrink, worst := -1, 0
		for i, p := range parts {
			if len(p.shorter) > 0 && (shrink < 0 || p.drop > parts[shrink].drop) {
				shrink = i
			}
			if p.drop > parts[worst].drop {
				worst = i
			}
		}
		if shrink >= 0 {
			p := &parts[shrink]
			p.text, p.shorter = p.shorter[0], p.shorter[1:]
		} else {
			parts = append(parts[:worst], parts[worst+1:]...)
		}
		right = render(parts)
	}
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return truncate(left, w)
	}
	return left + strings.Repeat(" ", gap) + right
}

// shorterPaths are ever shorter forms of a directory for the status
// line: its last two names, then its last name, after "…/".
func shorterPaths(dir string) []string {
	names := strings.Split(strings.TrimSuffix(filepath.ToSlash(dir), "/"), "/")
	var out []string
	for keep := 2; keep >= 1; keep-- {
		if len(names) > keep {
			if s := "…/" + strings.Join(names[len(names)-keep:], "/"); len(s) < len(dir) {
				out = append(out, s)
			}
		}
	}
	return out
}

// statusKey describes everything the status line shows.
func (m *Model) statusKey() string {
	approving := false
	if n := len(m.dialogs); n > 0 {
		_, approving = m.dialogs[n-1].(*approvalDialog)
	}
	spin := -1
	if m.quitting || m.interrupting || m.running || m.checksRunning() {
		spin = m.spin % len(spinFrames.Frames)
	}
	elapsed := -1
	if m.running {
		elapsed = int(m.now().Sub(m.turnStart).Seconds())
	}
	return fmt.Sprint(m.width, m.theme.Name, m.quitting, m.interrupting, len(m.dialogs), approving, m.running,
		m.streaming != nil, m.runningTool(), elapsed, spin, m.notice, m.checksRunning(),
		m.model, m.mode, m.usage, m.ctxSize, m.ctxUsed, m.ctxWindow, m.compacting, m.retry, m.modelRetry, m.opts.Workdir, m.mcpFailed())
}

// contextWarn is the context use, in percent of the window, from which
// the status line shows it as a warning.
const contextWarn = 80

// contextUse is the conversation's share of the model's context window,
// "ctx 45%", or "" when the window is not known.
func (m *Model) contextUse() string {
	if m.ctxWindow <= 0 {
		return ""
	}
	return fmt.Sprintf("ctx %d%%", m.ctxUsed*100/m.ctxWindow)
}

// activity says what the session is doing.
func (m *Model) activity() string {
	st := &m.styles
	spin := st.Spinner.Render(spinFrames.Frames[m.spin%len(spinFrames.Frames)])
	switch {
	case m.quitting:
		return spin + st.Muted.Render(" quitting…")
	case m.interrupting:
		return spin + st.StatusInterrupted.Render(" interrupting…")
	case len(m.dialogs) > 0:
		if _, ok := m.dialogs[len(m.dialogs)-1].(*approvalDialog); ok {
			return st.Warn.Render("? waiting for your approval")
		}
	case m.running && m.modelRetry != "":
		return spin + st.Warn.Render(" "+m.modelRetry) + st.Subtle.Render(" · esc to interrupt")
	case m.running && m.compacting:
		elapsed := m.now().Sub(m.turnStart)
		return spin + st.Muted.Render(" compacting the conversation "+formatElapsed(elapsed)) + st.Subtle.Render(" · esc to interrupt")
	case m.running:
		what := " working"
		if m.streaming != nil {
			what = " writing"
		}
		if m.runningTool() {
			what = " running tools"
		}
		elapsed := m.now().Sub(m.turnStart)
		return spin + st.Muted.Render(fmt.Sprintf("%s %s", what, formatElapsed(elapsed))) + st.Subtle.Render(" · esc to interrupt")
	case m.notice != "":
		return st.Warn.Render(m.notice)
	case m.checksRunning():
		return spin + st.Muted.Render(" checking")
	}
	if m.notice != "" {
		return st.Warn.Render(m.notice)
	}
	return st.Subtle.Render("/help")
}

func (m *Model) runningTool() bool {
	for _, t := range m.tools {
		if t.state == toolRunning {
			return true
		}
	}
	return false
}

// displayDir is the working directory, with the home directory as ~.
func (m *Model) displayDir() string {
	dir := m.opts.Workdir
	if dir == "" {
		return ""
	}
	if home := m.getenv("HOME"); home != "" {
		if rel, err := filepath.Rel(home, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if rel == "." {
				return "~"
			}
			return "~/" + rel
		}
	}
	return dir
}

// tokens formats a token count: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(float64(n)/1_000_000, 'f', 1, 64) + "M"
	}
}

func formatElapsed(d interface{ Seconds() float64 }) string {
	s := int(d.Seconds())
	if s < 60 {
		return strconv.Itoa(s) + "s"
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

func truncate(s string, w int) string { return ansi.Truncate(s, max(w, 0), "…") }

func itoa(n int) string { return strconv.Itoa(n) }
