package mcp

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decoded is v as the client holds a server's structured content: JSON
// decoded into maps, slices and float64s.
func decoded(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// What reaches the model of a result with structured content: once,
// whether the text carries it or not.
func TestResultStructuredContent(t *testing.T) {
	t.Parallel()
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	cases := []struct {
		name       string
		content    []mcp.Content
		structured any
		want       string
	}{
		{"the text is its JSON", text(`{"n": 3, "squares": [1, 4, 9]}`), map[string]any{"n": 3, "squares": []int{1, 4, 9}}, `{"n": 3, "squares": [1, 4, 9]}`},
		{"the text carries every value", text("main.go\n42 lines"), map[string]any{"path": "main.go", "lines": 42}, "main.go\n42 lines"},
		{"the text is the file", text("package main\n"), map[string]any{"content": "package main\n"}, "package main\n"},
		{"the text says something else", text("Created."), map[string]any{"id": "abc123"}, "Created.\n" + `{"id":"abc123"}`},
		{"no text", nil, map[string]any{"id": "abc123"}, `{"id":"abc123"}`},
		{"a value the text lacks", text("main.go"), map[string]any{"path": "main.go", "lines": 42}, "main.go\n" + `{"lines":42,"path":"main.go"}`},
	}
	for _, c := range cases {
		got := result(&mcp.CallToolResult{Content: c.content, StructuredContent: decoded(t, c.structured)})
		if got.Content != c.want {
			t.Errorf("%s: %q, want %q", c.name, got.Content, c.want)
		}
	}
}

// Base64 never reaches the model as text: not the image content's, which
// is described and attached, nor inside structured content the content
// does not carry.
func TestResultBase64(t *testing.T) {
	t.Parallel()
	data := make([]byte, 30<<10)
	b64 := base64.StdEncoding.EncodeToString(data)
	r := result(&mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Rendered the chart."}},
		StructuredContent: decoded(t, map[string]any{"chart": map[string]any{"png": b64, "title": "Sales"}}),
	})
	if strings.Contains(r.Content, b64[:100]) || !strings.Contains(r.Content, `"png":"[base64 data: 30.0 KiB]"`) || !strings.Contains(r.Content, `"title":"Sales"`) {
		t.Errorf("content: %.300q", r.Content)
	}
	// A short string of base64's letters is left alone.
	r = result(&mcp.CallToolResult{StructuredContent: decoded(t, map[string]any{"id": "abcDEF123"})})
	if r.Content != `{"id":"abcDEF123"}` {
		t.Errorf("content: %q", r.Content)
	}
}

// Which images a result gives the model as images, and why not the
// others; every one is described.
func TestResultImages(t *testing.T) {
	t.Parallel()
	img := func(mime string, n int) mcp.Content { return &mcp.ImageContent{MIMEType: mime, Data: make([]byte, n)} }
	r := result(&mcp.CallToolResult{Content: []mcp.Content{
		img("image/png", 1000),
		img("image/svg+xml", 100),
		img("image/jpeg", 6<<20),
		img("image/webp", 4<<20), img("image/webp", 4<<20), img("image/webp", 4<<20),
	}})
	want := []string{
		"[image: image/png, 1000 bytes]",
		"[image: image/svg+xml, 100 bytes; not shown to the model: model APIs take PNG, JPEG, GIF and WebP only]",
		"[image: image/jpeg, 6.0 MiB; not shown to the model: larger than 5.0 MiB]",
		"[image: image/webp, 4.0 MiB]",
		"[image: image/webp, 4.0 MiB]",
		"[image: image/webp, 4.0 MiB; not shown to the model: a result shows the model at most 10.0 MiB of images]",
	}
	if r.Content != strings.Join(want, "\n") {
		t.Errorf("content:\n%s\nwant\n%s", r.Content, strings.Join(want, "\n"))
	}
	if len(r.Images) != 3 || r.Images[0].MIMEType != "image/png" || r.Images[2].MIMEType != "image/webp" {
		t.Errorf("%d images", len(r.Images))
	}
	var many []mcp.Content
	for range maxImages + 1 {
		many = append(many, img("image/gif", 10))
	}
	if r := result(&mcp.CallToolResult{Content: many}); len(r.Images) != maxImages || !strings.Contains(r.Content, "at most 8 images") {
		t.Errorf("%d images: %s", len(r.Images), r.Content)
	}
	// An error result shows no image.
	if r := result(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{img("image/png", 10)}}); !r.IsError || len(r.Images) != 0 {
		t.Errorf("an error result: %+v", r)
	}
}
