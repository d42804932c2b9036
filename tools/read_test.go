package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "a.txt", "one\ntwo\r\nthree")
	got := wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "a.txt"}))
	want := "     1\tone\n     2\ttwo\n     3\tthree\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	got = wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "a.txt", Offset: 2, Limit: 1}))
	wantContains(t, got, "     2\ttwo\n", "[Showed lines 2-2 of 3. To read more, call read_file with offset 3.]")
	if strings.Contains(got, "one") || strings.Contains(got, "three") {
		t.Errorf("read outside offset/limit:\n%s", got)
	}

	// An absolute path inside the workspace works too.
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: filepath.Join(dir, "a.txt")}))
}

func TestReadFileErrors(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "a.txt", "one\ntwo\n")
	writeFile(t, dir, "empty", "")
	writeFile(t, dir, "bin", "\x7fELF\x02\x01\x00\x00rest")
	writeFile(t, dir, "latin1", strings.Repeat("\xe9\xe8\xff", 100))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args any
		want []string
	}{
		{"missing path", `{}`, []string{`missing required field "path"`}},
		{"wrong type", `{"path": "a.txt", "offset": "2"}`, []string{`field "offset" must be an integer, got a string ("2")`}},
		{"not found", ReadFileArgs{Path: "nope.txt"}, []string{"nope.txt does not exist"}},
		{"directory", ReadFileArgs{Path: "sub"}, []string{"sub is a directory", "list_dir"}},
		{"binary", ReadFileArgs{Path: "bin"}, []string{"bin looks like a binary file (it contains NUL bytes)"}},
		{"mostly not utf-8", ReadFileArgs{Path: "latin1"}, []string{"looks like a binary file", "not valid UTF-8"}},
		{"fifo does not block", ReadFileArgs{Path: "fifo"}, []string{"not a regular file"}},
		{"offset past end", ReadFileArgs{Path: "a.txt", Offset: 5}, []string{"offset 5 is past the end of a.txt, which has 2 lines"}},
		{"negative offset", ReadFileArgs{Path: "a.txt", Offset: -1}, []string{"offset must be"}},
		{"negative limit", ReadFileArgs{Path: "a.txt", Limit: -1}, []string{"limit must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, r, "read_file", tt.args), tt.want...)
		})
	}
	if got := wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "empty"})); got != "empty is empty (0 bytes)." {
		t.Errorf("empty file: %q", got)
	}
}

func TestReadFileCaps(t *testing.T) {
	r, dir := newTestRegistry(t)

	var b strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	writeFile(t, dir, "long.txt", b.String())
	got := wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "long.txt"}))
	wantContains(t, got, "  2000\tline 2000\n", "[Showed lines 1-2000 of 2500. To read more, call read_file with offset 2001.]")
	if strings.Contains(got, "line 2001") {
		t.Error("read past 2000 lines by default")
	}
	got = wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "long.txt", Offset: 2001}))
	wantContains(t, got, "  2001\tline 2001\n", "  2500\tline 2500\n")
	if strings.Contains(got, "Showed") {
		t.Errorf("note at the end of the file:\n%s", got)
	}

	// A long line is cut on a rune boundary with a note.
	writeFile(t, dir, "wide.txt", "short\n"+strings.Repeat("é", 1500)+"\n")
	got = wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "wide.txt"}))
	wantContains(t, got, "     1\tshort\n", "… [1000 more bytes]", "[1 line longer than 2000 bytes were cut short.]")

	// The byte cap stops the output before 256 KiB.
	line := strings.Repeat("x", 1000) + "\n"
	writeFile(t, dir, "big.txt", strings.Repeat(line, 1000))
	got = wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "big.txt"}))
	if len(got) > maxReadBytes+200 {
		t.Errorf("output is %d bytes", len(got))
	}
	wantContains(t, got, "(output is capped at 256 KiB)", "call read_file with offset 261.")
}
