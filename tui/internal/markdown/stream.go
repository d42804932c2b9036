package markdown

import (
	"strings"
	"time"
)

// When the open block is rendered with glamour again; see [Stream.Render].
const (
	// tailMinBytes: once this many bytes arrived since its last render, or
	// half the block's length if that is more.
	tailMinBytes = 512
	// tailMinAge: once its last render is this old, or ten times as old as
	// that render took if that is more.
	tailMinAge = 50 * time.Millisecond
)

// Stream accumulates one assistant message as it streams in and renders it.
// Write is cheap; Render renders each finished block once per width and
// redraws only the open tail. A Stream is not safe for concurrent use: it
// belongs to the UI model that owns the message.
type Stream struct {
	r   *Renderer
	src strings.Builder
	now func() time.Time

	split    splitter
	blocks   []span // finished blocks
	finished bool

	// The render cache, valid for width.
	width    int
	rendered []string        // rendered[i] is blocks[i] at width ("" if it shows nothing)
	body     strings.Builder // the non-empty rendered blocks, joined by blank lines
	tail     tailCache
	tailOut  string // the open tail as drawn for partsLen
	partsLen int    // len(src) when tailOut was drawn
	hasParts bool

	// Render's result lives in out, which only ever grows: out.String()
	// is the last result; its first outBody bytes are the body (as of
	// then) and the rest is outRest. A result that extends the last one is
	// appended instead of copied.
	out       strings.Builder
	outBody   int
	outRest   string
	outLen    int // len(src) when out was made
	hasOut    bool
	outCopies int // results that had to be copied, for tests and benchmarks
}

// tailCache holds the renders of the open block, which starts at start.
type tailCache struct {
	start int

	// key is the source of the open block (trailing blank lines trimmed)
	// at its last glamour render, exact; exact is reused once the block is
	// finished. plain draws newer text after it.
	key, exact string
	plain      plainAfter
	ok         bool
	at         time.Time     // when exact (or the last code lines) were rendered
	cost       time.Duration // how long that took

	// For an open fenced code block: the complete lines rendered so far
	// (the opening fence not counted), joined; how many rendered lines
	// that is; and where in the block the lines not rendered yet start.
	code    strings.Builder
	nCode   int
	codeEnd int

	// out joins the glamour part and the plain part.
	out  extender
	text strings.Builder // scratch for the plain part
}

// NewStream starts a message rendered by r.
func (r *Renderer) NewStream() *Stream {
	return &Stream{r: r, now: time.Now}
}

// Write appends streamed text. It does no rendering: it only notes which
// blocks the new text finished, at a cost proportional to the delta.
func (s *Stream) Write(delta string) {
	if delta == "" || s.finished {
		return
	}
	s.src.WriteString(delta)
	s.split.feed(s.src.String(), s.addBlock)
}

// Finish marks the message complete: the open tail becomes a finished
// block. Writes after Finish are ignored.
func (s *Stream) Finish() {
	if s.finished {
		return
	}
	s.split.flush(s.src.String(), s.addBlock)
	s.finished = true
	s.hasParts, s.hasOut = false, false
}

// Finished reports whether Finish was called.
func (s *Stream) Finished() bool { return s.finished }

// Source returns the raw markdown so far.
func (s *Stream) Source() string { return s.src.String() }

func (s *Stream) addBlock(b span) { s.blocks = append(s.blocks, b) }

