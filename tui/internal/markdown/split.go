package markdown

import "strings"

// A span is a half-open byte range [start, end) of the source.
type span struct{ start, end int }

// blockKind is what the block being scanned is, as far as the splitter
// cares.
type blockKind uint8

const (
	kindNone       blockKind = iota // no block open
	kindText                        // paragraph, block quote, table, HTML, thematic break…
	kindList                        // a list: continues after blank lines while lines are indented or items
	kindIndentCode                  // an indented (4-space) code block
	kindFence                       // a top-level fenced code block
	kindClosed                      // a heading or a closed top-level fence: the next line starts a new block
)

// splitter cuts markdown source into top-level blocks, incrementally: feed
// it the growing source and it reports each block as soon as the next block
// has started. Only complete lines are looked at; the last, partial line
// stays in the open block.
//
// The rules are those of CommonMark where they decide where a top-level
// block ends, simplified where merging two blocks into one is harmless (a
// block is rendered as a small document of its own, so rendering two blocks
// together always looks right; cutting one in two is what must not happen):
//
//   - a fenced code block (``` or ~~~, at most 3 spaces in) runs to its
//     closing fence, blank lines included, or to the end of the source;
//   - a blank line followed by a non-blank line ends the block, except that
//     a list goes on while the next line is indented or is another item, and
//     an indented code block goes on while the next line is indented 4+;
//   - an ATX heading (# …) or a fence opening ends the block before it
//     without a blank line (except inside a list, when indented); a heading
//     or a closed fence is always complete on its own.
//
// Link reference definitions ([x]: url) only apply within their own block.
type splitter struct {
	pos        int // offset of the first line not yet scanned
	blockStart int // offset of the open block's first line
	contentEnd int // end of the open block's last non-blank line (after its newline)
	kind       blockKind
	sawBlank   bool // a blank line followed the open block's last line

	inFence   bool
	fenceChar byte
	fenceLen  int
}

// feed scans the complete lines of src not scanned yet and calls emit for
// every block that finished. src must extend the src of previous calls.
func (sp *splitter) feed(src string, emit func(span)) {
	for {
		nl := strings.IndexByte(src[sp.pos:], '\n')
		if nl < 0 {
			return
		}
		end := sp.pos + nl + 1
		sp.line(src[sp.pos:end], sp.pos, end, emit)
		sp.pos = end
	}
}

// flush scans the final line even though it has no newline, then emits the
// open block, if any. The splitter is then reset at the end of src.
func (sp *splitter) flush(src string, emit func(span)) {
	sp.feed(src, emit)
	if sp.pos < len(src) {
		sp.line(src[sp.pos:], sp.pos, len(src), emit)
		sp.pos = len(src)
	}
	if sp.kind != kindNone {
		emit(span{sp.blockStart, sp.contentEnd})
	}
	*sp = splitter{pos: len(src), blockStart: len(src), contentEnd: len(src)}
}

// openStart returns the offset where the open (unfinished) block begins.
// Everything from there on is the open tail.
func (sp *splitter) openStart() int {
	if sp.kind == kindNone {
		return sp.pos
	}
	return sp.blockStart
}

// line classifies one line, src[start:end] (end is after its newline, if
// it has one).
func (sp *splitter) line(line string, start, end int, emit func(span)) {
	line = strings.TrimRight(line, "\r\n")
	if sp.inFence {
		sp.fenceLine(line, end)
		return
	}
	if isBlank(line) {
		if sp.kind != kindNone {
			sp.sawBlank = true
		}
		return
	}

	l := classify(line, sp.kind == kindList)
	starts := sp.startsBlock(l)
	if starts {
		if sp.kind != kindNone {
			emit(span{sp.blockStart, sp.contentEnd})
		}
		sp.blockStart = start
		sp.kind = l.kind()
	}
	if l.fence && (starts || sp.kind == kindList) {
		sp.inFence, sp.fenceChar, sp.fenceLen = true, l.fenceChar, l.fenceLen
	}
	sp.sawBlank = false
	sp.contentEnd = end
}

