package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// renderCtx is what entries need to draw themselves.
type renderCtx struct {
	st       *themes.Styles
	width    int
	spinner  string // the current spinner frame
	expanded bool   // tool output shown in full
	noHints  bool   // drawn for the scrollback (inline mode, or after the session): no key hints
	// summary says in one line what a call is about.
	summary func(chat.ToolCall) string
}

// cache holds an entry's rendered lines. An entry is drawn again when it
// is dirty or the width changed; everything else reuses the lines.
type cache struct {
	lines []string
	width int
	dirty bool
}

func (c *cache) base() *cache { return c }

// touch marks the entry for drawing again.
func (c *cache) touch() { c.dirty = true }

// entry is one item of the transcript.
type entry interface {
	base() *cache
	// render draws the entry at rc.width.
	render(rc *renderCtx) []string
	// live reports whether the entry may still change: streaming text, a
	// tool that has not finished. Inline mode prints an entry to the
	// terminal's scrollback once it is no longer live.
	live() bool
	// conversational entries (user and assistant messages) are set apart
	// from their neighbours by a blank line; activity entries (tools,
	// notes, checks) follow one another closely.
	conversational() bool
}

// ---- user messages ----

type userEntry struct {
	cache
	text string
}

func (e *userEntry) live() bool           { return false }
func (e *userEntry) conversational() bool { return true }

func (e *userEntry) render(rc *renderCtx) []string {
	text := plainText(strings.TrimRight(e.text, "\n "), rc.st.ControlChar)
	return prefixed(rc.st.UserText.Render, text, rc.width, rc.st.UserLabel.Render("› "), "  ")
}

// ---- assistant messages ----

// mdStream is the part of a tui/internal/markdown stream the transcript uses: text
// is written as it arrives, finished blocks are rendered once and cached,
// and only the open block is rendered again.
type mdStream interface {
	Write(delta string)
	Finish()
	Render(width int) string
}

type assistantEntry struct {
	cache
	stream   mdStream
	raw      strings.Builder // the text so far, to render again in another theme
	pending  bool            // text arrived since the last frame
	finished bool

	// The rendered text split into lines, kept between frames: a frame
	// splits only what changed since the last one (the open block at the
	// end), so its cost does not grow with the length of the message.
	out      string
	outLines []string // lines of out, each with its prefix
	outStart []int    // byte offset of each line in out
	outWidth int
}

func (e *assistantEntry) live() bool           { return !e.finished }
func (e *assistantEntry) conversational() bool { return true }

func (e *assistantEntry) write(s string) {
	e.raw.WriteString(s)
	e.stream.Write(s)
	e.pending = true
}

func (e *assistantEntry) finish() {
	if !e.finished {
		e.finished = true
		e.stream.Finish()
		e.touch()
	}
}

// setStream replaces the stream (another theme) and forgets the lines.
func (e *assistantEntry) setStream(s mdStream) {
	e.stream = s
	e.out, e.outLines, e.outStart, e.outWidth = "", nil, nil, 0
	e.touch()
}

