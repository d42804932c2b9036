package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestReadFilter: files the filter refuses are not shown by read_file or
// grep, whether named, reached through a link or found in a directory.
func TestReadFilter(t *testing.T) {
	var (
		mu    sync.Mutex
		asked []string
	)
	r, dir := newTestRegistry(t, WithReadFilter(func(rel string) bool {
		mu.Lock()
		asked = append(asked, rel)
		mu.Unlock()
		return rel != ".env" && rel != "sub/secret.txt"
	}))
	writeFile(t, dir, ".env", "TOKEN=s3cret-value\n")
	writeFile(t, dir, "sub/secret.txt", "TOKEN=other-s3cret\n")
	writeFile(t, dir, "main.go", "package main // TOKEN=public\n")
	if err := os.Symlink(".env", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": ".env"}},
		{"read_file", map[string]any{"path": "./sub/../.env"}},
		{"read_file", map[string]any{"path": "link"}},
		{"read_file", map[string]any{"path": "sub/secret.txt"}},
		{"grep", map[string]any{"pattern": "TOKEN", "path": ".env"}},
		{"grep", map[string]any{"pattern": "TOKEN", "path": "link"}},
	} {
		got := wantError(t, call(t, r, c.tool, c.args), "may not be read: an approval rule denies reading it")
		if strings.Contains(got, "s3cret") {
			t.Errorf("%s %v shows the secret: %s", c.tool, c.args, got)
		}
	}
	// A grep of the whole workspace skips them, and says so.
	for _, path := range []string{"", ".", "sub"} {
		got := wantOK(t, call(t, r, "grep", map[string]any{"pattern": "TOKEN", "path": path}))
		if strings.Contains(got, "s3cret") {
			t.Errorf("grep %q shows a secret:\n%s", path, got)
		}
		wantContains(t, got, "not searched: an approval rule denies reading them")
	}
	got := wantOK(t, call(t, r, "grep", map[string]any{"pattern": "TOKEN"}))
	wantContains(t, got, "main.go:1:package main // TOKEN=public", "[2 files not searched")
	// Other files read as before; the filter gets slash-separated paths.
	wantContains(t, wantOK(t, call(t, r, "read_file", map[string]any{"path": "main.go"})), "TOKEN=public")
	for _, a := range asked {
		if strings.Contains(a, `\`) || strings.HasPrefix(a, "./") {
			t.Errorf("the filter got %q", a)
		}
	}
}
