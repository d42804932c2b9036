package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListDir(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "b.go", strings.Repeat("x", 2048))
	writeFile(t, dir, "a.txt", "hi")
	writeFile(t, dir, "sub/inner.go", "")
	os.Symlink("a.txt", filepath.Join(dir, "link"))

	got := wantOK(t, call(t, r, "list_dir", `{}`))
	want := ". (4 entries):\na.txt  2 B\nb.go  2.0 KiB\nlink -> a.txt\nsub/\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	got = wantOK(t, call(t, r, "list_dir", ListDirArgs{Path: "sub"}))
	if got != "sub/ (1 entry):\ninner.go  0 B\n" {
		t.Errorf("got %q", got)
	}
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	if got := wantOK(t, call(t, r, "list_dir", ListDirArgs{Path: "empty"})); got != "empty is empty." {
		t.Errorf("got %q", got)
	}
	wantError(t, call(t, r, "list_dir", ListDirArgs{Path: "a.txt"}), "a.txt is a file")
	wantError(t, call(t, r, "list_dir", ListDirArgs{Path: "nope"}), "nope does not exist")
	wantError(t, call(t, r, "list_dir", `{"path": 1}`), `field "path" must be a string`)
}

func TestListDirCap(t *testing.T) {
	r, dir := newTestRegistry(t)
	for i := range maxListEntries + 5 {
		writeFile(t, dir, fmt.Sprintf("many/f%04d", i), "")
	}
	got := wantOK(t, call(t, r, "list_dir", ListDirArgs{Path: "many"}))
	wantContains(t, got, "f0999", "[5 more entries not shown.")
	if strings.Contains(got, "f1000") {
		t.Error("listed past the cap")
	}
}
