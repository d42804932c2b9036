package checks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"strconv"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

const badPrintf = `package main

import "fmt"

func main() {
	fmt.Printf("%d\n", "x")
}
`

func TestVetFindingNamesFileAndLine(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": badPrintf}, Config{})
	r := f.check("main.go")
	want := "main.go:6:14: fmt.Printf format %d has arg \"x\" of wrong type string (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Fatalf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	evs := f.takeEvents()
	if fin := finished(t, evs, "vet"); fin.Status != StatusProblems || fin.Problems != 1 {
		t.Errorf("vet finished = %+v", fin)
	}
	if fin := finished(t, evs, "gofmt"); fin.Status != StatusOK {
		t.Errorf("gofmt finished = %+v", fin)
	}
	if s, ok := evs[0].(Started); !ok || s.Check != "gofmt" || !slices.Equal(s.Files, []string{"main.go"}) {
		t.Errorf("first event = %+v", evs[0])
	}
	res := f.c.TurnEnd(context.Background())
	if res.Action != hooks.TurnContinueWithMessages || len(res.Messages) != 1 || res.Messages[0].Role != chat.RoleUser {
		t.Fatalf("turn end = %+v", res)
	}
	if !strings.Contains(res.Messages[0].Content, strings.TrimSuffix(want, "\n")) {
		t.Errorf("message does not list the finding:\n%s", res.Messages[0].Content)
	}
	if res.Reason != "1 problem\n  "+strings.TrimSuffix(want, "\n") {
		t.Errorf("reason = %q", res.Reason)
	}
}

func TestSameFindingsGiveTheSameMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": badPrintf}, Config{})
	f.c.Track("main.go")
	a := f.c.TurnEnd(context.Background())
	b := f.c.TurnEnd(context.Background())
	if a.Messages[0].Content != b.Messages[0].Content || a.Reason != b.Reason {
		t.Errorf("two rounds on the same code differ:\n%s\n---\n%s", a.Messages[0].Content, b.Messages[0].Content)
	}
}

func TestSyntaxErrorIsReportedByGofmtAndVetIsSkipped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":  goMod,
		"main.go": "package main\n\nfunc main() {\n\tx := \n}\n",
		"ok/ok.go": `package ok

import "fmt"

func F() { fmt.Printf("%s", 1) }
`,
	}, Config{})
	r := f.check("main.go", "ok/ok.go")
	want := "main.go:5:1: expected operand, found '}' (gofmt)\n" +
		"main.go:5:3: expected ';', found 'EOF' (gofmt)\n" +
		"main.go:5:3: expected '}', found 'EOF' (gofmt)\n" +
		"ok/ok.go:5:24: fmt.Printf format %s has arg 1 of wrong type int (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Fatalf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	evs := f.takeEvents()
	if fin := finished(t, evs, "gofmt"); fin.Status != StatusProblems || fin.Problems != 3 {
		t.Errorf("gofmt = %+v", fin)
	}
	if fin := finished(t, evs, "vet"); !strings.Contains(fin.Summary, "not run on main.go (syntax errors)") {
		t.Errorf("vet = %+v", fin)
	}
}

func TestUnformattedFileIsFormattedInPlace(t *testing.T) {
	t.Parallel()
	src := "package main\nfunc main() {\nx:=1\n_ = x}\n"
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": src}, Config{})
	if err := os.Chmod(filepath.Join(f.dir, "main.go"), 0o640); err != nil {
		t.Fatal(err)
	}
	f.c.Track("main.go")
	res := f.c.TurnEnd(context.Background())
	if res.Action != hooks.TurnFinish || res.Reason != "gofmt formatted main.go" {
		t.Fatalf("turn end = %+v", res)
	}
	if got, want := f.read("main.go"), "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n"; got != want {
		t.Errorf("main.go =\n%s\nwant\n%s", got, want)
	}
	fi, err := os.Stat(filepath.Join(f.dir, "main.go"))
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after formatting = %v (%v), want 0640", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(f.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if fin := finished(t, f.takeEvents(), "gofmt"); fin.Status != StatusFixed || fin.Summary != "formatted main.go" {
		t.Errorf("gofmt = %+v", fin)
	}
}

func TestFormattingIsMentionedInTheRetryMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":  goMod,
		"main.go": "package main\nimport \"fmt\"\nfunc main() {\nfmt.Printf(\"%d\", \"x\")}\n",
	}, Config{})
	f.c.Track("main.go")
	res := f.c.TurnEnd(context.Background())
	if res.Action != hooks.TurnContinueWithMessages {
		t.Fatalf("turn end = %+v", res)
	}
	msg := res.Messages[0].Content
	// vet ran on the formatted file: its position is the new one.
	for _, want := range []string{"gofmt reformatted main.go in place; read it again", "main.go:6:14: fmt.Printf format %d"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestNoAutoformatReportsInsteadOfFormatting(t *testing.T) {
	t.Parallel()
	src := "package main\n\nfunc main() {\nx:=1\n\t_ = x\n}\n"
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": src}, Config{NoAutoformat: true})
	r := f.check("main.go")
	want := "main.go:4: not formatted as gofmt formats it (gofmt -d main.go shows the change; gofmt -w fixes it) (gofmt)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	// An unformatted file is still vetted.
	src = "package main\n\nimport \"fmt\"\n\nfunc main() {\nfmt.Printf(\"%d\", \"x\")\n}\n"
	write(t, f.dir, "main.go", src)
	r = f.check("main.go")
	want = "main.go:6: not formatted as gofmt formats it (gofmt -d main.go shows the change; gofmt -w fixes it) (gofmt)\n" +
		"main.go:6:13: fmt.Printf format %d has arg \"x\" of wrong type string (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	if f.read("main.go") != src {
		t.Errorf("main.go was changed")
	}
}

func TestTwoModulesAreVettedFromTheirRoots(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"a/go.mod":  "module example.com/a\n\ngo 1.22\n",
		"a/main.go": badPrintf,
		// A package that does not load stops go vet in its module,
		// not in the other.
		"a/broken/x.go": "package broken\n\nimport \"example.com/nowhere\"\n\nvar _ = nowhere.X\n",
		"b/go.mod":      "module example.com/b\n\ngo 1.22\n",
		"b/lib/lib.go":  "package lib\n\nimport \"fmt\"\n\nfunc F() string { return fmt.Sprintf(\"%s\") }\n",
		// Imports example.com/b/lib: loads only from b's root.
		"b/cmd/tool/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/b/lib\"\n)\n\nfunc main() { fmt.Printf(\"%d\", lib.F()) }\n",
	}, Config{})
	r := f.check("a/main.go", "b/lib/lib.go", "a/broken/x.go", "b/cmd/tool/main.go")
	want := "a/broken/x.go:3:8: cannot find module providing package example.com/nowhere: import lookup disabled by -mod=readonly (vet)\n" +
		"\tno module in go.mod provides it; to add one: go get example.com/nowhere\n" +
		"b/cmd/tool/main.go:9:27: fmt.Printf format %d has arg lib.F() of wrong type string (vet)\n" +
		"b/lib/lib.go:5:39: fmt.Sprintf format %s reads arg #1, but call has 0 args (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a", "go.mod")); string(b) != "module example.com/a\n\ngo 1.22\n" {
		t.Errorf("go.mod was rewritten:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "a", "go.sum")); err == nil {
		t.Errorf("go.sum was created")
	}
}

func TestPackageAndItsImporterChangedTogether(t *testing.T) {
	t.Parallel()
	// go vet caches the facts-only run of a dependency like a full run
	// without findings: vetting cmd/y and lib in two go commands could
	// lose lib's finding, depending on which finished first. One command
	// per module vets lib in full.
	f := newFixture(t, map[string]string{
		"go.mod":        goMod,
		"lib/lib.go":    "package lib\n\nfunc F() string { return \"x\" }\n",
		"cmd/x/main.go": "package main\n\nimport \"example.com/m/lib\"\n\nfunc main() { println(lib.F()) }\n",
		"cmd/y/main.go": "package main\n\nimport \"example.com/m/lib\"\n\nfunc main() { println(lib.F()) }\n",
	}, Config{})
	if r := f.check("cmd/x/main.go"); len(r.Diagnostics) != 0 {
		t.Fatalf("round 1: %v", r.Diagnostics)
	}
	write(t, f.dir, "lib/lib.go", "package lib\n\nimport \"fmt\"\n\nfunc F() string { return fmt.Sprintf(\"%d\", \"x\") }\n")
	r := f.check("cmd/y/main.go", "lib/lib.go")
	want := "lib/lib.go:5:39: fmt.Sprintf format %d has arg \"x\" of wrong type string (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("round 2 diagnostics =\n%s\nwant\n%s", got, want)
	}
}

