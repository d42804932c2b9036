package tools

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileCreates(t *testing.T) {
	r, dir := newTestRegistry(t)
	got := wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "a/b/c.go", Content: "package c\n\nfunc F() {}\n"}))
	if got != "Wrote 3 lines (23 bytes) to a/b/c.go (created)." {
		t.Errorf("got %q", got)
	}
	p := filepath.Join(dir, "a/b/c.go")
	if readFile(t, p) != "package c\n\nfunc F() {}\n" {
		t.Error("content differs")
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
	// A file the model wrote may be written again without reading it.
	got = wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "a/b/c.go", Content: "x"}))
	if !strings.HasPrefix(got, "Wrote 1 line (1 byte) to a/b/c.go (replaced).\n--- a/a/b/c.go\n+++ b/a/b/c.go\n") || !strings.Contains(got, "\n+x") {
		t.Errorf("got %q, want the summary and a diff", got)
	}
	// Writing the same content again says so.
	if got := wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "a/b/c.go", Content: "x"})); !strings.HasSuffix(got, "The content is the same as before.") {
		t.Errorf("got %q", got)
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "run.sh"}))
	wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "run.sh", Content: "#!/bin/sh\necho hi\n"}))
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750", fi.Mode().Perm())
	}
}

func TestWriteFileRefusesUnreadAndStale(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "notes.md", "mine\n")
	wantError(t, call(t, r, "write_file", WriteFileArgs{Path: "notes.md", Content: "theirs"}),
		"Refusing to overwrite notes.md: it has not been read in this session", "read_file")
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "notes.md"}))
	writeFile(t, dir, "notes.md", "changed by the user\n")
	wantError(t, call(t, r, "write_file", WriteFileArgs{Path: "notes.md", Content: "theirs"}),
		"Refusing to overwrite notes.md: it changed on disk since you last read or wrote it", "Read it again")
	if readFile(t, p) != "changed by the user\n" {
		t.Error("the user's change was overwritten")
	}
}

func TestWriteFileErrors(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "file", "x")
	os.Mkdir(filepath.Join(dir, "dir"), 0o755)
	tests := []struct {
		name string
		args any
		want []string
	}{
		{"missing content", `{"path": "x"}`, []string{`missing required field "content" (string)`}},
		{"content not a string", `{"path": "x", "content": ["a"]}`, []string{`field "content" must be a string, got an array`}},
		{"directory", WriteFileArgs{Path: "dir", Content: "x"}, []string{"dir is a directory"}},
		{"root", WriteFileArgs{Path: ".", Content: "x"}, []string{"is the workspace root"}},
		{"parent is a file", WriteFileArgs{Path: "file/x", Content: "x"}, []string{"one of its parents is a file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, r, "write_file", tt.args), tt.want...)
		})
	}
}

func TestWriteFileSurvivesFailures(t *testing.T) {
	for _, step := range []string{"write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			r, dir := newTestRegistry(t)
			p := writeFile(t, dir, "keep.txt", "old content\n")
			wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "keep.txt"}))
			injectFault(r.ws, step)
			wantError(t, call(t, r, "write_file", WriteFileArgs{Path: "keep.txt", Content: strings.Repeat("new ", 1000)}),
				"Could not write keep.txt", "injected", "The file was left as it was")
			if got := readFile(t, p); got != "old content\n" {
				t.Errorf("content after the failed write: %q", got)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("temporary file left behind: %v", entries)
			}
		})
	}
}

// injectFault makes atomic writes of ws fail at step: "write" fails
// after half of the data was written.
func injectFault(ws *Workspace, step string) {
	if step == "write" {
		ws.wrapWriter = func(w io.Writer) io.Writer { return &failingWriter{w: w} }
		return
	}
	ws.fault = func(s string) error {
		if s == step {
			return errInjected
		}
		return nil
	}
}

var errInjected = errors.New("injected failure")

// failingWriter writes half of what it is given, then fails.
type failingWriter struct{ w io.Writer }

func (f *failingWriter) Write(p []byte) (int, error) {
	n, _ := f.w.Write(p[:len(p)/2])
	return n, errInjected
}