// fenceLine takes a line inside a fenced code block, which may close it.
func (sp *splitter) fenceLine(line string, end int) {
	if isFenceClose(line, sp.fenceChar, sp.fenceLen) {
		sp.inFence = false
		if sp.kind == kindFence {
			sp.kind = kindClosed
		}
	}
	sp.contentEnd = end
}

// lineShape is what the splitter sees in a non-blank line outside a fence.
type lineShape struct {
	indent    int    // columns of leading white space
	rest      string // the line without it
	heading   bool   // an ATX heading
	fence     bool   // opens a fence where it stands
	fenceChar byte
	fenceLen  int
}

// classify looks at a non-blank line; inList says a list is open.
func classify(line string, inList bool) lineShape {
	l := lineShape{indent: indentWidth(line), rest: strings.TrimLeft(line, " \t")}
	l.heading = l.indent < 4 && isATXHeading(l.rest)
	l.fenceChar, l.fenceLen = fenceOpen(l.rest)
	// A fence opens at most 3 spaces in, or at any depth inside a list item.
	l.fence = l.fenceLen > 0 && (l.indent < 4 || inList)
	return l
}

// startsBlock reports whether the line l ends the open block and starts a
// new one.
func (sp *splitter) startsBlock(l lineShape) bool {
	switch {
	case sp.kind == kindNone, sp.kind == kindClosed:
		return true
	case sp.sawBlank:
		switch sp.kind {
		case kindList:
			return l.indent == 0 && !isListItem(l.rest)
		case kindIndentCode:
			return l.indent < 4
		}
		return true
	case sp.kind == kindList:
		return l.indent == 0 && (l.heading || l.fence)
	case sp.kind == kindIndentCode:
		return l.indent < 4
	}
	return l.heading || l.fence && l.indent < 4
}

// kind is the kind of the block that the line l starts.
func (l lineShape) kind() blockKind {
	switch {
	case l.heading:
		return kindClosed
	case l.fence && l.indent < 4:
		return kindFence
	case isListItem(l.rest) && l.indent < 4:
		return kindList
	case l.indent >= 4:
		return kindIndentCode
	}
	return kindText
}

// splitBlocks splits a whole document into its top-level blocks.
func splitBlocks(src string) []string {
	var sp splitter
	var out []string
	sp.flush(src, func(s span) { out = append(out, src[s.start:s.end]) })
	return out
}

// isBlank reports whether a line (with or without its line ending) is
// blank.
func isBlank(line string) bool { return strings.Trim(line, " \t\r\n") == "" }

// indentWidth counts leading spaces, a tab counting as 4.
func indentWidth(line string) int {
	n := 0
	for _, c := range []byte(line) {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

// isATXHeading reports whether s (without indentation) is "#" to "######"
// followed by a space or the end of the line.
func isATXHeading(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ' || s[n] == '\t')
}

// fenceOpen returns the fence character and length if s (without
// indentation) opens a fenced code block, or 0, 0.
func fenceOpen(s string) (byte, int) {
	if len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return 0, 0
	}
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return 0, 0
	}
	return c, n
}

// isFenceClose reports whether line closes a fence of n c's: at least n of
// them, then only spaces. Any indentation is accepted, because fences nested
// in list items are indented by the item's content offset.
func isFenceClose(line string, c byte, n int) bool {
	s := strings.TrimLeft(line, " \t")
	m := 0
	for m < len(s) && s[m] == c {
		m++
	}
	return m >= n && isBlank(s[m:])
}

// isListItem reports whether s (without indentation) starts a list item:
// "-", "*" or "+" then a space, or 1–9 digits then "." or ")" and a space (or
// the end of the line in both cases).
func isListItem(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' || s[0] == '*' || s[0] == '+' {
		return len(s) == 1 || s[1] == ' ' || s[1] == '\t'
	}
	n := 0
	for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 || n > 9 || n == len(s) || s[n] != '.' && s[n] != ')' {
		return false
	}
	return n+1 == len(s) || s[n+1] == ' ' || s[n+1] == '\t'
}