func TestLooseFileIsVettedWithItsPackage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"scripts/a.go":     "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Printf(\"%d\", \"x\"); helper() }\n",
		"scripts/b.go":     "package main\n\nfunc helper() {}\n",
		"scripts/other.go": "//go:build ignore\n\npackage main\n\nfunc main() {}\n",
		"scripts/gen.go":   "//go:build ignore\n\npackage main\n\nimport \"fmt\"\n\nfunc main() { fmt.Printf(\"%s\") }\n",
	}, Config{})
	r := f.check("scripts/a.go", "scripts/gen.go")
	want := "scripts/a.go:5:27: fmt.Printf format %d has arg \"x\" of wrong type string (vet)\n" +
		"scripts/gen.go:7:27: fmt.Printf format %s reads arg #1, but call has 0 args (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
}

func TestFindingsInUnchangedFilesAreDropped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":  goMod,
		"main.go": badPrintf,
		"new.go":  "package main\n\nfunc unused() {}\n",
	}, Config{})
	r := f.check("new.go")
	if len(r.Diagnostics) != 0 {
		t.Errorf("diagnostics = %v", r.Diagnostics)
	}
	if fin := finished(t, f.takeEvents(), "vet"); fin.Status != StatusOK || fin.Summary != "1 problem in unchanged files not reported" {
		t.Errorf("vet = %+v", fin)
	}
}

func TestTypeErrorInUnchangedFileOfTheChangedPackageIsKept(t *testing.T) {
	t.Parallel()
	// The model renamed helper in a.go; b.go still calls the old name.
	f := newFixture(t, map[string]string{
		"go.mod": goMod,
		"a.go":   "package main\n\nfunc helper2() {}\n",
		"b.go":   "package main\n\nfunc main() { helper() }\n",
	}, Config{})
	r := f.check("a.go")
	want := "b.go:3:15: undefined: helper (vet)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
}

func TestMissingImportIsADiagnosticAndOfflineDependencyAnError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":  goMod,
		"main.go": "package main\n\nimport \"github.com/nowhere/pkg\"\n\nfunc main() { pkg.F() }\n",
	}, Config{})
	r := f.check("main.go")
	if got := diagStrings(r.Diagnostics); got != "main.go:3:8: cannot find module providing package github.com/nowhere/pkg: import lookup disabled by -mod=readonly (vet)\n\tno module in go.mod provides it; to add one: go get github.com/nowhere/pkg\n" {
		t.Errorf("diagnostics = %s", got)
	}

	// A required module that is not in the module cache: vet cannot
	// download it (GOPROXY=off), and the model cannot fix that.
	f = newFixture(t, map[string]string{
		"go.mod":  goMod + "\nrequire github.com/nowhere/pkg v1.2.3\n",
		"go.sum":  "github.com/nowhere/pkg v1.2.3 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\ngithub.com/nowhere/pkg v1.2.3/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
		"main.go": "package main\n\nimport \"github.com/nowhere/pkg\"\n\nfunc main() { pkg.F() }\n",
	}, Config{})
	start := time.Now()
	f.c.Track("main.go")
	res := f.c.TurnEnd(context.Background())
	if res.Action != hooks.TurnFinish || !strings.Contains(res.Reason, "GOPROXY=off") || !strings.Contains(res.Reason, "go mod download") {
		t.Errorf("turn end = %+v", res)
	}
	if fin := finished(t, f.takeEvents(), "vet"); fin.Status != StatusError {
		t.Errorf("vet = %+v", fin)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("an offline dependency took %v", d)
	}
}

func TestFilesUnderTestdataAreNotChecked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod, "testdata/bad.go": "package x\nfunc {\n"}, Config{})
	r := f.check("testdata/bad.go")
	if len(r.Diagnostics) != 0 || len(r.Checks) != 0 {
		t.Errorf("result = %+v", r)
	}
	if evs := f.takeEvents(); len(evs) != 0 {
		t.Errorf("events = %+v", evs)
	}
}

func TestDeletedFileIsNotChecked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod}, Config{})
	if r := f.check("gone.go"); len(r.Checks) != 0 {
		t.Errorf("result = %+v", r)
	}
}

