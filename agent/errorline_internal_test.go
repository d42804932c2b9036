package agent

import (
	"strings"
	"testing"
)

// TestErrorLinesSplitAnywhere: llama.cpp's "error:" line is found however
// the body's reads split it, and nothing else reads as one.
func TestErrorLinesSplitAnywhere(t *testing.T) {
	const payload = `{"code":400,"message":"bad grammar"}`
	for name, tc := range map[string]struct{ body, want string }{
		"error line":        {"data: {\"x\":1}\n\nerror: " + payload + "\n\n", payload},
		"none":              {"data: {\"error\":\"in data\"}\n\n: error: a comment\n\ndata: [DONE]\n\n", ""},
		"not at line start": {"data: x error: " + payload + "\n\n", ""},
		"crlf":              {"data: 1\r\nerror: " + payload + "\r\n\r\n", payload},
		"no newline at end": {"data: 1\n\nerror: " + payload, ""},
		"prefix only":       {"errors: " + payload + "\n", ""},
	} {
		for size := 1; size <= len(tc.body); size++ {
			var w errorLines
			for s := tc.body; s != ""; {
				n := min(size, len(s))
				w.scan([]byte(s[:n]))
				s = s[n:]
			}
			if got := strings.TrimSpace(string(w.data)); got != tc.want {
				t.Fatalf("%s, reads of %d bytes: error line %q, want %q", name, size, got, tc.want)
			}
		}
	}
}
