package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// newTestRegistry returns a registry on a fresh workspace and the
// workspace's directory.
func newTestRegistry(t *testing.T, opts ...Option) (*Registry, string) {
	t.Helper()
	ws, err := OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return NewRegistry(ws, opts...), ws.Dir()
}

// call runs the tool name with args: a string is sent as is, anything
// else as JSON.
func call(t *testing.T, r *Registry, name string, args any) chat.ToolResult {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := r.Run(context.Background(), chat.ToolCall{ID: "call_1", Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("%s(%s): harness error: %v", name, raw, err)
	}
	if res.CallID != "call_1" {
		t.Fatalf("CallID = %q, want call_1", res.CallID)
	}
	return res
}

// wantOK fails unless res succeeded, and returns its content.
func wantOK(t *testing.T, res chat.ToolResult) string {
	t.Helper()
	if res.Status != chat.StatusOK {
		t.Fatalf("status %s, want ok; content:\n%s", res.Status, res.Content)
	}
	return res.Content
}

// wantError fails unless res is an error result containing every part.
func wantError(t *testing.T, res chat.ToolResult, parts ...string) string {
	t.Helper()
	if res.Status != chat.StatusError {
		t.Fatalf("status %s, want error; content:\n%s", res.Status, res.Content)
	}
	wantContains(t, res.Content, parts...)
	return res.Content
}

func wantContains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("missing %q in:\n%s", p, s)
		}
	}
}

// writeFile writes a file below dir, creating its directories.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