// Render returns the message rendered at width (at least [MinWidth]), with
// no trailing newline: the finished blocks and the open tail, one blank line
// apart.
//
// Finished blocks are rendered once per width and cached. The open block at
// the end is drawn cheaply:
//
//   - it is rendered with glamour again only once enough new text arrived
//     (512 bytes, or half the block) or enough time passed (50ms, or ten
//     times what its last render took); text that arrived since is drawn
//     plain (as written, in the terminal's default colour, wrapped)
//     after that render;
//   - an open fenced code block is drawn line by line: complete lines are
//     highlighted in batches by the same rule, each line once, and the
//     lines after them are drawn plain. Multi-line strings and comments
//     may be coloured wrongly until the fence closes and the block is
//     rendered whole.
//
// After [Stream.Finish], Render gives exactly what [Renderer.Render] gives
// for the whole source. When nothing changed since the last call at the
// same width, the previous string is returned. A new width drops the cache
// and renders every block again, once.
//
// The result is built in a buffer that only grows, so when it extends the
// previous result (as it does for most frames) Render appends only the
// difference; otherwise it copies the rendered message, a cost that grows
// with the message but is small next to rendering. [Stream.Parts] never
// copies.
func (s *Stream) Render(width int) string {
	width = max(width, MinWidth)
	if s.hasOut && width == s.width && s.outLen == s.src.Len() {
		return s.out.String()
	}
	_, tail := s.Parts(width) // resets hasOut on a new width
	body := s.body.String()
	sep := ""
	if tail != "" && body != "" {
		sep = "\n\n"
	}
	if s.hasOut && s.outBody <= len(body) {
		// The last result was body[:outBody] + outRest; this one is
		// body[:outBody] + added + sep + tail.
		added := body[s.outBody:]
		if rest, ok := cutPrefixes(s.outRest, added, sep, tail); ok {
			s.out.WriteString(rest[0])
			s.out.WriteString(rest[1])
			s.out.WriteString(rest[2])
			s.outBody, s.outRest = len(body), sep+tail
			s.outLen = s.src.Len()
			return s.out.String()
		}
	}
	size := len(body) + len(sep) + len(tail)
	s.out = strings.Builder{}
	s.out.Grow(size + size/4 + 1024)
	s.out.WriteString(body)
	s.out.WriteString(sep)
	s.out.WriteString(tail)
	s.outBody, s.outRest = len(body), sep+tail
	s.outLen, s.hasOut = s.src.Len(), true
	s.outCopies++
	return s.out.String()
}

// Parts returns what [Stream.Render] joins: the rendered finished blocks,
// and the rendered open tail ("" if there is none). Blocks that render to
// nothing are "". While the width stays the same, later calls only append
// to blocks — earlier elements never change — so a UI can print finished
// blocks once (to the terminal's scrollback, say) and redraw only the tail.
// The slice is owned by the Stream: do not modify it.
//
// Parts costs time in proportion to what changed, never to the length of
// the message.
func (s *Stream) Parts(width int) (blocks []string, tail string) {
	width = max(width, MinWidth)
	if width != s.width {
		s.width = width
		s.rendered = nil // slices handed out before keep what they had
		s.body = strings.Builder{}
		s.tail = tailCache{}
		s.hasParts, s.hasOut = false, false
	}
	src := s.src.String()
	if s.hasParts && s.partsLen == len(src) && len(s.rendered) == len(s.blocks) {
		return s.rendered, s.tailOut
	}
	for len(s.rendered) < len(s.blocks) {
		b := s.blocks[len(s.rendered)]
		blk := src[b.start:b.end]
		var out string
		if s.tail.ok && b.start == s.tail.start && trimBlock(blk) == s.tail.key {
			out = s.tail.exact // rendered while it was the open tail
		} else {
			out = s.r.renderBlock(blk, width)
		}
		s.rendered = append(s.rendered, out)
		appendBlock(&s.body, out)
	}
	s.tailOut = ""
	if !s.finished {
		s.tailOut = s.renderTail(src, width)
	}
	s.partsLen, s.hasParts = len(src), true
	return s.rendered, s.tailOut
}

// due reports whether the open block, size bytes long with pending bytes
// that arrived after its last render, should be rendered again.
func (s *Stream) due(pending, size int) bool {
	if !s.tail.ok {
		return true
	}
	if pending >= max(tailMinBytes, size/2) {
		return true
	}
	return s.now().Sub(s.tail.at) >= max(tailMinAge, 10*s.tail.cost)
}

// timed runs render and notes when and for how long.
func (s *Stream) timed(render func()) {
	start := s.now()
	render()
	s.tail.at = s.now()
	s.tail.cost = s.tail.at.Sub(start)
	s.tail.ok = true
}

