package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileToolsRefuseADirectoryPath(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "notes.txt", "hello\n")
	wantOK(t, call(t, r, "read_file", map[string]any{"path": "notes.txt"}))

	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"write_file", map[string]any{"path": "build/", "content": "x"}, []string{`Path build/ is invalid`, `ends with "/"`, "names a directory", "build/name.ext"}},
		{"write_file", map[string]any{"path": "sub/dir//", "content": "x"}, []string{`ends with "/"`, "sub/dir/name.ext"}},
		{"write_file", map[string]any{"path": "build/.", "content": "x"}, []string{`ends with "."`}},
		{"write_file", map[string]any{"path": "a/..", "content": "x"}, []string{`ends with ".."`}},
		{"edit_file", map[string]any{"path": "notes.txt/", "old_string": "hello", "new_string": "bye"}, []string{`ends with "/"`}},
		{"read_file", map[string]any{"path": "notes.txt/"}, []string{`ends with "/"`}},
	} {
		wantError(t, call(t, r, tc.tool, tc.args), tc.want...)
	}
	for _, name := range []string{"build", "sub", "a"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was created", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "hello\n" {
		t.Errorf("notes.txt = %q", b)
	}
}

func TestStringArgumentsRefuseLoneSurrogates(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "notes.txt", "hello\n")
	wantOK(t, call(t, r, "read_file", `{"path": "notes.txt"}`))

	for _, tc := range []struct {
		tool, args, esc string
	}{
		{"write_file", `{"path": "new.txt", "content": "a\ud800b"}`, `\ud800`},
		{"write_file", `{"path": "new.txt", "content": "end\uD83D"}`, `\uD83D`},
		{"write_file", `{"path": "new\udc00.txt", "content": "x"}`, `\udc00`},
		{"edit_file", `{"path": "notes.txt", "old_string": "hello", "new_string": "\ude00 low first\ud83d"}`, `\ude00`},
		{"bash", `{"command": "echo \ud800"}`, `\ud800`},
	} {
		wantError(t, call(t, r, tc.tool, tc.args), "lone UTF-16 surrogate "+tc.esc, "surrogate pair", "Call the tool again")
	}
	if _, err := os.Lstat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("new.txt was written")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "hello\n" {
		t.Errorf("notes.txt = %q", b)
	}

	// A pair is one character; an escaped backslash is not an escape.
	wantOK(t, call(t, r, "write_file", `{"path": "ok.txt", "content": "\ud83d\ude00 \\ud800 \"\\\ud83d\udE00"}`))
	if b, _ := os.ReadFile(filepath.Join(dir, "ok.txt")); string(b) != `😀 \ud800 "\😀` {
		t.Errorf("ok.txt = %q", b)
	}
}
