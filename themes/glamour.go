package themes

import (
	"fmt"
	"hash/fnv"
	"sync"

	"charm.land/glamour/v2/ansi"
	"github.com/alecthomas/chroma/v2"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// Glamour derives the glamour (markdown) style from the same palette as
// [Theme.Styles]: headings in the accent colours, links, lists, block
// quotes, tables, inline code on the code background, and fenced code blocks
// highlighted by chroma with the palette's code colours.
//
// The style has no document margin and no blank line before or after the
// document: the UI places the rendered text itself. Fenced code blocks are
// indented by two columns.
//
// Glamour looks chroma styles up by name in chroma's global registry, which
// is not safe for concurrent use, so the theme's chroma style is registered
// there once per distinct palette: for built-in themes when the package is
// initialised, for user themes by [Load], and otherwise by the first call to
// Glamour — which must then not run while another goroutine renders code.
func (t Theme) Glamour() ansi.StyleConfig {
	p := t.Palette
	plain := t.IsNoColor()
	c := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	yes := ptr(true)
	glyph := func(fancy, ascii string) string {
		if plain {
			return ascii
		}
		return fancy
	}

	h1 := ansi.StylePrimitive{Prefix: "# ", Bold: yes}
	if !plain {
		// A badge: background-coloured text on the accent colour.
		h1 = ansi.StylePrimitive{Prefix: " ", Suffix: " ", Color: c(p.Background), BackgroundColor: c(p.Accent), Bold: yes}
	}

	s := ansi.StyleConfig{
		Document: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{Color: c(p.Foreground)},
			Margin:         ptr[uint](0),
		},
		BlockQuote: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{Color: c(p.Muted), Italic: yes},
			Indent:         ptr[uint](1),
			IndentToken:    ptr(glyph("│ ", "| ")),
		},
		Paragraph: ansi.StyleBlock{},
		List:      ansi.StyleList{LevelIndent: 2},
		Heading: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{BlockSuffix: "\n", Color: c(p.Accent), Bold: yes},
		},
		H1: ansi.StyleBlock{StylePrimitive: h1},
		H2: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "## "}},
		H3: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "### ", Color: c(p.Accent2)}},
		H4: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "#### ", Color: c(p.Accent2)}},
		H5: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "##### ", Color: c(p.Muted)}},
		H6: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "###### ", Color: c(p.Muted), Bold: ptr(false)}},

		Strikethrough:  ansi.StylePrimitive{CrossedOut: yes},
		Emph:           ansi.StylePrimitive{Italic: yes},
		Strong:         ansi.StylePrimitive{Bold: yes},
		HorizontalRule: ansi.StylePrimitive{Color: c(p.Subtle), Format: "\n" + glyph("────────", "--------") + "\n"},

		Item:        ansi.StylePrimitive{BlockPrefix: glyph("• ", "* ")},
		Enumeration: ansi.StylePrimitive{BlockPrefix: ". "},
		Task:        ansi.StyleTask{Ticked: glyph("[✓] ", "[x] "), Unticked: "[ ] "},

		Link:      ansi.StylePrimitive{Color: c(p.Info), Underline: yes},
		LinkText:  ansi.StylePrimitive{Color: c(p.Accent), Bold: yes},
		Image:     ansi.StylePrimitive{Color: c(p.Info), Underline: yes},
		ImageText: ansi.StylePrimitive{Color: c(p.Muted), Format: "Image: {{.text}} " + glyph("→", "->")},

		// Inline code is set apart by its colours alone: padding would be
		// copied with the text when the user selects it.
		Code: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{
			Color: c(p.Accent2), BackgroundColor: c(p.CodeBackground),
		}},
		CodeBlock: ansi.StyleCodeBlock{StyleBlock: ansi.StyleBlock{Margin: ptr[uint](2)}},

		Table: ansi.StyleTable{
			CenterSeparator: ptr(glyph("┼", "|")),
			ColumnSeparator: ptr(glyph("│", "|")),
			RowSeparator:    ptr(glyph("─", "-")),
		},
		DefinitionTerm:        ansi.StylePrimitive{Bold: yes},
		DefinitionDescription: ansi.StylePrimitive{BlockPrefix: "\n" + glyph("→ ", "-> ")},
	}
	if plain {
		// Without colours, inline code keeps its backticks.
		s.Code = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "`", Suffix: "`"}}
	} else {
		s.CodeBlock.Theme = registerChroma(p)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

var chromaMu sync.Mutex

// registerChroma registers a chroma style built from the palette's code
// colours under a name derived from those colours, and returns the name.
func registerChroma(p Palette) string {
	entries := chroma.StyleEntries{
		chroma.Text:                p.Foreground,
		chroma.Error:               p.Error,
		chroma.Comment:             p.CodeComment + " italic",
		chroma.CommentPreproc:      p.CodeKeyword,
		chroma.Keyword:             p.CodeKeyword,
		chroma.KeywordType:         p.CodeType,
		chroma.Operator:            p.Foreground,
		chroma.Punctuation:         p.Muted,
		chroma.Name:                p.Foreground,
		chroma.NameBuiltin:         p.CodeFunction,
		chroma.NameTag:             p.CodeKeyword,
		chroma.NameAttribute:       p.CodeType,
		chroma.NameClass:           p.CodeType + " bold",
		chroma.NameConstant:        p.CodeNumber,
		chroma.NameDecorator:       p.CodeFunction,
		chroma.NameException:       p.Error,
		chroma.NameFunction:        p.CodeFunction,
		chroma.Literal:             p.CodeString,
		chroma.LiteralNumber:       p.CodeNumber,
		chroma.LiteralString:       p.CodeString,
		chroma.LiteralStringEscape: p.CodeNumber,
		chroma.GenericDeleted:      p.DiffRemove,
		chroma.GenericInserted:     p.DiffAdd,
		chroma.GenericEmph:         "italic",
		chroma.GenericStrong:       "bold",
		chroma.GenericHeading:      p.Accent + " bold",
		chroma.GenericSubheading:   p.Accent2,
		chroma.Background:          "bg:" + p.CodeBackground,
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v", p)
	name := fmt.Sprintf("tackle-%x", h.Sum64())

	chromaMu.Lock()
	defer chromaMu.Unlock()
	if _, ok := chromastyles.Registry[name]; !ok {
		chromastyles.Register(chroma.MustNewStyle(name, entries))
	}
	return name
}
