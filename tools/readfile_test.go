package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A file a repository holds is read only when it is a regular file, and
// only so far: a FIFO (which would block the open) and a link to a
// device that never ends are refused at once.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.md")
	if err := os.WriteFile(plain, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(plain, 4); err != nil || string(b) != "0123" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.md")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero, dir} {
		if b, err := ReadRegular(p, 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %d bytes, %v; want it refused as no regular file", p, len(b), err)
		}
	}
}
