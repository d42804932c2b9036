package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	r, dir := newTestRegistry(t)
	for _, f := range []string{"main.go", "README.md", "cmd/x/main.go", "cmd/x/main_test.go", "internal/a/b/c.go", "vendor/v.go", "build/out.go", ".git/config.go", "docs/.hidden.go"} {
		writeFile(t, dir, f, "")
	}
	writeFile(t, dir, ".gitignore", "/vendor/\nbuild\n")
	os.Symlink(filepath.Join(dir, "internal"), filepath.Join(dir, "loop.go"))

	tests := []struct {
		args GlobArgs
		want string
	}{
		{GlobArgs{Pattern: "*.go"}, "loop.go\nmain.go\n"},
		{GlobArgs{Pattern: "**/*.go"}, "cmd/x/main.go\ncmd/x/main_test.go\ndocs/.hidden.go\ninternal/a/b/c.go\nloop.go\nmain.go\n"},
		{GlobArgs{Pattern: "cmd/**/*_test.go"}, "cmd/x/main_test.go\n"},
		{GlobArgs{Pattern: "*/*/main.go"}, "cmd/x/main.go\n"},
		{GlobArgs{Pattern: "**/*.{md,go}", Path: "cmd"}, "cmd/x/main.go\ncmd/x/main_test.go\n"},
		{GlobArgs{Pattern: "*.go", Path: "vendor"}, "vendor/v.go\n"}, // asked for by name
		{GlobArgs{Pattern: filepath.Join(dir, "cmd", "*", "main.go")}, "cmd/x/main.go\n"},
		{GlobArgs{Pattern: "README.md"}, "README.md\n"},
	}
	for _, tt := range tests {
		t.Run(tt.args.Pattern, func(t *testing.T) {
			if got := wantOK(t, call(t, r, "glob", tt.args)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	if got := wantOK(t, call(t, r, "glob", GlobArgs{Pattern: "**/*.rs"})); got != "No files match **/*.rs in .." {
		t.Errorf("got %q", got)
	}
	if got := wantOK(t, call(t, r, "glob", GlobArgs{Pattern: "nodir/**/*.rs"})); !strings.HasPrefix(got, "No files match") {
		t.Errorf("got %q", got)
	}
	wantError(t, call(t, r, "glob", GlobArgs{Pattern: "[a-"}), "not a valid glob")
	wantError(t, call(t, r, "glob", GlobArgs{Pattern: "../*"}), "contains ..")
	wantError(t, call(t, r, "glob", GlobArgs{Pattern: "/etc/*"}), "is absolute")
	wantError(t, call(t, r, "glob", GlobArgs{Pattern: "*", Path: "main.go"}), "is a file")
	wantError(t, call(t, r, "glob", GlobArgs{Pattern: "*", Path: "nope"}), "nope does not exist")
	wantError(t, call(t, r, "glob", `{"path": "."}`), `missing required field "pattern"`)
}

func TestGlobCap(t *testing.T) {
	r, dir := newTestRegistry(t)
	for i := range maxGlobResults + 10 {
		writeFile(t, dir, fmt.Sprintf("d%d/f%04d.txt", i%7, i), "")
	}
	got := wantOK(t, call(t, r, "glob", GlobArgs{Pattern: "**/*.txt"}))
	wantContains(t, got, "[10 more files not shown, 510 in all.")
	if n := strings.Count(got, ".txt\n"); n != maxGlobResults {
		t.Errorf("%d results shown", n)
	}
}
