package markdown

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitBlocks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "paragraphs",
			src:  "one\ntwo\n\nthree\n",
			want: []string{"one\ntwo\n", "three\n"},
		},
		{
			name: "several blank lines and no final newline",
			src:  "\n\none\n\n\n\ntwo",
			want: []string{"one\n", "two"},
		},
		{
			name: "fenced code keeps blank lines",
			src:  "intro\n\n```go\nfunc a() {}\n\n\nfunc b() {}\n```\n\nafter\n",
			want: []string{"intro\n", "```go\nfunc a() {}\n\n\nfunc b() {}\n```\n", "after\n"},
		},
		{
			name: "tilde fence and a longer closing fence",
			src:  "~~~\n```\nnot a close\n\n~~~~\nnext\n",
			want: []string{"~~~\n```\nnot a close\n\n~~~~\n", "next\n"},
		},
		{
			name: "a shorter fence does not close",
			src:  "````md\n```\ninner\n```\n\n````\n",
			want: []string{"````md\n```\ninner\n```\n\n````\n"},
		},
		{
			name: "fence interrupts a paragraph",
			src:  "text\n```\ncode\n```\nmore\n",
			want: []string{"text\n", "```\ncode\n```\n", "more\n"},
		},
		{
			name: "unfinished fence at the end",
			src:  "para\n\n```go\nx := 1\n\ny := 2\n",
			want: []string{"para\n", "```go\nx := 1\n\ny := 2\n"},
		},
		{
			name: "headings end blocks without blank lines",
			src:  "# Title\nintro\n## Sub\n- a\n",
			want: []string{"# Title\n", "intro\n", "## Sub\n", "- a\n"},
		},
		{
			name: "hash without space is text",
			src:  "#hashtag\ncontinues\n",
			want: []string{"#hashtag\ncontinues\n"},
		},
		{
			name: "loose and nested lists stay together",
			src:  "- one\n\n- two\n  - nested\n\n    more of nested\n\n1. three\n\nafter\n",
			want: []string{"- one\n\n- two\n  - nested\n\n    more of nested\n\n1. three\n", "after\n"},
		},
		{
			name: "code fence inside a list item",
			src:  "1. step\n\n   ```sh\n   go test\n\n   go vet\n   ```\n2. next\n\ndone\n",
			want: []string{"1. step\n\n   ```sh\n   go test\n\n   go vet\n   ```\n2. next\n", "done\n"},
		},
		{
			name: "unindented line in a list fence does not end the list",
			src:  "- item\n  ```\ncode at column 0\n\nstill code\n  ```\n\nafter\n",
			want: []string{"- item\n  ```\ncode at column 0\n\nstill code\n  ```\n", "after\n"},
		},
		{
			name: "indented code block keeps blank lines",
			src:  "para\n\n    a\n\n    b\n\nc\n",
			want: []string{"para\n", "    a\n\n    b\n", "c\n"},
		},
		{
			name: "table and block quote",
			src:  "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n> more\n\n---\n",
			want: []string{"| a | b |\n|---|---|\n| 1 | 2 |\n", "> quote\n> more\n", "---\n"},
		},
		{
			name: "setext heading stays with its text",
			src:  "Title\n=====\n\ntext\n",
			want: []string{"Title\n=====\n", "text\n"},
		},
		{
			name: "CRLF",
			src:  "one\r\n\r\n```\r\na\r\n\r\nb\r\n```\r\n\r\n# H\r\ntext\r\n",
			want: []string{"one\r\n", "```\r\na\r\n\r\nb\r\n```\r\n", "# H\r\n", "text\r\n"},
		},
		{
			name: "a backtick fence's info string may not hold a backtick",
			src:  "```a`b\n\ntext\n",
			want: []string{"```a`b\n", "text\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitBlocks(tt.src)
			if !slices.Equal(got, tt.want) {
				t.Errorf("splitBlocks(%q)\n got %q\nwant %q", tt.src, got, tt.want)
			}
			// Fed a byte at a time, the splitter finds the same blocks, each
			// as soon as the next one starts.
			var sp splitter
			var inc []string
			for i := 1; i <= len(tt.src); i++ {
				sp.feed(tt.src[:i], func(s span) { inc = append(inc, tt.src[s.start:s.end]) })
			}
			sp.flush(tt.src, func(s span) { inc = append(inc, tt.src[s.start:s.end]) })
			if !slices.Equal(inc, tt.want) {
				t.Errorf("incremental split of %q\n got %q\nwant %q", tt.src, inc, tt.want)
			}
		})
	}
}

// TestSplitFinishesBlockWhenNextStarts checks that a block is reported as
// finished exactly when the first line of the next block is complete, and
// that the open tail starts where it should.
func TestSplitFinishesBlockWhenNextStarts(t *testing.T) {
	var sp splitter
	var got []string
	src := ""
	feed := func(s string) {
		src += s
		sp.feed(src, func(b span) { got = append(got, src[b.start:b.end]) })
	}
	feed("para one\n\n")
	if len(got) != 0 || src[sp.openStart():] != "para one\n\n" {
		t.Fatalf("after a blank line: finished %q, open %q", got, src[sp.openStart():])
	}
	feed("- item") // partial line: could still be anything
	if len(got) != 0 {
		t.Fatalf("a partial line finished a block: %q", got)
	}
	feed("\n")
	if !slices.Equal(got, []string{"para one\n"}) || src[sp.openStart():] != "- item\n" {
		t.Fatalf("finished %q, open %q", got, src[sp.openStart():])
	}
	feed("\n  continued\n\nafter\n")
	if !slices.Equal(got, []string{"para one\n", "- item\n\n  continued\n"}) || src[sp.openStart():] != "after\n" {
		t.Fatalf("finished %q, open %q", got, src[sp.openStart():])
	}
}

// TestSplitGeneratedDocument checks invariants on a long generated answer:
// blocks are in order, do not overlap, leave out only blank lines, and
// fenced code blocks come out whole.
func TestSplitGeneratedDocument(t *testing.T) {
	doc := answerDoc(64 << 10)
	blocks := splitBlocks(doc)
	rest := doc
	for _, b := range blocks {
		i := strings.Index(rest, b)
		if i < 0 {
			t.Fatalf("block %q not found in order", b)
		}
		if strings.TrimSpace(rest[:i]) != "" {
			t.Fatalf("text between blocks: %q", rest[:i])
		}
		rest = rest[i+len(b):]
		if strings.HasPrefix(b, "```") && (strings.Count(b, "```") != 2 || !strings.HasSuffix(b, "```\n")) {
			t.Fatalf("code block not whole: %q", b)
		}
	}
	if strings.TrimSpace(rest) != "" {
		t.Fatalf("text after the last block: %q", rest)
	}
	if len(blocks) < 50 {
		t.Fatalf("only %d blocks", len(blocks))
	}
}