func TestCommandCheckForOtherFiles(t *testing.T) {
	t.Parallel()
	lint := `#!/bin/sh
# Fails on a marker, like a linter would.
status=0
for f in "$@"; do
	if grep -q FIXME-NOW "$f"; then
		grep -n FIXME-NOW "$f" | sed "s|^|$f:|"
		status=1
	fi
done
exit $status
`
	f := newFixture(t, map[string]string{
		"lint.sh":     lint,
		"run.sh":      "#!/bin/sh\necho ok\n# FIXME-NOW later\n",
		"clean.sh":    "#!/bin/sh\necho fine\n",
		"notes.txt":   "FIXME-NOW\n",
		"old/prev.sh": "# FIXME-NOW old\n",
	}, Config{Commands: []Command{{Name: "shlint", Match: "*.sh", Run: []string{"./lint.sh", "{files}"}}}})
	r := f.check("run.sh", "clean.sh", "notes.txt")
	want := "run.sh:3: # FIXME-NOW later (shlint)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	evs := f.takeEvents()
	if s, ok := evs[0].(Started); !ok || s.Check != "shlint" || !slices.Equal(s.Files, []string{"clean.sh", "run.sh"}) {
		t.Errorf("started = %+v", evs[0])
	}
	if fin := finished(t, evs, "shlint"); fin.Status != StatusProblems || fin.Problems != 1 {
		t.Errorf("finished = %+v", fin)
	}
}

func TestCommandOutputWithoutPositionsIsTheDiagnostic(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"check.sh": "#!/bin/sh\necho \"bad style in $1\"\necho 'second line'\nexit 3\n",
		"a.py":     "x=1\n",
	}, Config{Commands: []Command{{Match: "*.py", Run: []string{"./check.sh", "--files={files}"}}}})
	r := f.check("a.py")
	want := "check check.sh failed (exit status 3):\n    bad style in --files=a.py\n    second line\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%q\nwant\n%q", got, want)
	}
}

func TestMissingLinterAndCommandAreReportedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": "package main\n\nfunc main() {}\n", "a.py": ""}, Config{
		Env:      []string{"PATH=" + filepath.Dir(goBinary(t)), "HOME=" + os.Getenv("HOME")},
		Linters:  []string{"staticcheck", "golangci-lint"},
		Commands: []Command{{Match: "*.py", Run: []string{"ruff", "check", "{files}"}}},
	})
	f.check("main.go", "a.py")
	ws := warnings(f.takeEvents())
	if len(ws) != 3 || !strings.Contains(strings.Join(ws, "\n"), "linter staticcheck is enabled but not installed") ||
		!strings.Contains(strings.Join(ws, "\n"), "check ruff: ruff not found") {
		t.Errorf("warnings = %q", ws)
	}
	f.check()
	if ws := warnings(f.takeEvents()); len(ws) != 0 {
		t.Errorf("warned again: %q", ws)
	}
}

func TestLinterOutputIsParsed(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	// A stand-in for staticcheck: what it prints, where it runs.
	write(t, bin, "staticcheck.sh", "#!/bin/sh\npwd > \"$0.dir\"\necho \"$@\" > \"$0.args\"\necho 'main.go:5:2: this value of x is never used (SA4006)'\necho 'other.go:1:1: old finding (ST1000)'\nexit 1\n")
	if err := os.Rename(filepath.Join(bin, "staticcheck.sh"), filepath.Join(bin, "staticcheck")); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string]string{
		"mod/go.mod":  goMod,
		"mod/main.go": "package main\n\nfunc main() {}\n",
	}, Config{
		Env:     []string{"PATH=" + bin + string(os.PathListSeparator) + filepath.Dir(goBinary(t)), "HOME=" + os.Getenv("HOME")},
		Linters: []string{"staticcheck"},
	})
	r := f.check("mod/main.go")
	want := "mod/main.go:5:2: this value of x is never used (SA4006) (staticcheck)\n"
	if got := diagStrings(r.Diagnostics); got != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", got, want)
	}
	if dir, _ := os.ReadFile(filepath.Join(bin, "staticcheck.dir")); strings.TrimSpace(string(dir)) != filepath.Join(f.dir, "mod") {
		t.Errorf("staticcheck ran in %s", dir)
	}
	if args, _ := os.ReadFile(filepath.Join(bin, "staticcheck.args")); strings.TrimSpace(string(args)) != "." {
		t.Errorf("staticcheck args = %q", args)
	}
}

func TestCommandTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		// The child keeps the output pipe open: only killing the
		// group ends the check.
		"slow.sh": "#!/bin/sh\nsleep 60 &\nwait\n",
		"a.txt":   "",
	}, Config{Commands: []Command{{Match: "*.txt", Run: []string{"./slow.sh"}, Timeout: 300 * time.Millisecond}}})
	start := time.Now()
	r := f.check("a.txt")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the check took %v", d)
	}
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "timed out after 300ms") || len(r.Diagnostics) != 0 {
		t.Errorf("result = %+v", r)
	}
}

func TestCancelStopsTheRound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"hang.sh": "#!/bin/sh\nexec sleep 60\n", "a.txt": ""},
		Config{Commands: []Command{{Match: "*.txt", Run: []string{"./hang.sh"}}}})
	started := make(chan struct{})
	f.c.cfg.Report = func(e Event) {
		if _, ok := e.(Started); ok {
			close(started)
		}
	}
	f.c.Track("a.txt")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() { done <- f.c.Check(ctx) }()
	<-started // the command is about to start (or has)
	cancel()
	r := <-done
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "context canceled") {
		t.Errorf("result = %+v", r)
	}
}

func TestHooksTrackFileToolsAndBash(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":              goMod,
		"main.go":             "package main\n\nfunc main() {}\n",
		"node_modules/x/x.go": "package x\n",
	}, Config{})
	reg := hooks.NewRegistry()
	f.c.Register(reg)
	ctx := context.Background()

	reg.RunPromptSubmit(ctx, &hooks.PromptInput{}, nil)
	// write_file through the real tool, then its post_tool_call.
	call := chat.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"path":"pkg/../lib.go","content":"package main\n"}`}
	res, err := f.reg.Run(ctx, call)
	if err != nil || res.Status != chat.StatusOK {
		t.Fatalf("write_file: %+v %v", res, err)
	}
	reg.RunPostToolCall(ctx, &hooks.PostToolInput{Call: call, Result: res}, nil)
	// A failed edit changes nothing.
	bad := chat.ToolCall{ID: "e1", Name: "edit_file", Arguments: `{"path":"main.go","old_string":"nope","new_string":"x"}`}
	reg.RunPostToolCall(ctx, &hooks.PostToolInput{Call: bad, Result: chat.ToolResult{Status: chat.StatusError}}, nil)
	// A read changes nothing.
	read := chat.ToolCall{ID: "r1", Name: "read_file", Arguments: `{"path":"main.go"}`}
	reg.RunPostToolCall(ctx, &hooks.PostToolInput{Call: read, Result: chat.ToolResult{Status: chat.StatusOK}}, nil)

	// bash: snapshot before, change files, compare after.
	sh := chat.ToolCall{ID: "b1", Name: "bash", Arguments: `{"command":"..."}`}
	if out, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: sh}, 0, nil); out.Action != hooks.ToolContinue {
		t.Fatalf("pre_tool_call = %+v", out)
	}
	write(t, f.dir, "main.go", "package main\n\nfunc main() { }\n")
	write(t, f.dir, "gen/new.go", "package gen\n")
	write(t, f.dir, "notes.md", "not checked\n")
	write(t, f.dir, "node_modules/x/x.go", "package x // changed\n")
	reg.RunPostToolCall(ctx, &hooks.PostToolInput{Call: sh, Result: chat.ToolResult{Status: chat.StatusError}}, nil)

	if got, want := f.c.Changed(), []string{"gen/new.go", "lib.go", "main.go"}; !slices.Equal(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
	// The next run starts afresh.
	reg.RunPromptSubmit(ctx, &hooks.PromptInput{}, nil)
	if got := f.c.Changed(); len(got) != 0 {
		t.Errorf("changed after a new prompt = %v", got)
	}
}

func TestTurnEndHookThroughTheRegistry(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": badPrintf}, Config{})
	reg := hooks.NewRegistry(hooks.WithDefaultTimeout(time.Millisecond))
	f.c.Register(reg)
	reg.OnTurnEnd(hooktest.TurnEnd("later", nil))
	f.c.Track("main.go")
	var tr hooktest.Trace
	res, idx := reg.RunTurnEnd(context.Background(), &hooks.TurnEndInput{}, 0, tr.Record)
	if res.Action != hooks.TurnContinueWithMessages || idx != 0 {
		t.Fatalf("turn end = %+v at %d (trace %s)", res, idx, tr.String())
	}
	// Nothing changed: the hook ends the turn without running anything.
	f.c.Reset()
	f.takeEvents()
	if res, _ := reg.RunTurnEnd(context.Background(), &hooks.TurnEndInput{}, 0, nil); res.Action != hooks.TurnFinish {
		t.Errorf("turn end with no changes = %+v", res)
	}
	if evs := f.takeEvents(); len(evs) != 0 {
		t.Errorf("events with no changes = %+v", evs)
	}
}

// TestSubagentTurnsJoinTheParentsTurn: a subagent's prompt does not
// forget the files its parent's turn changed, its writes join them, and
// its turn end checks nothing: the parent's turn end checks them all.
func TestSubagentTurnsJoinTheParentsTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": badPrintf, "lib.go": "package main\n"}, Config{})
	reg := hooks.NewRegistry()
	f.c.Register(reg)
	ctx := context.Background()
	child := hooks.WithAgent(ctx, hooks.Agent{ID: "call_t", Parent: hooks.MainAgent, Type: "general"})

	reg.RunPromptSubmit(ctx, &hooks.PromptInput{}, nil)
	f.c.Track("lib.go")
	reg.RunPromptSubmit(child, &hooks.PromptInput{}, nil)
	// The write itself happened before (main.go has the bad Printf):
	// the hook sees its call and result.
	call := chat.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"path":"main.go","content":"..."}`}
	reg.RunPostToolCall(child, &hooks.PostToolInput{Call: call, Result: chat.ToolResult{Status: chat.StatusOK}}, nil)
	if got, want := f.c.Changed(), []string{"lib.go", "main.go"}; !slices.Equal(got, want) {
		t.Fatalf("changed after the subagent = %v, want %v", got, want)
	}
	if res, _ := reg.RunTurnEnd(child, &hooks.TurnEndInput{}, 0, nil); res.Action != hooks.TurnFinish {
		t.Errorf("the subagent's turn end = %+v", res)
	}
	if evs := f.takeEvents(); len(evs) != 0 {
		t.Errorf("the subagent's turn end ran checks: %+v", evs)
	}
	if res, _ := reg.RunTurnEnd(ctx, &hooks.TurnEndInput{}, 0, nil); res.Action != hooks.TurnContinueWithMessages || !strings.Contains(res.Messages[0].Content, "main.go:6:14") {
		t.Errorf("the parent's turn end = %+v", res)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	reg := (*fakeInspector)(nil)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Workspace: "/w"}, "Tools is required"},
		{Config{Workspace: "rel", Tools: reg}, "not an absolute path"},
		{Config{Workspace: "/w", Tools: reg, Linters: []string{"lintx"}}, `unknown linter "lintx"`},
		{Config{Workspace: "/w", Tools: reg, Commands: []Command{{Match: "*.py"}}}, "run is empty"},
		{Config{Workspace: "/w", Tools: reg, Commands: []Command{{Run: []string{"x"}}}}, "match is empty"},
		{Config{Workspace: "/w", Tools: reg, Commands: []Command{{Match: "[", Run: []string{"x"}}}}, "not a valid pattern"},
		{Config{Workspace: "/w", Tools: reg, Commands: []Command{{Name: "vet", Match: "*", Run: []string{"x"}}}}, `"vet" is taken`},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// fakeInspector resolves nothing; for tests that never track through it.
