package checks

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestSnapshotDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.go", "sub/b.go", "sub/c.txt", ".git/x.go", "node_modules/m/m.go", "vendor/v/v.go", "deep/er/d.go"} {
		write(t, dir, f, "package x\n")
	}
	// A link to a Go file is not a file the snapshot tracks, and a link
	// to a directory is not followed.
	if err := os.Symlink(filepath.Join(dir, "a.go"), filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	write(t, outside, "o.go", "package o\n")
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	isGo := func(rel string) bool { return filepath.Ext(rel) == ".go" }
	before, err := takeSnapshot(context.Background(), dir, isGo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range before {
		got = append(got, p)
	}
	slices.Sort(got)
	if want := []string{"a.go", "deep/er/d.go", "sub/b.go", "vendor/v/v.go"}; !slices.Equal(got, want) {
		t.Errorf("snapshot = %v, want %v", got, want)
	}

	write(t, dir, "sub/b.go", "package x // longer\n")            // size changes
	write(t, dir, "new/n.go", "package n\n")                      // new
	write(t, dir, "sub/c.txt", "changed, but not wanted\n")       // filtered
	if err := os.Remove(filepath.Join(dir, "a.go")); err != nil { // removed: nothing to check
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // same size, other mtime
	if err := os.Chtimes(filepath.Join(dir, "deep/er/d.go"), old, old); err != nil {
		t.Fatal(err)
	}
	after, err := takeSnapshot(context.Background(), dir, isGo)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := diff(before, after), []string{"deep/er/d.go", "new/n.go", "sub/b.go"}; !slices.Equal(got, want) {
		t.Errorf("diff = %v, want %v", got, want)
	}
}

func TestSnapshotStopsOnCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "a/a.go", "package a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := takeSnapshot(ctx, dir, func(string) bool { return true }); err == nil {
		t.Error("a cancelled snapshot succeeded")
	}
}

func TestWantedFollowsTheCommands(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Workspace: "/w", Tools: (*fakeInspector)(nil), Commands: []Command{
		{Match: "*.py", Run: []string{"ruff"}},
		{Name: "web", Match: "web/**/*.{ts,tsx}", Run: []string{"eslint"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		"main.go": true, "a/b/c.py": true, "web/x/y.tsx": true, "web/y.ts": true,
		"src/y.ts": false, "notes.md": false, "py": false,
	} {
		if got := c.wanted(rel); got != want {
			t.Errorf("wanted(%q) = %v, want %v", rel, got, want)
		}
	}
}
