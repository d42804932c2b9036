package tui

import (
	"slices"
	"strings"
)

// transcript is the conversation as the user sees it: a list of entries,
// each drawn once and kept as lines until it changes or the width does,
// and a scroll position over all their lines.
//
// In full-screen mode the visible window is height lines from top; when
// follow is set the window sticks to the bottom as entries grow. In
// inline mode entries that are no longer live are handed out once by
// takePrintable, to be printed into the terminal's own scrollback, and
// only the rest is drawn.
type transcript struct {
	entries []entry
	starts  []int // first line of each entry (its gap line, if any)
	total   int
	width   int

	height int
	top    int
	follow bool

	printed int // inline mode: entries already in the terminal's scrollback

	// reveal, when not -1, is an entry the next layout scrolls into view
	// (the item cursor's).
	reveal int
}

func newTranscript() transcript { return transcript{follow: true, reveal: -1} }

func (t *transcript) add(e entry) {
	e.base().dirty = true
	t.entries = append(t.entries, e)
}

func (t *transcript) clear() {
	*t = transcript{width: t.width, height: t.height, follow: true, reveal: -1}
}

func (t *transcript) empty() bool { return len(t.entries) == 0 }

// gap reports whether entry i is set apart from the one before by a
// blank line.
func (t *transcript) gap(i int) bool {
	return i > 0 && (t.entries[i].conversational() || t.entries[i-1].conversational())
}

// layout draws the entries that need it at rc.width and recomputes where
// every entry starts. An assistant entry whose text is still streaming is
// drawn only when frame is set: text deltas are coalesced into frames.
func (t *transcript) layout(rc *renderCtx, frame bool) {
	anchor, offset := -1, 0
	if rc.width != t.width && !t.follow && len(t.starts) == len(t.entries) && len(t.entries) > 0 {
		anchor = t.entryAt(t.top)
		offset = t.top - t.starts[anchor]
	}
	widthChanged := rc.width != t.width
	t.width = rc.width

	t.starts = t.starts[:0]
	line := 0
	for i, e := range t.entries {
		c := e.base()
		deferred := false
		if a, ok := e.(*assistantEntry); ok && a.pending && !a.finished {
			// Streaming text is drawn on frames only (and at once when
			// the width changed).
			c.dirty = c.dirty || frame
			deferred = !frame && !widthChanged
		}
		if !deferred && (c.dirty || c.width != rc.width || c.lines == nil) {
			c.lines = e.render(rc)
			c.width = rc.width
			c.dirty = false
		}
		t.starts = append(t.starts, line)
		if t.gap(i) {
			line++
		}
		line += len(c.lines)
	}
	t.total = line

	if anchor >= 0 && widthChanged {
		n := len(t.entries[anchor].base().lines)
		t.top = t.starts[anchor] + min(offset, max(n-1, 0))
	}
	if i := t.reveal; i >= 0 && i < len(t.entries) {
		t.reveal = -1
		t.show(i)
	}
	t.clamp()
}

// show scrolls entry i into the window: its first line, and as much of it
// as fits.
func (t *transcript) show(i int) {
	first, n := t.starts[i], len(t.entries[i].base().lines)
	switch {
	case first < t.top:
		t.top = first
	case first+n > t.top+t.height:
		t.top = min(first, first+n-t.height)
	default:
		return
	}
	t.follow = t.top >= t.maxTop()
}

// entryAt returns the index of the entry that holds line y.
func (t *transcript) entryAt(y int) int {
	i, found := slices.BinarySearch(t.starts, y)
	if !found {
		i--
	}
	return max(i, 0)
}

// entryLines returns entry i's lines with its gap line in front.
func (t *transcript) entryLines(i int) []string {
	lines := t.entries[i].base().lines
	if t.gap(i) {
		return append([]string{""}, lines...)
	}
	return lines
}

// setHeight sets the height of the visible window.
func (t *transcript) setHeight(h int) {
	t.height = max(h, 0)
	t.clamp()
}

func (t *transcript) maxTop() int { return max(t.total-t.height, 0) }

func (t *transcript) clamp() {
	if t.follow {
		t.top = t.maxTop()
		return
	}
	t.top = min(max(t.top, 0), t.maxTop())
	if t.top == t.maxTop() {
		t.follow = true
	}
}

// scroll moves the window by n lines (negative: up).
func (t *transcript) scroll(n int) {
	if n < 0 {
		t.follow = false
	}
	t.top += n
	t.clamp()
}

func (t *transcript) pageUp()   { t.scroll(-max(t.height-1, 1)) }
func (t *transcript) pageDown() { t.scroll(max(t.height-1, 1)) }

func (t *transcript) toTop() {
	t.follow = false
	t.top = 0
	t.clamp()
}

func (t *transcript) toBottom() {
	t.follow = true
	t.clamp()
}

// atBottom reports whether the newest lines are in view.
func (t *transcript) atBottom() bool { return t.top >= t.maxTop() }

// below is how many lines are below the window.
func (t *transcript) below() int { return max(t.total-t.top-t.height, 0) }

// window returns the visible lines, padded to the window's height.
func (t *transcript) window() []string {
	out := make([]string, 0, t.height)
	if len(t.entries) > 0 && t.height > 0 {
		end := t.top + t.height
		for i := t.entryAt(t.top); i < len(t.entries) && t.starts[i] < end; i++ {
			lines := t.entryLines(i)
			from := max(t.top-t.starts[i], 0)
			to := min(len(lines), end-t.starts[i])
			if from < to {
				out = append(out, lines[from:to]...)
			}
		}
	}
	for len(out) < t.height {
		out = append(out, "")
	}
	return out
}

// all returns every line of the transcript: what is written to the
// terminal when a full-screen session ends.
func (t *transcript) all() string {
	var b strings.Builder
	for i := range t.entries {
		for _, l := range t.entryLines(i) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// takePrintable returns the lines of the entries, from the first not yet
// printed, that will not change any more, and marks them printed. It is
// the inline mode's way into the terminal's scrollback.
func (t *transcript) takePrintable() []string {
	var out []string
	for t.printed < len(t.entries) && !t.entries[t.printed].live() {
		out = append(out, t.entryLines(t.printed)...)
		t.printed++
	}
	return out
}

// takeAll is takePrintable for the end of a session: live entries too.
func (t *transcript) takeAll() []string {
	var out []string
	for ; t.printed < len(t.entries); t.printed++ {
		out = append(out, t.entryLines(t.printed)...)
	}
	return out
}

// liveLines are the lines of the entries not printed yet (inline mode),
// at most limit of the newest.
func (t *transcript) liveLines(limit int) []string {
	var out []string
	for i := t.printed; i < len(t.entries); i++ {
		out = append(out, t.entryLines(i)...)
	}
	if len(out) > limit {
		out = out[len(out)-max(limit, 0):]
	}
	return out
}