type fakeInspector struct{}

func (*fakeInspector) Inspect(chat.ToolCall) (tools.CallInfo, error) { return tools.CallInfo{}, nil }

// goBinary is the go command the tests run with.
func goBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	return p
}

func TestNewerGoInGoModIsAnErrorNotADownload(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.99\n\ntoolchain go1.99.1\n",
		"main.go": "package main\n\nfunc main() {}\n",
	}, Config{Env: []string{"PATH=" + filepath.Dir(goBinary(t)), "HOME=" + os.Getenv("HOME"), "GOTOOLCHAIN=auto"}})
	f.c.Track("main.go")
	res := f.c.TurnEnd(context.Background())
	if res.Action != hooks.TurnFinish || !strings.Contains(res.Reason, "vet .: go: go.mod requires go >= 1.99") {
		t.Errorf("turn end = %+v", res)
	}
	if fin := finished(t, f.takeEvents(), "vet"); fin.Status != StatusError {
		t.Errorf("vet = %+v", fin)
	}
}

// TestCommandEnvironmentIsAllowListed: a check command gets the variables
// on the allow list only, as bash does (issue 21 class 8): a secret under
// a name no pattern knows, or a proxy URL with credentials, stays with
// tackle; a configured addition gets through.
func TestCommandEnvironmentIsAllowListed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"env.sh": "#!/bin/sh\nenv | sed 's/^/x.txt:1: /'\nexit 1\n",
		"x.txt":  "",
	}, Config{
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "MYSQL_PWD=mysql-pw-0123", "GITHUB_PAT=github_pat_0123",
			"npm_config__authToken=npm-0123", "DOCKER_AUTH_CONFIG={}", "HTTPS_PROXY=http://u:pw-0123@proxy:3128", "GOPATH=/home/u/go", "MY_TOOL_HOME=/opt/t"},
		EnvAllow: []string{"MY_TOOL_*"},
		Commands: []Command{{Match: "*.txt", Run: []string{"./env.sh"}}},
	})
	got := diagStrings(f.check("x.txt").Diagnostics)
	for _, gone := range []string{"MYSQL_PWD", "GITHUB_PAT", "npm_config", "DOCKER_AUTH", "HTTPS_PROXY", "pw-0123"} {
		if strings.Contains(got, gone) {
			t.Errorf("the check's environment has %s:\n%s", gone, got)
		}
	}
	for _, want := range []string{"GOPATH=/home/u/go", "MY_TOOL_HOME=/opt/t", "HOME=/home/u"} {
		if !strings.Contains(got, want) {
			t.Errorf("the check's environment lacks %s:\n%s", want, got)
		}
	}
}

