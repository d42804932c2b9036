package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const goSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("hello")
}
`

func TestEditFile(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "main.go", goSource)
	os.Chmod(p, 0o600)
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "main.go"}))

	got := wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: `import "fmt"`, NewString: `import "log"`}))
	want := `Edited main.go: replaced 1 occurrence.
--- a/main.go
+++ b/main.go
@@ -1,6 +1,6 @@
 package main
 
-import "fmt"
+import "log"
 
 func main() {
 	fmt.Println("hello")
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}

	// A second edit needs no new read: the tool knows what it wrote.
	got = wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: "fmt.Println", NewString: "log.Println", ReplaceAll: true}))
	wantContains(t, got, "replaced 2 occurrences", "-\tfmt.Println(\"hello\")\n", "+\tlog.Println(\"hello\")\n")
	if strings.Contains(readFile(t, p), "fmt") {
		t.Errorf("replace_all left an occurrence:\n%s", readFile(t, p))
	}
}

func TestEditFileErrors(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "main.go", goSource)
	writeFile(t, dir, "unread.go", goSource)
	writeFile(t, dir, "bin", "a\x00b")
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "main.go"}))

	tests := []struct {
		name string
		args any
		want []string
	}{
		{"missing new_string", `{"path": "main.go", "old_string": "x"}`, []string{`missing required field "new_string" (string)`}},
		{"replace_all not bool", `{"path": "main.go", "old_string": "a", "new_string": "b", "replace_all": "yes"}`, []string{`field "replace_all" must be a boolean, got a string ("yes")`}},
		{"same strings", EditFileArgs{Path: "main.go", OldString: "main", NewString: "main"}, []string{"identical"}},
		{"empty old", EditFileArgs{Path: "main.go", NewString: "x"}, []string{"old_string is empty", "write_file"}},
		{"not found", EditFileArgs{Path: "main.go", OldString: "fmt.Printf", NewString: "x"}, []string{"old_string was not found in main.go", "Re-read the file with read_file"}},
		{"whitespace differs", EditFileArgs{Path: "main.go", OldString: "  fmt.Println(\"hello\")\n", NewString: "x"}, []string{"without its leading and trailing whitespace"}},
		{"ambiguous", EditFileArgs{Path: "main.go", OldString: `fmt.Println("hello")`, NewString: "x"}, []string{"old_string occurs 2 times in main.go (at lines 6, 7)", "replace_all"}},
		{"never read", EditFileArgs{Path: "unread.go", OldString: "main", NewString: "x"}, []string{"Refusing to edit unread.go: it has not been read in this session", "read_file"}},
		{"missing file", EditFileArgs{Path: "new.go", OldString: "a", NewString: "b"}, []string{"new.go does not exist", "use write_file"}},
		{"binary", EditFileArgs{Path: "bin", OldString: "a", NewString: "b"}, []string{"binary"}},
		{"directory", EditFileArgs{Path: ".", OldString: "a", NewString: "b"}, []string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, r, "edit_file", tt.args), tt.want...)
		})
	}
	if readFile(t, p) != goSource {
		t.Error("a failed edit changed the file")
	}
}

func TestEditFileStale(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "main.go", goSource)
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "main.go"}))
	writeFile(t, dir, "main.go", goSource+"// changed\n")
	wantError(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: "package main", NewString: "package x"}),
		"Refusing to edit main.go: it changed on disk since you last read or wrote it", "Read it again with read_file")
	if !strings.HasPrefix(readFile(t, p), "package main") {
		t.Error("stale edit was applied")
	}
	// Reading again makes the edit possible.
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "main.go"}))
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: "package main", NewString: "package x"}))

	// Touching a file without changing it is not a change.
	now := time.Now().Add(time.Hour)
	os.Chtimes(p, now, now)
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: "package x", NewString: "package y"}))
}

func TestEditFileCRLF(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "win.txt", "one\r\ntwo\r\nthree\r\n")
	got := wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "win.txt"}))
	if strings.Contains(got, "\r") {
		t.Errorf("read_file shows carriage returns: %q", got)
	}
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "win.txt", OldString: "one\ntwo", NewString: "one\n2"}))
	if got := readFile(t, p); got != "one\r\n2\r\nthree\r\n" {
		t.Errorf("content %q", got)
	}
}

func TestEditFileDiffIsCapped(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "big.txt", strings.Repeat("a\n", 500))
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "big.txt"}))
	got := wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "big.txt", OldString: "a", NewString: "b", ReplaceAll: true}))
	wantContains(t, got, "replaced 500 occurrences", "[diff cut short:")
	if n := strings.Count(got, "\n"); n > maxDiffLines+3 {
		t.Errorf("diff has %d lines", n)
	}
	if readFile(t, filepath.Join(dir, "big.txt")) != strings.Repeat("b\n", 500) {
		t.Error("content differs")
	}
}

func TestEditFileSurvivesFailure(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "main.go", goSource)
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "main.go"}))
	injectFault(r.ws, "rename")
	wantError(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: "package main", NewString: "package x"}), "Could not write main.go")
	if readFile(t, p) != goSource {
		t.Error("the failed edit changed the file")
	}
}

func TestAcknowledgeAfterHarnessChange(t *testing.T) {
	r, dir := newTestRegistry(t)
	p := writeFile(t, dir, "main.go", goSource)
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "main.go"}))
	// The harness (gofmt at turn end) rewrites the file and tells the model.
	writeFile(t, dir, "main.go", goSource+"// formatted\n")
	if err := r.Acknowledge("main.go"); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "main.go", OldString: "package main", NewString: "package x"}))
	if got := readFile(t, p); !strings.HasPrefix(got, "package x") || !strings.HasSuffix(got, "// formatted\n") {
		t.Errorf("content = %q", got)
	}

	// A file the model never read stays unknown: acknowledging does not
	// let the model edit it blind.
	writeFile(t, dir, "other.go", goSource)
	if err := r.Acknowledge("other.go"); err != nil {
		t.Fatal(err)
	}
	wantError(t, call(t, r, "edit_file", EditFileArgs{Path: "other.go", OldString: "package main", NewString: "package x"}),
		"has not been read in this session")
	if err := r.Acknowledge("../outside.go"); err == nil {
		t.Error("Acknowledge outside the workspace succeeded")
	}
}