func (e *assistantEntry) render(rc *renderCtx) []string {
	e.pending = false
	inner := max(rc.width-2, 1)
	out := e.stream.Render(inner)
	if inner != e.outWidth {
		e.out, e.outLines, e.outStart = "", e.outLines[:0], e.outStart[:0]
		e.outWidth = inner
	}
	// Keep the lines that lie wholly in the part of the text that did not
	// change; split the rest.
	common := commonPrefix(e.out, out)
	keep := 0
	for keep < len(e.outStart) {
		end := len(e.out)
		if keep+1 < len(e.outStart) {
			end = e.outStart[keep+1] - 1 // the newline ending the line
		}
		if end >= common || keep+1 >= len(e.outStart) {
			break
		}
		keep++
	}
	lines, starts := e.outLines[:keep], e.outStart[:keep]
	from := 0
	if keep > 0 {
		from = e.outStart[keep]
		starts = e.outStart[:keep]
	}
	mark := rc.st.AssistantLabel.Render("●") + " "
	for from <= len(out) {
		end := strings.IndexByte(out[from:], '\n')
		if end < 0 {
			end = len(out) - from
		}
		l := out[from : from+end]
		// The markdown renderer does not go below its minimum width.
		if inner < 12 && ansi.StringWidth(l) > inner {
			l = ansi.Truncate(l, inner, "")
		}
		prefix := "  "
		if len(lines) == 0 {
			prefix = mark
		}
		lines = append(lines, prefix+l)
		starts = append(starts, from)
		from += end + 1
	}
	e.out, e.outLines, e.outStart = out, lines, starts
	// The transcript spaces entries itself: no blank lines at the end.
	n := len(lines)
	for n > 0 && strings.TrimSpace(ansi.Strip(lines[n-1])) == "" {
		n--
	}
	return lines[:n:n]
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	// Compare in chunks: string equality is a fast memcmp.
	i := 0
	for step := 4096; step > 0; step /= 8 {
		for i+step <= n && a[i:i+step] == b[i:i+step] {
			i += step
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// ---- tool calls ----

type toolState uint8

const (
	toolProposed toolState = iota // the model asked for it; hooks are deciding
	toolWaiting                   // waiting for the user's approval
	toolRunning
	toolDone
	toolNotRun // the run ended before it ran
)

// collapsedOutput is how many lines of a tool's output show until the
// user expands tool output.
const collapsedOutput = 4

// maxExpandedOutput bounds the lines an expanded tool output shows.
const maxExpandedOutput = 400

type toolEntry struct {
	cache
	fold
	call   chat.ToolCall
	state  toolState
	result chat.ToolResult
	took   time.Duration
	// decidedBy is "you" when the user decided the call in the dialog.
	decidedBy string
	// progress is how far the running call has come, as its tool says
	// ("1/2 halfway"); "" when it says nothing. output is the end of what
	// it has printed so far (agent.ToolCallProgress.Output).
	progress string
	output   string
	// children is the progress of the subagent a task call started.
	children *children
}

func (e *toolEntry) live() bool {
	return e.state == toolProposed || e.state == toolWaiting || e.state == toolRunning
}
func (e *toolEntry) conversational() bool { return false }

func (e *toolEntry) render(rc *renderCtx) []string {
	st := rc.st
	var icon, tail string
	switch e.state {
	case toolProposed:
		icon = st.Subtle.Render("·")
	case toolWaiting:
		icon = st.StatusDenied.Render("?")
		tail = st.Muted.Render("waiting for approval")
	case toolRunning:
		icon = st.StatusRunning.Render(rc.spinner)
		if e.progress != "" {
			tail = visibleStyled(markBreaks(e.progress), st.Muted, st.ControlChar)
		}
	case toolNotRun:
		icon = st.StatusSkipped.Render("–")
		tail = st.StatusSkipped.Render("not run")
	case toolDone:
		switch e.result.Status {
		case chat.StatusOK:
			icon = st.StatusOK.Render("✓")
		case chat.StatusSkipped:
			icon = st.StatusSkipped.Render("⤼")
			tail = st.StatusSkipped.Render("skipped")
		case chat.StatusDenied:
			icon = st.StatusDenied.Render("✗")
			tail = st.StatusDenied.Render("denied")
		default:
			icon = st.StatusFailed.Render("✗")
		}
	}
	if e.state == toolDone && e.took >= 100*time.Millisecond {
		tail = joinNonEmpty("  ", tail, st.Subtle.Render(formatDuration(e.took)))
	}

	head := icon + " " + st.ToolName.Render(toolLabel(e.call.Name))
	args := visibleStyled(markBreaks(rc.summary(e.call)), st.ToolArgs, st.ControlChar)
	room := rc.width - ansi.StringWidth(head) - 2
	if tail != "" {
		room -= ansi.StringWidth(tail) + 2
	}
	line := head
	if args != "" && room > 3 {
		line += "  " + ansi.Truncate(args, room, "…")
	}
	if tail != "" {
		if ansi.StringWidth(line)+2+ansi.StringWidth(tail) <= rc.width {
			line += "  " + tail
		} else {
			line = ansi.Truncate(line, rc.width, "…")
		}
	}
	lines := []string{e.mark(rc, ansi.Truncate(line, rc.width, "…"))}
	lines = append(lines, e.childLines(rc)...)
	switch e.state {
	case toolRunning:
		lines = append(lines, e.liveTail(rc)...)
	case toolDone:
		lines = append(lines, e.body(rc)...)
	}
	return lines
}

// liveOutput is how many of the last lines of a running call's output
// show under its line.
const liveOutput = 8

// liveTail is the end of a running call's output, as it comes: its last
// lines, one row each. A carriage return rewinds a line (a progress
// bar), so a line shows what came after its last one.
func (e *toolEntry) liveTail(rc *renderCtx) []string {
	text := strings.TrimRight(e.output, "\n")
	if text == "" {
		return nil
	}
	st := rc.st
	out := strings.Split(text, "\n")
	out = out[max(len(out)-liveOutput, 0):]
	lines := make([]string, len(out))
	for i, l := range out {
		l = strings.TrimRight(l, "\r")
		l = l[strings.LastIndexByte(l, '\r')+1:]
		prefix := "    "
		if i == 0 {
			prefix = "  ⎿ "
		}
		lines[i] = ansi.Truncate(st.Subtle.Render(prefix)+st.ToolOutput.Render(plainText(l, st.ControlChar)), rc.width, "…")
	}
	return lines
}

// body is the part of the result shown under the call: a reason for a
// call that did not run, a few lines of output otherwise.
func (e *toolEntry) body(rc *renderCtx) []string {
	st := rc.st
	content := e.result.Content
	switch e.result.Status {
	case chat.StatusSkipped, chat.StatusDenied:
		reason := content
		if _, r, ok := strings.Cut(content, "Reason: "); ok {
			reason = r
		} else if e.result.Status == chat.StatusDenied {
			reason = ""
		}
		if e.decidedBy != "" {
			reason = joinNonEmpty(": ", "by "+e.decidedBy, reason)
		}
		if reason == "" {
			return nil
		}
		return prefixed(st.Muted.Render, plainText(markBreaks(reason), st.ControlChar), rc.width, "  ⎿ ", "    ")
	}
	if lines, ok := e.editDiff(rc); ok {
		return lines
	}
	content = strings.TrimRight(plainText(content, st.ControlChar), "\n ")
	if content == "" {
		return nil
	}
	out := strings.Split(content, "\n")
	limit := collapsedOutput
	if e.result.Status == chat.StatusError {
		limit = 2 * collapsedOutput
	}
	if e.expandedIn(rc) {
		limit = maxExpandedOutput
	}
	more := 0
	if len(out) > limit {
		more = len(out) - limit
		out = out[:limit]
	}
	style := st.ToolOutput
	if e.result.Status == chat.StatusError {
		style = st.Error
	}
	var lines []string
	for i, l := range out {
		prefix := "    "
		if i == 0 {
			prefix = "  ⎿ "
		}
		if e.expandedIn(rc) {
			lines = append(lines, prefixed(style.Render, l, rc.width, prefix, "    ")...)
			continue
		}
		lines = append(lines, ansi.Truncate(st.Subtle.Render(prefix)+style.Render(l), rc.width, "…"))
	}
	if more > 0 {
		hint := fmt.Sprintf("    … %d more %s", more, plural(more, "line", "lines"))
		if !e.expandedIn(rc) && !rc.noHints {
			hint += " (ctrl+o to expand)"
		}
		lines = append(lines, ansi.Truncate(st.Subtle.Render(hint), rc.width, "…"))
	}
	return lines
}

// collapsedDiff is how many lines of an edit's diff show until the user
// expands tool output.
const collapsedDiff = 8

// editDiff draws the result of an applied edit_file (or write_file over a
// file) as its diff, coloured:
// the first lines, all of them once expanded and in the scrollback (so the
// record of what changed is kept whole).
func (e *toolEntry) editDiff(rc *renderCtx) ([]string, bool) {
	if (e.call.Name != tools.EditFile && e.call.Name != tools.WriteFile) || e.result.Status != chat.StatusOK {
		return nil, false
	}
	head, diff, ok := strings.Cut(e.result.Content, "\n")
	if !ok || !strings.HasPrefix(diff, "--- ") {
		return nil, false
	}
	st := rc.st
	lines := styledDiff(st, diff, max(rc.width-4, 8))
	limit := collapsedDiff
	if e.expandedIn(rc) || rc.noHints {
		limit = maxExpandedOutput
	}
	more := max(len(lines)-limit, 0)
	lines = lines[:len(lines)-more]
	out := []string{ansi.Truncate(st.Subtle.Render("  ⎿ ")+st.ToolOutput.Render(plainText(head, st.ControlChar)), rc.width, "…")}
	for _, l := range lines {
		out = append(out, "    "+l)
	}
	if more > 0 {
		hint := fmt.Sprintf("    … %d more %s", more, plural(more, "line", "lines"))
		if !rc.noHints {
			hint += " (ctrl+o to expand)"
		}
		out = append(out, ansi.Truncate(st.Subtle.Render(hint), rc.width, "…"))
	}
	return out, true
}

// ---- notes: hook decisions, warnings, errors, interruptions ----

type noteKind uint8

const (
	noteInfo noteKind = iota
	noteHook
	noteRetry
	noteWarn
	noteError
	noteInterrupted
	noteCompact
)

type noteEntry struct {
	cache
	kind noteKind
	text string
}

func (e *noteEntry) live() bool           { return false }
func (e *noteEntry) conversational() bool { return false }

func (e *noteEntry) render(rc *renderCtx) []string {
	st := rc.st
	var icon string
	var style lipgloss.Style
	switch e.kind {
	case noteHook:
		icon, style = "⚑", st.HookDecision
	case noteRetry:
		icon, style = "↻", st.Muted
	case noteWarn:
		icon, style = "⚠", st.Warn
	case noteError:
		icon, style = "✗", st.Error
	case noteInterrupted:
		icon, style = "⏹", st.StatusInterrupted
	case noteCompact:
		icon, style = "⇣", st.Muted
	default:
		icon, style = "·", st.Muted
	}
	text := plainText(e.text, st.ControlChar)
	return prefixed(style.Render, text, rc.width, style.Render(icon)+" ", "  ")
}

// ---- turn-end checks ----

type checkState struct {
	name     string
	status   string // "" while running, else CheckFinished.Status
	problems int
	summary  string
}

type checksEntry struct {
	cache
	checks []checkState
	retry  string // "retry 1/3" when a check pushed feedback
}

func (e *checksEntry) live() bool {
	for _, c := range e.checks {
		if c.status == "" {
			return true
		}
	}
	return false
}
func (e *checksEntry) conversational() bool { return false }

func (e *checksEntry) find(name string) *checkState {
	for i := len(e.checks) - 1; i >= 0; i-- {
		if e.checks[i].name == name {
			return &e.checks[i]
		}
	}
	return nil
}

func (e *checksEntry) render(rc *renderCtx) []string {
	st := rc.st
	parts := []string{st.Muted.Render("checks")}
	var details []string
	for _, c := range e.checks {
		var s string
		switch c.status {
		case "":
			s = st.StatusRunning.Render(rc.spinner)
		case "ok":
			s = st.CheckOK.Render("✓")
		case "fixed":
			s = st.CheckOK.Render("✓ fixed")
		case "problems":
			s = st.CheckFailed.Render(fmt.Sprintf("✗ %d %s", c.problems, plural(c.problems, "problem", "problems")))
		case "skipped":
			s = st.StatusSkipped.Render("– skipped")
		default:
			s = st.CheckFailed.Render("! " + c.status)
		}
		parts = append(parts, st.App.Render(c.name)+" "+s)
		if c.summary != "" && c.status != "ok" {
			for _, l := range strings.Split(strings.TrimSpace(c.summary), "\n") {
				if len(details) < 3 {
					details = append(details, l)
				}
			}
		}
	}
	line := strings.Join(parts, "  ")
	if e.retry != "" {
		line += "  " + st.Warn.Render("→ "+e.retry)
	}
	lines := prefixed(identity, line, rc.width, st.Accent.Render("◆")+" ", "  ")
	for _, d := range details {
		lines = append(lines, ansi.Truncate(st.Subtle.Render("  ⎿ ")+st.Muted.Render(plainText(d, st.ControlChar)), rc.width, "…"))
	}
	return lines
}

// ---- helpers ----

// prefixed wraps text to width behind a first-line prefix and a hanging
// indent, styling each wrapped line with style.
func prefixed(style func(...string) string, text string, width int, first, rest string) []string {
	pw := max(ansi.StringWidth(first), ansi.StringWidth(rest))
	inner := max(width-pw, 1)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		wrapped := ansi.Wrap(para, inner, "")
		for _, l := range strings.Split(wrapped, "\n") {
			p := rest
			if len(out) == 0 {
				p = first
			}
			out = append(out, ansi.Truncate(p+style(l), max(width, 1), ""))
		}
	}
	return out
}

// identity is a style that leaves text as it is.
func identity(s ...string) string { return strings.Join(s, "") }

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}
