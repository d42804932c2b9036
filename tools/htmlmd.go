package tools

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToMarkdown converts an HTML page to markdown for a model to read:
// headings, paragraphs, links (made absolute against base), emphasis,
// code and code blocks, lists, quotes, tables and images by their text;
// scripts, styles and forms are left out. The page's title comes first
// when its text does not begin with a heading.
func HTMLToMarkdown(src string, base *url.URL) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return src
	}
	c := mdConv{base: base}
	root := doc
	if b := findElem(doc, atom.Body); b != nil {
		root = b
	}
	out := strings.TrimSpace(c.blocks(root))
	if t := findElem(doc, atom.Title); t != nil {
		if title := collapse(textOf(t)); title != "" && !strings.HasPrefix(out, "#") {
			out = "# " + strings.TrimSpace(title) + "\n\n" + out
		}
	}
	return out + "\n"
}

type mdConv struct {
	base *url.URL
}

// skipped are the elements whose content is never shown.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Canvas: true, atom.Iframe: true, atom.Object: true, atom.Head: true, atom.Button: true,
	atom.Select: true, atom.Input: true, atom.Textarea: true, atom.Math: true,
}

// blockElems are the elements that begin a block of their own.
var blockElems = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Ul: true,
	atom.Ol: true, atom.Li: true, atom.Pre: true, atom.Blockquote: true, atom.Table: true,
	atom.Hr: true, atom.Figure: true, atom.Figcaption: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Form: true, atom.Fieldset: true, atom.Details: true, atom.Summary: true,
	atom.Address: true, atom.Center: true, atom.Body: true, atom.Html: true,
}

func isBlock(n *html.Node) bool {
	return n.Type == html.ElementNode && blockElems[n.DataAtom]
}

// blocks renders the children of n as blocks separated by blank lines.
func (c mdConv) blocks(n *html.Node) string {
	var b strings.Builder
	var inline strings.Builder
	add := func(s string, tight bool) {
		if b.Len() > 0 {
			if tight {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(s)
	}
	flush := func() {
		if s := strings.TrimSpace(tidyInline(inline.String())); s != "" {
			add(s, false)
		}
		inline.Reset()
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && skipped[ch.DataAtom] {
			continue
		}
		if !isBlock(ch) {
			inline.WriteString(c.inline(ch))
			continue
		}
		flush()
		if s := strings.TrimRight(c.block(ch), " \n"); strings.TrimSpace(s) != "" {
			// A list inside a list item stays in the item's tight list.
			add(s, n.DataAtom == atom.Li && (ch.DataAtom == atom.Ul || ch.DataAtom == atom.Ol))
		}
	}
	flush()
	return b.String()
}

// block renders one block element.
func (c mdConv) block(n *html.Node) string {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		t := strings.TrimSpace(tidyInline(c.inlineChildren(n)))
		if t == "" {
			return ""
		}
		return strings.Repeat("#", level) + " " + strings.ReplaceAll(t, "\n", " ")
	case atom.Pre:
		lang := ""
		code := n
		if f := n.FirstChild; f != nil && f.DataAtom == atom.Code && f.NextSibling == nil {
			code = f
		}
		for _, cl := range strings.Fields(attr(code, "class")) {
			if l, ok := strings.CutPrefix(cl, "language-"); ok {
				lang = l
			}
		}
		text := strings.Trim(textOf(code), "\n")
		fence := "```"
		for strings.Contains(text, fence) {
			fence += "`"
		}
		return fence + lang + "\n" + text + "\n" + fence
	case atom.Ul, atom.Ol:
		return c.list(n)
	case atom.Blockquote:
		return prefixLines(c.blocks(n), "> ", "> ")
	case atom.Hr:
		return "---"
	case atom.Table:
		return c.table(n)
	case atom.Li:
		return prefixLines(c.blocks(n), "- ", "  ")
	case atom.Dt:
		return "**" + strings.TrimSpace(tidyInline(c.inlineChildren(n))) + "**"
	case atom.Dd:
		return prefixLines(c.blocks(n), ": ", "  ")
	}
	return c.blocks(n)
}

func (c mdConv) list(n *html.Node) string {
	var items []string
	i := 1
	if s, err := strconv.Atoi(attr(n, "start")); err == nil && s >= 0 && s < 1e6 {
		i = s
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type != html.ElementNode {
			continue
		}
		if ch.DataAtom == atom.Ul || ch.DataAtom == atom.Ol {
			items = append(items, prefixLines(c.list(ch), "  ", "  "))
			continue
		}
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(i) + ". "
			i++
		}
		body := c.blocks(ch)
		if ch.DataAtom != atom.Li {
			body = c.block(ch)
		}
		items = append(items, prefixLines(strings.TrimSpace(body), marker, strings.Repeat(" ", len(marker))))
	}
	return strings.Join(items, "\n")
}