// renderTail draws the open block at the end of src.
func (s *Stream) renderTail(src string, width int) string {
	start := s.split.openStart()
	if start != s.tail.start {
		s.tail = tailCache{start: start}
	}
	tail := src[start:]
	if s.split.kind == kindFence && s.split.inFence {
		return s.renderOpenFence(tail, width)
	}
	if s.tail.codeEnd > 0 {
		// The fence closed: from now on the block is rendered whole.
		s.tail = tailCache{start: start}
	}

	key := trimBlock(tail)
	if key == "" {
		return ""
	}
	if _, n := fenceOpen(strings.TrimLeft(key, " ")); n > 0 && !strings.Contains(key, "\n") {
		return "" // a fence being opened: nothing to show yet
	}
	if s.tail.ok && key == s.tail.key {
		return s.tail.exact
	}
	if rest, ok := strings.CutPrefix(key, s.tail.key); ok && s.tail.ok && !s.due(len(rest), len(key)) {
		s.tail.text.Reset()
		s.tail.plain.draw(&s.tail.text, rest, width)
		return s.tail.out.join(s.tail.exact, s.tail.text.String())
	}
	s.timed(func() {
		s.tail.key, s.tail.exact = key, s.r.renderBlock(key, width)
		s.tail.plain = newPlainAfter(s.tail.exact)
	})
	return s.tail.exact
}

// renderOpenFence draws an open fenced code block: complete lines
// highlighted (each once, in batches), the lines after them plain.
func (s *Stream) renderOpenFence(tail string, width int) string {
	nl := strings.IndexByte(tail, '\n')
	if nl < 0 {
		return "" // only the opening fence so far
	}
	header := tail[:nl+1]
	if s.tail.codeEnd == 0 {
		s.tail.codeEnd = nl + 1
	}
	// Complete lines not highlighted yet.
	if pending := tail[s.tail.codeEnd : strings.LastIndexByte(tail, '\n')+1]; pending != "" && s.due(len(pending), len(tail)) {
		closing := strings.Repeat(string(s.split.fenceChar), s.split.fenceLen) + "\n"
		s.timed(func() {
			for _, l := range s.r.codeLines(header, pending, closing, width) {
				if s.tail.nCode > 0 {
					s.tail.code.WriteByte('\n')
				}
				s.tail.code.WriteString(l)
				s.tail.nCode++
			}
		})
		s.tail.codeEnd += len(pending)
	}

	// Blank lines at the ends are trimmed, as normalize does; the frame's
	// top rule comes first, as in the finished block.
	lang, _ := fenceLang(header)
	top, _ := s.r.codeFrame(lang, width)
	code := s.tail.code.String()
	plain := tail[s.tail.codeEnd:]
	if plain == "" {
		if body := strings.Trim(code, "\n"); body != "" {
			return top + "\n" + body
		}
		return ""
	}
	b := &s.tail.text
	b.Reset()
	n := s.tail.nCode
	for line := range strings.Lines(plain) {
		if n > 0 {
			b.WriteByte('\n')
		}
		n++
		b.WriteString(s.r.plainCodeLine(line, width))
	}
	if body := strings.Trim(s.tail.out.join(code, b.String()), "\n"); body != "" {
		return top + "\n" + body
	}
	return ""
}

// trimBlock drops the blank lines (and spaces) at the end of a block's
// source, which do not change its rendering.
func trimBlock(src string) string { return strings.TrimRight(src, " \t\r\n") }

// cutPrefixes reports whether prefix is a prefix of the concatenation of
// parts, and returns what follows it, part by part.
func cutPrefixes(prefix string, parts ...string) ([3]string, bool) {
	var rest [3]string
	for i, p := range parts {
		n := min(len(prefix), len(p))
		if p[:n] != prefix[:n] {
			return rest, false
		}
		prefix = prefix[n:]
		rest[i] = p[n:]
	}
	return rest, prefix == ""
}
