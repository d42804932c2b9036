package tools

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The stamps of what the model read outlive the Registry: a later one
// given them (SetFiles) lets the model edit or overwrite the files it read
// — before, an approved paused edit resumed by another process failed
// with "it has not been read in this session" — and still refuses a file
// changed since, saying it changed.
func TestFileStampsCarryOverToAnotherRegistry(t *testing.T) {
	var mu sync.Mutex
	var kept []FileStamp
	first, dir := newTestRegistry(t, WithFileObserver(func(st FileStamp) {
		mu.Lock()
		kept = append(kept, st)
		mu.Unlock()
	}))
	writeFile(t, dir, "a.txt", "one\n")
	writeFile(t, dir, "b.txt", "two\n")
	writeFile(t, dir, "c.txt", "three\n")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		wantOK(t, call(t, first, ReadFile, ReadFileArgs{Path: f}))
	}
	if len(kept) != 3 || kept[0].Path != "a.txt" || kept[0].Size != 4 || len(kept[0].SHA256) != 64 {
		t.Fatalf("stamps observed: %+v", kept)
	}

	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	second := NewRegistry(ws)
	// Without the stamps the second registry refuses, as before.
	wantError(t, call(t, second, EditFile, EditFileArgs{Path: "a.txt", OldString: "one", NewString: "uno"}), "has not been read in this session")
	second.SetFiles(kept)
	wantOK(t, call(t, second, EditFile, EditFileArgs{Path: "a.txt", OldString: "one", NewString: "uno"}))
	wantOK(t, call(t, second, WriteFile, WriteFileArgs{Path: "b.txt", Content: "dos\n"}))
	// c.txt changed after it was read: reported as changed, not as unread.
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte("THREE, changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantError(t, call(t, second, EditFile, EditFileArgs{Path: "c.txt", OldString: "THREE", NewString: "tres"}), "changed on disk since you last read or wrote it")
	for f, want := range map[string]string{"a.txt": "uno\n", "b.txt": "dos\n", "c.txt": "THREE, changed\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s = %q, want %q", f, b, want)
		}
	}
}
