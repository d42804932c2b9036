package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"
)

func grepTree(t *testing.T) (*Registry, string) {
	t.Helper()
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "main.go", "package main\n\nfunc main() {\n\trun()\n}\n\nfunc run() {}\n")
	writeFile(t, dir, "lib/lib.go", "package lib\n\n// Run runs.\nfunc Run() {}\n")
	writeFile(t, dir, "lib/lib_test.go", "package lib\n\nfunc TestRun(t *testing.T) {}\n")
	writeFile(t, dir, "lib/gen/skip.go", "func generated() {}\n")
	writeFile(t, dir, "lib/.gitignore", "gen/\n*.log\n!keep.log\n")
	writeFile(t, dir, "lib/debug.log", "func in a log\n")
	writeFile(t, dir, "lib/keep.log", "func kept\n")
	writeFile(t, dir, ".git/HEAD", "func in git\n")
	writeFile(t, dir, "bin.dat", "func\x00binary\n")
	writeFile(t, dir, "notes.txt", "FUNC upper\n")
	return r, dir
}

func TestGrep(t *testing.T) {
	r, _ := grepTree(t)
	tests := []struct {
		name string
		args GrepArgs
		want string
	}{
		{"regexp", GrepArgs{Pattern: `^func \w+\(`}, "lib/lib.go:4:func Run() {}\nlib/lib_test.go:3:func TestRun(t *testing.T) {}\nmain.go:3:func main() {\nmain.go:7:func run() {}\n[4 matching lines in 3 files.]\n"},
		{"gitignore negation", GrepArgs{Pattern: `func (in|kept)`}, "lib/keep.log:1:func kept\n[1 matching line in 1 file.]\n"},
		{"ignore case", GrepArgs{Pattern: `func upper`, IgnoreCase: true}, "notes.txt:1:FUNC upper\n[1 matching line in 1 file.]\n"},
		{"include", GrepArgs{Pattern: `func`, Include: "*_test.go"}, "lib/lib_test.go:3:func TestRun(t *testing.T) {}\n[1 matching line in 1 file.]\n"},
		{"include with slash", GrepArgs{Pattern: `package`, Include: "lib/*.go"}, "lib/lib.go:1:package lib\nlib/lib_test.go:1:package lib\n[2 matching lines in 2 files.]\n"},
		{"path dir", GrepArgs{Pattern: `Run`, Path: "lib"}, "lib/lib.go:3:// Run runs.\nlib/lib.go:4:func Run() {}\nlib/lib_test.go:3:func TestRun(t *testing.T) {}\n[3 matching lines in 2 files.]\n"},
		{"path file", GrepArgs{Pattern: `run`, Path: "main.go"}, "main.go:4:\trun()\nmain.go:7:func run() {}\n[2 matching lines in 1 file.]\n"},
		{"ignored dir by name", GrepArgs{Pattern: `func`, Path: "lib/gen"}, "lib/gen/skip.go:1:func generated() {}\n[1 matching line in 1 file.]\n"},
		{"no literal", GrepArgs{Pattern: `\(\)$`, Path: "main.go"}, "main.go:4:\trun()\n[1 matching line in 1 file.]\n"},
		{"no match across lines", GrepArgs{Pattern: `main\s+func`}, "No matches for \"main\\\\s+func\" in ..\n"},
		{"context", GrepArgs{Pattern: `\trun\(\)`, Path: "main.go", Context: 1}, "main.go-3-func main() {\nmain.go:4:\trun()\nmain.go-5-}\n[1 matching line in 1 file.]\n"},
		{"context merges and separates", GrepArgs{Pattern: `^func`, Before: 1, Include: "*.go"}, "lib/lib.go-3-// Run runs.\nlib/lib.go:4:func Run() {}\n--\nlib/lib_test.go-2-\nlib/lib_test.go:3:func TestRun(t *testing.T) {}\n--\nmain.go-2-\nmain.go:3:func main() {\n--\nmain.go-6-\nmain.go:7:func run() {}\n[4 matching lines in 3 files.]\n"},
		{"after context at end of file", GrepArgs{Pattern: `func run`, Path: "main.go", After: 3}, "main.go:7:func run() {}\n[1 matching line in 1 file.]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wantOK(t, call(t, r, "grep", tt.args)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestGrepErrors(t *testing.T) {
	r, _ := grepTree(t)
	tests := []struct {
		name string
		args any
		want []string
	}{
		{"missing pattern", `{"path": "."}`, []string{`missing required field "pattern" (string)`}},
		{"bad regexp", GrepArgs{Pattern: `func (`}, []string{`pattern "func (" is not a valid regular expression`, "missing closing )"}},
		{"look-around", GrepArgs{Pattern: `a(?=b)`}, []string{"not a valid regular expression", "RE2"}},
		{"bad include", GrepArgs{Pattern: "x", Include: "[a-"}, []string{"not a valid glob"}},
		{"bad context", GrepArgs{Pattern: "x", Context: 100}, []string{"between 0 and 20"}},
		{"not found", GrepArgs{Pattern: "x", Path: "nope"}, []string{"nope does not exist"}},
		{"binary file by name", GrepArgs{Pattern: "func", Path: "bin.dat"}, []string{"binary"}},
		{"context wrong type", `{"pattern": "x", "context": true}`, []string{`field "context" must be an integer, got a boolean (true)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, r, "grep", tt.args), tt.want...)
		})
	}
}

func TestGrepCaps(t *testing.T) {
	r, dir := newTestRegistry(t)
	// 30 files of 20 matching lines: 600 matches, more than can be shown.
	for i := range 30 {
		writeFile(t, dir, fmt.Sprintf("f%02d.txt", i), strings.Repeat("match here\n", 20))
	}
	writeFile(t, dir, "wide.txt", "match "+strings.Repeat("é", 400)+"\n")
	got := wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "match"}))
	wantContains(t, got, "f00.txt:1:match here\n", "f09.txt:20:match here\n",
		"[Showed 200 of 601 matching lines in 31 files. Narrow the search")
	if strings.Contains(got, "f10.txt") {
		t.Error("showed more than 200 matching lines")
	}
	// Whatever the order the files were searched in, the output is the
	// same: the first matches in path order.
	for range 5 {
		if again := wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "match"})); again != got {
			t.Fatal("output differs between runs")
		}
	}
	got = wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "match", Path: "wide.txt"}))
	wantContains(t, got, "more bytes)")
	if len(got) > maxGrepLineBytes+100 {
		t.Errorf("long line not cut: %d bytes", len(got))
	}

	// Output bytes are capped too.
	long := strings.Repeat("y", 250)
	for i := range 3 {
		writeFile(t, dir, fmt.Sprintf("bytes/%d.txt", i), strings.Repeat("match "+long+"\n", 60))
	}
	got = wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "match", Path: "bytes"}))
	if len(got) > maxGrepBytes+300 {
		t.Errorf("output is %d bytes", len(got))
	}
	wantContains(t, got, "of 180 matching lines in 3 files")
}

func TestGrepMatchesLikeRipgrep(t *testing.T) {
	// Line semantics: one result per line however many matches it has,
	// empty matches count, a last line without newline counts.
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "a.txt", "aa aa\n\nb\nlast aa")
	for _, tt := range []struct {
		pattern string
		count   int
	}{
		{"aa", 2}, {"^", 4}, {"^$", 1}, {"a+ a+", 1}, {`\baa$`, 2}, {"b|last", 2}, {`(?i)AA`, 2},
	} {
		got := wantOK(t, call(t, r, "grep", GrepArgs{Pattern: tt.pattern}))
		if want := fmt.Sprintf("[%s in 1 file.]", plural(tt.count, "matching line")); !strings.Contains(got, want) {
			t.Errorf("%q: got\n%s\nwant %s", tt.pattern, got, want)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	for pattern, want := range map[string]string{
		`func \w+Context\(`:     "Context(",
		`hello`:                 "hello",
		`(foo)+bar`:             "foo",
		`foo|bar`:               "foo bar",
		`(foo|ba)r`:             "foo ba", // longer than "r"
		`x(abc|de)yz`:           "yz",     // as long, one alternative
		`a|b*`:                  "",
		`x*`:                    "",
		`^import "fmt"$`:        `import "fmt"`,
		`(?i)Deadline Exceeded`: "~deadline exceeded",
		`(?i)task`:              "~ta", // k folds to the Kelvin sign
		`(?i)ßtraße`:            "~tra",
		`(?i)k`:                 "",
	} {
		re, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range requiredLiterals(re.Simplify()) {
			s := string(l.b)
			if l.fold {
				s = "~" + s
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("requiredLiterals(%q) = %q, want %q", pattern, got, want)
		}
	}
}

func TestASCIILower(t *testing.T) {
	var all []byte
	for i := range 256 {
		all = append(all, byte(i))
	}
	all = append(all, "Hello, WORLD! @[`{ ÀÉ"...)
	for start := range 8 {
		for end := start; end <= len(all); end++ {
			src := all[start:end]
			got := make([]byte, len(src))
			asciiLower(got, src)
			if want := lowerASCII(src); !bytes.Equal(got, want) {
				t.Fatalf("asciiLower(%q) = %q, want %q", src, got, want)
			}
		}
	}
}

// lowerASCII is the obvious asciiLower.
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func TestGrepIgnoreCaseFolds(t *testing.T) {
	r, dir := newTestRegistry(t)
	// U+212A KELVIN SIGN folds to k: the prefilter must not lose it.
	writeFile(t, dir, "a.txt", "TASK\ntas\u212a\nTa\u212AK\nnothing\n")
	got := wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "task", IgnoreCase: true}))
	wantContains(t, got, "a.txt:1:TASK\n", "a.txt:2:tas\u212a\n", "[2 matching lines in 1 file.]")
	got = wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "ta\u212ak", IgnoreCase: true}))
	wantContains(t, got, "a.txt:3:Ta\u212aK\n", "[1 matching line in 1 file.]")
}

func TestGrepSkipsSymlinksAndLargeFiles(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "real/a.txt", "needle\n")
	os.Symlink("real", filepath.Join(dir, "alias"))
	os.Symlink("real/a.txt", filepath.Join(dir, "b.txt"))
	got := wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "needle"}))
	if got != "real/a.txt:1:needle\n[1 matching line in 1 file.]\n" {
		t.Errorf("got:\n%s", got)
	}
	// A link named explicitly is searched (inside the workspace).
	got = wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "needle", Path: "alias"}))
	wantContains(t, got, "real/a.txt:1:needle")

	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(maxGrepFileSize + 1) // sparse: costs no disk
	f.Close()
	got = wantOK(t, call(t, r, "grep", GrepArgs{Pattern: "needle"}))
	wantContains(t, got, "[1 file larger than 64 MiB not searched.]")
}
