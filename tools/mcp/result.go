package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// result turns a tool call's result into what the model reads: text
// content joined; structured content as JSON unless the content blocks
// already carry it (carried: a server that returns both returns the same
// thing twice, and the model would read it twice); images and audio
// described by type and size, the images a model can take also given as
// images (Result.Images); resources described (a text resource given
// whole); isError as an error result. Base64 data never reaches the
// model as text: inside structured content it is described too.
func result(r *mcp.CallToolResult) tools.Result {
	var parts, corpus []string
	var images []chat.Image
	imageBytes := 0
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			corpus = append(corpus, c.Text)
		case *mcp.ImageContent:
			desc := fmt.Sprintf("[image: %s, %s", orUnknown(c.MIMEType), size(len(c.Data)))
			if why := imageRefused(c.MIMEType, len(c.Data), len(images), imageBytes); why != "" {
				desc += "; not shown to the model: " + why
			} else {
				images = append(images, chat.Image{MIMEType: c.MIMEType, Data: c.Data})
				imageBytes += len(c.Data)
			}
			parts = append(parts, desc+"]")
			corpus = append(corpus, c.MIMEType, base64.StdEncoding.EncodeToString(c.Data))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(c.MIMEType), size(len(c.Data))))
			corpus = append(corpus, c.MIMEType, base64.StdEncoding.EncodeToString(c.Data))
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
			corpus = append(corpus, c.URI, c.Name, c.MIMEType)
		case *mcp.EmbeddedResource:
			parts = append(parts, resource(c.Resource))
			if c.Resource != nil {
				corpus = append(corpus, c.Resource.URI, c.Resource.MIMEType, c.Resource.Text, base64.StdEncoding.EncodeToString(c.Resource.Blob))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if r.StructuredContent != nil && !carried(r.StructuredContent, corpus) {
		if b, err := json.Marshal(describeBlobs(r.StructuredContent)); err == nil {
			parts = append(parts, string(b))
		}
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
	return tools.Result{Content: text, Images: images}
}

// Bounds of the images a tool result gives the model: each stays in the
// conversation, sent with every request until a compaction prunes it.
const (
	maxImageBytes  = 5 << 20
	maxImagesBytes = 10 << 20
	maxImages      = 8
	maxLeavesCheck = 10000
)

// imageTypes are the types of image model APIs take.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// imageRefused says why an image of type mime and n bytes, after have
// others of the result of haveBytes bytes, is not given to the model as
// an image, or "".
func imageRefused(mime string, n, have, haveBytes int) string {
	switch {
	case !slices.Contains(imageTypes, mime):
		return "model APIs take PNG, JPEG, GIF and WebP only"
	case n > maxImageBytes:
		return "larger than " + size(maxImageBytes)
	case have >= maxImages:
		return fmt.Sprintf("a result shows the model at most %d images", maxImages)
	case haveBytes+n > maxImagesBytes:
		return fmt.Sprintf("a result shows the model at most %s of images", size(maxImagesBytes))
	}
	return ""
}

// carried reports whether the content blocks (their texts, and their
// data, types and URIs: corpus) already carry the structured content v:
// a text block is v's JSON, or every string and number in v is found in
// a block, as when a server returns a file's text both as text and as
// {"content": text}. A value too large to check is taken as not carried.
func carried(v any, corpus []string) bool {
	if len(corpus) == 0 {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	for _, t := range corpus {
		if sameJSON(t, b) {
			return true
		}
	}
	n := 0
	var found func(v any) bool
	found = func(v any) bool {
		if n++; n > maxLeavesCheck {
			return false
		}
		var leaf string
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				if !found(e) {
					return false
				}
			}
			return true
		case []any:
			for _, e := range v {
				if !found(e) {
					return false
				}
			}
			return true
		case string:
			leaf = v
		case float64:
			leaf = strconv.FormatFloat(v, 'f', -1, 64)
		case json.Number:
			leaf = v.String()
		default:
			return true // true, false, null say nothing the text needs
		}
		if leaf == "" {
			return true
		}
		return slices.ContainsFunc(corpus, func(t string) bool { return strings.Contains(t, leaf) })
	}
	return found(v)
}

// minBlob is the shortest string describeBlobs takes for base64 data.
const minBlob = 256

// describeBlobs returns v with every long string of base64 in it
// replaced by a description: the model cannot read base64 data, and 30
// KiB of it would fill its context.
func describeBlobs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = describeBlobs(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = describeBlobs(e)
		}
		return out
	case string:
		if len(v) >= minBlob && isBase64(v) {
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				return fmt.Sprintf("[base64 data: %s]", size(len(b)))
			}
		}
	}
	return v
}

// isBase64 reports whether s holds only the characters of standard
// base64.
func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
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
