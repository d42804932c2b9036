package markdown

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// answerDoc generates a deterministic markdown answer of at least size
// bytes that looks like what a coding model writes: sections with headings,
// paragraphs with inline code, emphasis and links, tight and loose lists
// (some nested), Go code blocks of 20–60 lines (with blank lines inside),
// tables, block quotes and the odd rule.
func answerDoc(size int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	words := strings.Fields(`the worker streams each reply and runs the hooks before any tool call
		so that a pause reaches the interface in order while deltas may be coalesced
		into frames a test drives the scripted server with real processes and golden files
		configuration comes from flags then environment then project and user files
		errors are wrapped with context and sentinel values let callers branch cleanly
		rendering happens once per block and the open tail is redrawn on every frame`)
	idents := []string{"Worker", "Run", "Resume", "hooks.Registry", "ctx", "tools.Bash", "Stream.Render", "NO_COLOR", "go test ./...", "json.Decoder"}
	sentence := func() string {
		n := 8 + rng.IntN(14)
		var s []string
		for i := range n {
			w := words[rng.IntN(len(words))]
			switch rng.IntN(14) {
			case 0:
				w = "`" + idents[rng.IntN(len(idents))] + "`"
			case 1:
				w = "**" + w + "**"
			case 2:
				w = "*" + w + "*"
			case 3:
				if i > 0 {
					w = "[" + w + "](https://example.com/" + w + ")"
				}
			}
			s = append(s, w)
		}
		s[0] = strings.ToUpper(s[0][:1]) + s[0][1:]
		return strings.Join(s, " ") + "."
	}
	paragraph := func() string {
		n := 2 + rng.IntN(5)
		var s []string
		for range n {
			s = append(s, sentence())
		}
		return strings.Join(s, " ")
	}
	code := func() string {
		var c strings.Builder
		name := []string{"parse", "render", "decide", "apply", "load", "split"}[rng.IntN(6)]
		fmt.Fprintf(&c, "```go\n// %s handles one step of the turn loop.\n", name)
		fmt.Fprintf(&c, "func %s(ctx context.Context, in []byte) (int, error) {\n", name)
		lines := 20 + rng.IntN(40)
		for i := range lines {
			switch rng.IntN(9) {
			case 0:
				c.WriteString("\n")
			case 1:
				fmt.Fprintf(&c, "\t// step %d: %s\n", i, strings.ToLower(sentence()))
			case 2:
				fmt.Fprintf(&c, "\tif err := check%d(ctx, in); err != nil {\n\t\treturn 0, fmt.Errorf(\"%s: %%w\", err)\n\t}\n", i, name)
			case 3:
				fmt.Fprintf(&c, "\tfor i := range %d {\n\t\ttotal += int(in[i%%len(in)]) * %d\n\t}\n", rng.IntN(100), rng.IntN(9))
			case 4:
				fmt.Fprintf(&c, "\tmsg := `raw string %d`\n", i)
			default:
				fmt.Fprintf(&c, "\tv%d := strings.TrimSpace(string(in[%d:])) + \"%s\"\n", i, rng.IntN(10), words[rng.IntN(len(words))])
			}
		}
		c.WriteString("\treturn total, nil\n}\n```")
		return c.String()
	}
	list := func(ordered, loose bool) string {
		var l strings.Builder
		n := 3 + rng.IntN(5)
		for i := range n {
			if loose && i > 0 {
				l.WriteString("\n")
			}
			marker := "- "
			if ordered {
				marker = fmt.Sprintf("%d. ", i+1)
			}
			l.WriteString(marker + sentence() + "\n")
			if rng.IntN(4) == 0 {
				indent := strings.Repeat(" ", len(marker))
				l.WriteString(indent + "- " + sentence() + "\n")
				l.WriteString(indent + "- " + sentence() + "\n")
			}
		}
		return strings.TrimSuffix(l.String(), "\n")
	}
	table := func() string {
		var t strings.Builder
		t.WriteString("| Hook | Event | Result | Time |\n| --- | --- | --- | ---: |\n")
		for range 3 + rng.IntN(6) {
			fmt.Fprintf(&t, "| `%s` | %s | %s | %d ms |\n",
				[]string{"approval", "gofmt", "vet", "mask"}[rng.IntN(4)],
				[]string{"pre_tool_call", "on_turn_end", "post_tool_call"}[rng.IntN(3)],
				[]string{"continue", "skip", "pause", "abort"}[rng.IntN(4)],
				rng.IntN(500))
		}
		return strings.TrimSuffix(t.String(), "\n")
	}

	for section := 1; b.Len() < size; section++ {
		fmt.Fprintf(&b, "## %d. %s\n\n", section, strings.TrimSuffix(sentence(), "."))
		for part := range 6 + rng.IntN(5) {
			var blk string
			switch rng.IntN(10) {
			case 0, 1, 2, 3:
				blk = paragraph()
			case 4:
				blk = list(false, rng.IntN(3) == 0)
			case 5:
				blk = list(true, rng.IntN(3) == 0)
			case 6, 7:
				blk = code()
			case 8:
				blk = table()
			case 9:
				if part%2 == 0 {
					blk = "> " + sentence() + "\n> " + sentence()
				} else {
					blk = "### " + strings.TrimSuffix(sentence(), ".")
				}
			}
			b.WriteString(blk + "\n\n")
		}
		if section%4 == 0 {
			b.WriteString("---\n\n")
		}
	}
	return b.String()
}
