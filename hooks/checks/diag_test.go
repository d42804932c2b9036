package checks

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/checks")

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "checks", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./hooks/checks -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (-update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// The workspace of the parse tests: tools ran in /ws/mod.
const (
	testRoot = "/ws"
	testDir  = "/ws/mod"
)

func TestParseOutput(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    outputParser
	}{
		{"vet", outputParser{check: "vet", dir: testDir, root: testRoot, continuation: true}},
		{"gofmt", outputParser{check: "gofmt", dir: testRoot, root: testRoot, stdin: "mod/main.go"}},
		{"staticcheck", outputParser{check: "staticcheck", dir: testDir, root: testRoot}},
		{"golangci", outputParser{check: "golangci-lint", dir: testDir, root: testRoot}},
		{"command", outputParser{check: "lint", dir: testRoot, root: testRoot}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "checks", "parse", tc.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			p := tc.p.parse(string(in))
			var b strings.Builder
			for i, d := range p.diags {
				mark := ""
				if p.typeErrs[i] {
					mark = " [type error]"
				}
				fmt.Fprintf(&b, "diag  path=%q line=%d col=%d%s\n      %q\n", d.Path, d.Line, d.Col, mark, d.Message)
			}
			for _, o := range p.other {
				fmt.Fprintf(&b, "other %q\n", o)
			}
			golden(t, filepath.Join("parse", tc.name+".golden"), b.String())
		})
	}
}

func TestNormalizeAndFilter(t *testing.T) {
	ds := []Diagnostic{
		{Check: "vet", Path: "b.go", Line: 3, Col: 1, Message: "second"},
		{Check: "vet", Path: "a.go", Line: 10, Col: 2, Message: "late"},
		{Check: "lint", Message: "check lint failed (exit status 1):\n    output"},
		{Check: "vet", Path: "a.go", Line: 2, Col: 5, Message: "early"},
		{Check: "gofmt", Path: "a.go", Line: 2, Col: 5, Message: "early"}, // same place and text: one
		{Check: "vet", Path: "a.go", Line: 2, Col: 5, Message: "early"},   // exact repeat
		{Check: "vet", Path: "a.go", Line: 2, Message: "no column"},
		{Check: "vet", Path: "old.go", Line: 1, Col: 1, Message: "not changed"},
		{Check: "vet", Path: "old.go", Line: 7, Col: 3, Message: "undefined: helper"},
		{Check: "vet", Path: "/elsewhere/x.go", Line: 1, Message: "outside"},
	}
	norm := Normalize(ds)
	// Keep old.go's type error, as go vet's are kept.
	kept, dropped := filterChanged(norm, []string{"a.go", "b.go"}, func(i int) bool { return norm[i].Message == "undefined: helper" })
	var b strings.Builder
	for _, d := range kept {
		b.WriteString(d.String() + "\n")
	}
	b.WriteString("--- dropped\n")
	for _, d := range dropped {
		b.WriteString(d.String() + "\n")
	}
	golden(t, "normalize.golden", b.String())
}

func TestReportMessage(t *testing.T) {
	var ds []Diagnostic
	for i := range 35 {
		ds = append(ds, Diagnostic{Check: "vet", Path: fmt.Sprintf("pkg/f%02d.go", i), Line: i + 1, Col: 2, Message: "something is wrong"})
	}
	ds = append(ds, Diagnostic{Check: "ruff", Message: "check ruff failed (exit status 2):\n    error: Failed to parse a.py"})
	r := Result{
		Files:       []string{"a.py", "main.go", "pkg/f00.go"},
		Checks:      []string{"gofmt", "vet", "ruff"},
		Formatted:   []string{"main.go"},
		Diagnostics: Normalize(ds),
	}
	golden(t, "message_capped.golden", r.Message(30)+"\n--- reason\n"+r.Reason()+"\n")

	one := Result{
		Files:       []string{"main.go"},
		Checks:      []string{"gofmt", "vet"},
		Diagnostics: []Diagnostic{{Check: "vet", Path: "main.go", Line: 6, Col: 14, Message: `fmt.Printf format %d has arg "x" of wrong type string`}},
	}
	golden(t, "message_one.golden", one.Message(30)+"\n--- reason\n"+one.Reason()+"\n")
}
