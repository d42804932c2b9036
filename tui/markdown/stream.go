package markdown

import "strings"

// Stream accumulates one assistant message as it streams in and renders it.
// Write is cheap; Render renders each finished block once per width and
// re-renders only the open tail. A Stream is not safe for concurrent use:
// it belongs to the UI model that owns the message.
type Stream struct {
	r   *Renderer
	src strings.Builder

	split    splitter
	blocks   []span // finished blocks
	finished bool

	// The render cache, valid for width.
	width    int
	rendered []string        // rendered[i] is blocks[i] at width ("" if it shows nothing)
	body     strings.Builder // the non-empty rendered blocks joined by blank lines
	tailSrc  string          // the tail source rendered into tailOut
	tailOut  string
	last     string // the last result of Render
	lastLen  int    // len(src) when last was made
	hasLast  bool
}

// NewStream starts a message rendered by r.
func (r *Renderer) NewStream() *Stream {
	return &Stream{r: r}
}

// Write appends streamed text. It does no rendering: it only notes which
// blocks the new text finished.
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
	s.hasLast = false
}

// Finished reports whether Finish was called.
func (s *Stream) Finished() bool { return s.finished }

// Source returns the raw markdown so far.
func (s *Stream) Source() string { return s.src.String() }

func (s *Stream) addBlock(b span) { s.blocks = append(s.blocks, b) }

// Render returns the message rendered at width (at least [MinWidth]), with
// no trailing newline. Blocks that finished since the last call are rendered
// once and cached; the open tail is rendered afresh when it changed. When
// nothing changed since the last call at the same width, the previous
// string is returned. A new width re-renders every block once, and the
// cache then holds that width.
func (s *Stream) Render(width int) string {
	width = max(width, MinWidth)
	if s.hasLast && width == s.width && s.lastLen == s.src.Len() {
		return s.last
	}
	if width != s.width {
		s.width = width
		s.rendered = s.rendered[:0]
		s.body.Reset()
		s.tailSrc, s.tailOut = "", ""
	}
	src := s.src.String()
	for len(s.rendered) < len(s.blocks) {
		b := s.blocks[len(s.rendered)]
		out := s.r.renderBlock(src[b.start:b.end], width)
		s.rendered = append(s.rendered, out)
		appendBlock(&s.body, out)
	}

	tail := ""
	if !s.finished {
		tail = src[s.split.openStart():]
	}
	if tail != s.tailSrc || tail == "" {
		s.tailSrc = tail
		s.tailOut = ""
		if strings.TrimSpace(tail) != "" {
			s.tailOut = s.r.renderBlock(tail, width)
		}
	}

	switch {
	case s.tailOut == "":
		s.last = s.body.String()
	case s.body.Len() == 0:
		s.last = s.tailOut
	default:
		var b strings.Builder
		b.Grow(s.body.Len() + 2 + len(s.tailOut))
		b.WriteString(s.body.String())
		b.WriteString("\n\n")
		b.WriteString(s.tailOut)
		s.last = b.String()
	}
	s.lastLen = len(src)
	s.hasLast = true
	return s.last
}

// appendBlock adds a rendered block to a document, one blank line after the
// previous block.
func appendBlock(doc *strings.Builder, out string) {
	if out == "" {
		return
	}
	if doc.Len() > 0 {
		doc.WriteString("\n\n")
	}
	doc.WriteString(out)
}
