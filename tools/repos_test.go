package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The git directories of a workspace: .git at any depth (a directory or a
// worktree's file), a bare repository by its git entries, the root's HEAD
// always; nothing else.
func TestRepositoriesFindsEveryGitDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{".git/hooks", "sub/.git", "vendor/lib/.git/objects", "bare.git/objects", "bare.git/refs", "looks/objects", "src/config"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"wt/.git", "bare.git/HEAD", "src/main.go"} {
		writeFile(t, root, f, "x\n")
	}
	r := NewRepositories(root)
	got := r.Paths()
	for _, want := range []string{"HEAD", ".git", "sub/.git", "vendor/lib/.git", "wt/.git", "bare.git/HEAD", "bare.git/config", "bare.git/hooks", "bare.git/objects"} {
		if !slices.Contains(got, filepath.Join(root, want)) {
			t.Errorf("%s not found in %v", want, got)
		}
	}
	for _, not := range []string{"src", "src/config", "looks", "looks/objects", "bare.git", ".git/hooks"} {
		if slices.Contains(got, filepath.Join(root, not)) {
			t.Errorf("%s is not a git directory, but was found", not)
		}
	}
	// A repository made later is found by the next scan.
	if err := os.MkdirAll(filepath.Join(root, "later", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Rescan()
	for !slices.Contains(r.Paths(), filepath.Join(root, "later", ".git")) {
		r.waitScan()
	}
}
