package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tackle-dev/tackle/tools"
)

// result turns a tool call's result into what the model reads: text
// content joined, structured content as JSON (a text block that only
// repeats it is left out), images, audio and resources described by type
// and size (a text resource is given whole), isError as an error result.
func result(r *mcp.CallToolResult) tools.Result {
	var parts []string
	var structured []byte
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			structured = b
		}
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if structured != nil && sameJSON(c.Text, structured) {
				continue
			}
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *mcp.ResourceLink:
			s := "[resource link: " + c.URI
			if c.Name != "" && c.Name != c.URI {
				s += " (" + c.Name + ")"
			}
			if c.MIMEType != "" {
				s += ", " + c.MIMEType
			}
			if c.Size != nil {
				s += ", " + size(int(*c.Size))
			}
			parts = append(parts, s+"]")
		case *mcp.EmbeddedResource:
			parts = append(parts, resource(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if structured != nil {
		parts = append(parts, string(structured))
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		if strings.TrimSpace(text) == "" {
			text = "The tool reported an error and said nothing more."
		}
		return tools.Result{Content: text, IsError: true}
	}
	if text == "" {
		text = "(the tool returned no content)"
	}
	return tools.OK(text)
}

// resource describes an embedded resource: a text resource with its
// text, a binary one by type and size.
func resource(r *mcp.ResourceContents) string {
	if r == nil {
		return "[resource: empty]"
	}
	if r.Blob != nil {
		return fmt.Sprintf("[resource %s: %s, %s]", r.URI, orUnknown(r.MIMEType), size(len(r.Blob)))
	}
	head := "[resource " + r.URI
	if r.MIMEType != "" {
		head += ", " + r.MIMEType
	}
	return head + "]\n" + r.Text
}

// sameJSON reports whether text is the JSON value b (the SDK fills the
// text content with the structured content's JSON).
func sameJSON(text string, b []byte) bool {
	var c bytes.Buffer
	if json.Compact(&c, []byte(text)) != nil {
		return false
	}
	var d bytes.Buffer
	json.Compact(&d, b)
	if bytes.Equal(c.Bytes(), d.Bytes()) {
		return true
	}
	// Key order may differ: compare decoded.
	var x, y any
	if json.Unmarshal(c.Bytes(), &x) != nil || json.Unmarshal(d.Bytes(), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// size says n bytes the way people read it.
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
