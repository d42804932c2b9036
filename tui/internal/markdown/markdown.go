// Package markdown renders assistant messages as terminal markdown with
// glamour while they stream in, at a cost that does not grow with the length
// of the message.
//
// A [Stream] splits its source into top-level markdown blocks (paragraphs,
// fenced code blocks, lists, headings, tables, quotes…). A block is finished
// once the next one has started; it is then rendered once per width and
// cached. Only the open block at the end — the tail — is drawn again as
// text arrives, and cheaply (see [Stream.Render]), so a frame costs about
// the same whether the message is one paragraph or two hundred kilobytes.
//
// Rendered blocks are tidied (invisible trailing spaces and the blank lines
// around each block dropped) and joined by one blank line. That gives the
// same text as rendering the whole document at once, except that glamour
// puts two blank lines after a list that ends in a nested list, where this
// package puts one (TestBlockwiseMatchesWholeDocument checks this).
package markdown

import (
	"image/color"
	"strings"
	"sync"
	"sync/atomic"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"
)

// MinWidth is the narrowest width rendered; smaller widths are raised to it.
const MinWidth = 10

// maxWidths bounds the number of cached glamour renderers.
const maxWidths = 8

// Renderer renders markdown in one glamour style. It keeps one glamour
// renderer per width, made on first use. A Renderer is safe for concurrent
// use (renders at one width take turns); a [Stream] is not.
type Renderer struct {
	style      ansi.StyleConfig // as given
	glamStyle  ansi.StyleConfig // as glamour gets it: without the document colour
	fg         color.Color      // the document colour, applied by normalize
	codeIndent string           // how far code blocks are indented, for plain code lines
	docIndent  int              // the document margin and indent, in columns

	mu    sync.Mutex
	terms map[int]*term

	calls atomic.Int64 // glamour renders, for tests
}

// term is a glamour renderer for one width. glamour's renderers keep state
// while rendering, so each has its own lock.
type term struct {
	mu sync.Mutex
	tr *glamour.TermRenderer
}

// NewRenderer returns a renderer for the given glamour style, such as
// themes.Theme.Glamour().
//
// The style's document colour (the default text colour) is not given to
// glamour, which would wrap each of the spaces it pads every line with in
// that colour — ten times the work for a short line — but applied to
// uncoloured text afterwards, which shows the same.
func NewRenderer(style ansi.StyleConfig) *Renderer {
	indent := uint(0)
	for _, n := range []*uint{style.Document.Margin, style.Document.Indent, style.CodeBlock.Margin, style.CodeBlock.Indent} {
		if n != nil {
			indent += *n
		}
	}
	doc := 0
	for _, n := range []*uint{style.Document.Margin, style.Document.Indent} {
		if n != nil {
			doc += int(*n)
		}
	}
	r := &Renderer{
		docIndent:  doc,
		style:      style,
		glamStyle:  style,
		codeIndent: strings.Repeat(" ", int(indent)),
		terms:      map[int]*term{},
	}
	if c := style.Document.Color; c != nil {
		r.fg = lipgloss.Color(*c)
		r.glamStyle.Document.Color = nil
	}
	return r
}

// Render renders a whole markdown document at width (at least [MinWidth])
// block by block, exactly as a finished [Stream] does, with no caching. The
// result has no trailing newline.
func (r *Renderer) Render(src string, width int) string {
	var b strings.Builder
	for _, blk := range splitBlocks(src) {
		appendBlock(&b, r.renderBlock(blk, width))
	}
	return b.String()
}

// renderBlock renders one block (or any markdown) and tidies the result; a
// fenced code block gets its frame (codeFrame). If glamour fails, the
// source is shown as it is.
func (r *Renderer) renderBlock(src string, width int) string {
	out := r.renderBody(src, width)
	if lang, ok := fenceLang(src); ok && out != "" {
		top, bottom := r.codeFrame(lang, width)
		out = top + "\n" + out + "\n" + bottom
	}
	return out
}

// renderBody is renderBlock without the frame of a code block.
func (r *Renderer) renderBody(src string, width int) string {
	table := isTable(src)
	if table {
		// glamour stretches a table to the width it is given: give it the
		// table's own width when that is less.
		width = min(width, max(r.docIndent+naturalTableWidth(src), MinWidth))
	}
	out, err := r.glamour(expandTabs(src), width)
	if err != nil {
		return strings.TrimRight(src, "\r\n")
	}
	out = normalize(out, r.fg)
	if table {
		out = fitTable(out)
	}
	return out
}