// TestCheckCommandDoesNotImportWorkspaceModules: a check `python3 -m
// py_compile {files}` imported a py_compile.py the model wrote in the
// workspace (issue 21 class 6), and any module py_compile imports could
// be shadowed the same way (textwrap.py). Checks run with
// PYTHONSAFEPATH=1. A control run without it shows the plant works.
func TestCheckCommandDoesNotImportWorkspaceModules(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	for _, shadow := range []string{"py_compile.py", "textwrap.py"} {
		mark := filepath.Join(t.TempDir(), "imported")
		plant := "open(" + strconv.Quote(mark) + ", 'w').close()\n"
		f := newFixture(t, map[string]string{shadow: plant, "a.py": "x = 1\n"}, Config{
			Env:      []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")},
			Commands: []Command{{Name: "pycompile", Match: "*.py", Run: []string{"python3", "-m", "py_compile", "{files}"}}},
		})
		control := exec.Command(python, "-m", "py_compile", "a.py")
		control.Dir = f.dir
		control.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		control.Run()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("control: python3 -m py_compile did not import the workspace's %s", shadow)
		}
		os.Remove(mark)
		f.check("a.py")
		if _, err := os.Stat(mark); err == nil {
			t.Errorf("the check imported the workspace's %s", shadow)
		}
	}
}

// The checks run in the sandbox when they have one: go vet still finds
// what it finds (with the sandbox's own build cache), and a check command
// — code the model may have written, or a module it imports — cannot
// write outside the workspace.
func TestChecksRunInTheSandbox(t *testing.T) {
	t.Parallel()
	sandboxtest.Require(t, sandbox.LevelLandlock)
	outside, err := os.MkdirTemp("/var/tmp", "tackle-check-")
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	escape := "#!/bin/sh\necho pwned > " + filepath.Join(outside, "pwned") + " 2>/dev/null\nexit 0\n"
	f := newFixture(t, map[string]string{"go.mod": goMod, "main.go": badPrintf, "escape.sh": escape, "x.txt": "x\n"},
		Config{Commands: []Command{{Name: "escape", Match: "*.txt", Run: []string{"sh", "./escape.sh", "{files}"}}}})
	// The build cache of the tests' own go: warm, so vet is quick.
	out, err := exec.Command(goBinary(t), "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.TrimSpace(string(out))
	sb, rep := tools.NewSandbox(sandbox.Policy{Workspace: f.dir, TempDir: t.TempDir(), Writable: []string{cache}}, tools.WithSandboxEnv("GOCACHE="+cache))
	if sb == nil {
		t.Fatalf("no sandbox: %v", rep)
	}
	f.c.cfg.Sandbox = sb
	r := f.check("main.go", "x.txt")
	if got := diagStrings(r.Diagnostics); !strings.Contains(got, "main.go:6:14: fmt.Printf format %d") {
		t.Errorf("go vet in the sandbox found:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Error("a check command wrote outside the workspace")
	}
}
