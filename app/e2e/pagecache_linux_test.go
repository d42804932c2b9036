package e2e

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// evictFromPageCache writes a file's pages back and drops them from the
// page cache, so that the next exec reads it from disk, as the exec of an
// installed binary does. A binary the linker has just written is mapped
// differently: ext4 keeps the linker's writes as large folios, which an
// exec maps whole, and the first runs of a just-built tackle have a peak
// RSS 16 MiB above that of the same file read from disk (docs/benchmarks.md).
// Binaries compared with each other are evicted alike.
func evictFromPageCache(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		tb.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		tb.Fatalf("evict %s from the page cache: %v", path, err)
	}
}