// naturalTableWidth is how wide a table's source rows are laid out with
// one space around each cell and a separator between cells: the width
// the table needs at most.
func naturalTableWidth(src string) int {
	var cols []int
	for i, line := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		if i == 1 {
			continue // the delimiter row
		}
		line = strings.TrimSpace(line)
		line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
		for j, cell := range strings.Split(line, "|") {
			if j >= len(cols) {
				cols = append(cols, 0)
			}
			cols[j] = max(cols[j], xansi.StringWidth(strings.TrimSpace(cell)))
		}
	}
	w := len(cols) - 1 // the separators
	for _, c := range cols {
		w += c + 2
	}
	return w
}

// fenceLang reports whether a block's source is a fenced code block, and
// its language (the info string's first word, "" when none).
func fenceLang(src string) (string, bool) {
	first, _, _ := strings.Cut(strings.TrimLeft(src, " "), "\n")
	if _, n := fenceOpen(first); n == 0 {
		return "", false
	}
	info := strings.TrimSpace(strings.TrimLeft(first, "`~"))
	lang, _, _ := strings.Cut(info, " ")
	return lang, true
}

// codeFrame is the rule above a fenced code block, with its language, and
// the rule below it, in the colour of inline code; the rule characters
// are the theme's table rules (ASCII in the no-color theme).
func (r *Renderer) codeFrame(lang string, width int) (top, bottom string) {
	rule, corner, end := "─", "╭", "╰"
	if sep := r.style.Table.RowSeparator; sep != nil && *sep != "─" {
		rule, corner, end = *sep, "+", "+"
	}
	indent := strings.Repeat(" ", r.docIndent)
	n := max(width-r.docIndent, 4)
	label := corner + rule
	if lang != "" {
		label += " " + lang + " "
	}
	top = label + strings.Repeat(rule, max(n-xansi.StringWidth(label), 1))
	bottom = end + strings.Repeat(rule, n-1)
	if c := r.style.Code.Color; c != nil {
		st := lipgloss.NewStyle().Foreground(lipgloss.Color(*c))
		top, bottom = st.Render(top), st.Render(bottom)
	}
	return indent + top, indent + bottom
}

// isTable reports whether a block's source is a table: a row, then a
// delimiter row (|---|:--:|).
func isTable(src string) bool {
	first, rest, ok := strings.Cut(strings.TrimLeft(src, " "), "\n")
	if !ok || !strings.Contains(first, "|") {
		return false
	}
	delim, _, _ := strings.Cut(rest, "\n")
	delim = strings.TrimSpace(delim)
	return strings.Contains(delim, "-") && strings.Trim(delim, "|-: ") == ""
}

// fitTable cuts the padding glamour stretches a table's last column with
// to the full width: every line ends where the widest row's text does,
// the rules too, so a narrow table stays narrow.
func fitTable(out string) string {
	lines := strings.Split(out, "\n")
	w := 0
	for _, l := range lines {
		plain := xansi.Strip(l)
		if strings.Trim(plain, "─┼├┤┬┴-|+ ") == "" {
			continue // a rule: it follows the rows
		}
		w = max(w, xansi.StringWidth(strings.TrimRight(plain, " ")))
	}
	if w == 0 {
		return out
	}
	for i, l := range lines {
		if xansi.StringWidth(l) > w {
			lines[i] = xansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// glamour renders src with the glamour renderer for width, as it comes.
func (r *Renderer) glamour(src string, width int) (string, error) {
	r.calls.Add(1)
	t, err := r.term(max(width, MinWidth))
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tr.Render(src)
}

func (r *Renderer) term(width int) (*term, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.terms[width]; ok {
		return t, nil
	}
	if len(r.terms) >= maxWidths {
		// A drag-resize goes through many widths; keep the map small.
		clear(r.terms)
	}
	tr, err := glamour.NewTermRenderer(
		glamour.WithStyles(r.glamStyle),
		glamour.WithWordWrap(width),
		// Colours go out as the style has them (24-bit for hex colours);
		// the terminal program downsamples to what the terminal supports.
		glamour.WithChromaFormatter("terminal16m"),
	)
	if err != nil {
		return nil, err
	}
	t := &term{tr: tr}
	r.terms[width] = t
	return t, nil
}

// appendBlock adds a rendered block to a document, one blank line after the
// previous block; empty blocks are left out.
func appendBlock(doc *strings.Builder, out string) {
	if out == "" {
		return
	}
	if doc.Len() > 0 {
		doc.WriteString("\n\n")
	}
	doc.WriteString(out)
}

// expandTabs replaces tabs with spaces up to the next multiple of 4 columns,
// the tab stop CommonMark uses. Terminals put tab stops every 8 columns and
// width calculations count a tab as one cell, so tabs (common in Go code)
// would break the layout.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
		case '\n':
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}
