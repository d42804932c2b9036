// Package markdown renders assistant messages as terminal markdown with
// glamour while they stream in, at a cost that does not grow with the length
// of the message.
//
// A [Stream] splits its source into top-level markdown blocks (paragraphs,
// fenced code blocks, lists, headings, tables, quotes…). A block is finished
// once the next one has started; it is then rendered once per width and
// cached. Only the open block at the end — the tail — is rendered again
// when the text changes, so each frame costs about the same whether the
// message is one paragraph or two hundred kilobytes long.
//
// Rendered blocks are tidied ([normalize]) and joined by one blank line,
// which gives the same text as rendering the whole document at once: see
// TestBlockwiseMatchesWholeDocument for the comparison and its documented
// differences.
package markdown

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
)

// maxWidths bounds the number of cached glamour renderers.
const maxWidths = 8

// MinWidth is the narrowest width rendered; smaller widths are raised to it.
const MinWidth = 10

// Renderer renders markdown in one glamour style. It keeps one glamour
// renderer per width, made on first use. A Renderer is safe for concurrent
// use; the renders themselves are serialised per width.
type Renderer struct {
	style ansi.StyleConfig

	mu    sync.Mutex
	terms map[int]*term
}

// term is a glamour renderer for one width. glamour's renderers keep state
// while rendering, so each has its own lock.
type term struct {
	mu sync.Mutex
	tr *glamour.TermRenderer
}

// NewRenderer returns a renderer for the given glamour style, such as
// themes.Theme.Glamour().
func NewRenderer(style ansi.StyleConfig) *Renderer {
	return &Renderer{style: style, terms: map[int]*term{}}
}

// Render renders a whole markdown document at the given width, block by
// block exactly as a [Stream] does, with no caching. The result has no
// trailing newline.
func (r *Renderer) Render(src string, width int) string {
	var b strings.Builder
	for _, blk := range splitBlocks(src) {
		out := r.renderBlock(blk, width)
		if out == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(out)
	}
	return b.String()
}

// renderBlock renders one block (or any markdown) and normalises the
// result. If glamour fails, the source is shown as it is.
func (r *Renderer) renderBlock(src string, width int) string {
	out, err := r.glamour(expandTabs(src), width)
	if err != nil {
		return strings.TrimRight(src, "\n")
	}
	return normalize(out)
}

// glamour renders src with the glamour renderer for width, unnormalised.
func (r *Renderer) glamour(src string, width int) (string, error) {
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
		glamour.WithStyles(r.style),
		glamour.WithWordWrap(width),
		// The style's colours go out as they are (24-bit for hex colours);
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