func (c mdConv) table(n *html.Node) string {
	var rows [][]string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			switch ch.DataAtom {
			case atom.Tr:
				var row []string
				for cell := ch.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.DataAtom == atom.Td || cell.DataAtom == atom.Th {
						t := strings.TrimSpace(tidyInline(c.inlineChildren(cell)))
						t = strings.ReplaceAll(strings.ReplaceAll(t, "\n", " "), "|", `\|`)
						row = append(row, t)
					}
				}
				rows = append(rows, row)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(ch)
			}
		}
	}
	walk(n)
	if len(rows) == 0 {
		return ""
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	var b strings.Builder
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// inline renders n as inline text (whitespace not yet collapsed).
func (c mdConv) inline(n *html.Node) string {
	switch n.Type {
	case html.TextNode:
		return collapse(n.Data) // its newlines are white space; only <br> breaks a line
	case html.ElementNode:
	default:
		return ""
	}
	if skipped[n.DataAtom] {
		return ""
	}
	switch n.DataAtom {
	case atom.Br:
		return "\n"
	case atom.A:
		text := strings.TrimSpace(collapse(c.inlineChildren(n)))
		href := c.link(attr(n, "href"))
		if text == "" || href == "" {
			return text
		}
		return "[" + text + "](" + href + ")"
	case atom.Img:
		alt := strings.TrimSpace(collapse(attr(n, "alt")))
		src := c.link(attr(n, "src"))
		if alt == "" || src == "" || strings.HasPrefix(src, "data:") {
			return alt
		}
		return "![" + alt + "](" + src + ")"
	case atom.Strong, atom.B:
		return wrapInline(c.inlineChildren(n), "**")
	case atom.Em, atom.I:
		return wrapInline(c.inlineChildren(n), "*")
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		t := collapse(textOf(n))
		if strings.TrimSpace(t) == "" {
			return t
		}
		tick := "`"
		for strings.Contains(t, tick) {
			tick += "`"
		}
		return tick + t + tick
	}
	if isBlock(n) {
		return " " + c.inlineChildren(n) + " "
	}
	return c.inlineChildren(n)
}

func (c mdConv) inlineChildren(n *html.Node) string {
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		b.WriteString(c.inline(ch))
	}
	return b.String()
}

// link makes href absolute; "" for a link a reader cannot follow.
func (c mdConv) link(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(strings.ToLower(href), "javascript:") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(u.String())
}

func wrapInline(s, mark string) string {
	t := strings.TrimSpace(collapse(s))
	if t == "" {
		return s
	}
	lead, trail := "", ""
	if strings.TrimLeft(s, " \t\n") != s {
		lead = " "
	}
	if strings.TrimRight(s, " \t\n") != s {
		trail = " "
	}
	return lead + mark + t + mark + trail
}

// collapse turns each run of white space into one space.
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// tidyInline collapses white space in inline text, keeping the line
// breaks <br> made.
func tidyInline(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		out = append(out, strings.TrimSpace(collapse(l)))
	}
	return strings.Join(out, "\n")
}

func prefixLines(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		if l == "" && i > 0 {
			lines[i] = strings.TrimRight(p, " ")
			continue
		}
		lines[i] = p + l
	}
	return strings.Join(lines, "\n")
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteByte('\n')
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return b.String()
}

func findElem(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if f := findElem(ch, a); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
