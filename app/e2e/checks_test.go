package e2e

// End-to-end tests of the turn-end checks (hooks/checks): the built binary
// with the real write_file and bash tools, the real gofmt and go vet, and
// the scripted model server.

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

// file writes a file into the workspace before the run.
func (e *e2e) file(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.workspace, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if strings.HasSuffix(rel, ".sh") {
		mode = 0o755
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) readFile(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.workspace, filepath.FromSlash(rel)))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// lastUser returns the last message of request n, which must be a user
// message: the retry pushed by the checks.
func (e *e2e) lastUser(n int) string {
	e.t.Helper()
	reqs := e.requests()
	if len(reqs) <= n {
		e.t.Fatalf("server got %d requests, want more than %d", len(reqs), n)
	}
	msgs := reqs[n].Messages
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleUser {
		e.t.Fatalf("request %d ends with a %s message, want the checks' user message: %+v", n, last.Role, last)
	}
	return last.Content
}

func (e *e2e) wantRequests(n int) {
	e.t.Helper()
	if got := len(e.requests()); got != n {
		e.t.Errorf("server got %d requests, want %d", got, n)
	}
}

const checksGoMod = "module example.com/m\n\ngo 1.22\n"

func TestE2EChecksVetErrorIsFedBackAndFixed(t *testing.T) {
	e := newE2E(t, "checks_vet_fix.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "-p", "write a program that prints x")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d, want %d", r.code, app.ExitOK)
	}
	e.wantRequests(4)
	retry := e.lastUser(2)
	for _, want := range []string{
		`main.go:6:14: fmt.Printf format %d has arg "x" of wrong type string (vet)`,
		"(gofmt, vet)",
		"Fix these problems",
	} {
		if !strings.Contains(retry, want) {
			t.Errorf("retry message lacks %q:\n%s", want, retry)
		}
	}
	if !strings.Contains(r.stderr, "checks pushed feedback to the model (retry 1/3)") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if got := e.readFile("main.go"); !strings.Contains(got, `fmt.Printf("%s\n", "x")`) {
		t.Errorf("main.go = %q", got)
	}
	if !strings.HasSuffix(r.stdout, "Fixed the format verb.\n") {
		t.Errorf("stdout = %q", r.stdout)
	}
}

func TestE2EChecksSyntaxErrorIsReportedByGofmt(t *testing.T) {
	e := newE2E(t, "checks_syntax.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "-p", "write main.go")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	e.wantRequests(4)
	if retry := e.lastUser(2); !strings.Contains(retry, "main.go:5:1: expected operand, found '}' (gofmt)") {
		t.Errorf("retry message:\n%s", retry)
	}
}

func TestE2EChecksFormatWithoutARetryRound(t *testing.T) {
	e := newE2E(t, "checks_format.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "--output", "stream-json", "-p", "write main.go")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	e.wantRequests(2)
	if got, want := e.readFile("main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"; got != want {
		t.Errorf("main.go =\n%s\nwant\n%s", got, want)
	}
	// The check events are on the stream, in order, before the end.
	type event struct {
		Type, Check, Status, Summary string
		Files                        []string
		Outcome                      struct{ Status string }
	}
	var evs []event
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		if strings.HasPrefix(ev.Type, "check_") || ev.Type == "turn_finished" {
			evs = append(evs, ev)
		}
	}
	var got []string
	for _, ev := range evs {
		switch ev.Type {
		case "check_started":
			got = append(got, "start "+ev.Check+" "+strings.Join(ev.Files, ","))
		case "check_finished":
			got = append(got, "end "+ev.Check+" "+ev.Status+" "+ev.Summary)
		default:
			got = append(got, ev.Type+" "+ev.Outcome.Status)
		}
	}
	want := []string{
		"start gofmt main.go",
		"end gofmt fixed formatted main.go",
		"start vet main.go",
		"end vet ok ",
		"turn_finished finished",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check events =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestE2EChecksNoAutoformatFlag(t *testing.T) {
	e := newE2E(t, "checks_no_autoformat.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "--no-autoformat", "-p", "write main.go")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	e.wantRequests(4)
	if retry := e.lastUser(2); !strings.Contains(retry, "main.go:2: not formatted as gofmt formats it") || strings.Contains(retry, "reformatted") {
		t.Errorf("retry message:\n%s", retry)
	}
}

func TestE2EChecksNeverFixedIsCapped(t *testing.T) {
	e := newE2E(t, "checks_never_fixed.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "-p", "write a program that prints x")
	if r.code != app.ExitCapped {
		t.Fatalf("exit %d, want %d", r.code, app.ExitCapped)
	}
	// The first try and 3 retries, each a write and an end of turn.
	e.wantRequests(8)
	for n, line := range map[int]string{2: "main.go:6:14", 4: "main.go:7:14", 6: "main.go:8:14"} {
		if retry := e.lastUser(n); !strings.Contains(retry, line+`: fmt.Printf format %d has arg "x" of wrong type string (vet)`) {
			t.Errorf("retry in request %d lacks %s:\n%s", n, line, retry)
		}
	}
	for _, want := range []string{
		"run capped: retry budget of 3 rounds used up; still open: 1 problem",
		`main.go:9:14: fmt.Printf format %d has arg "x" of wrong type string (vet)`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestE2EChecksSameProblemsTwiceStopEarly(t *testing.T) {
	e := newE2E(t, "checks_no_progress.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "-p", "write a program that prints x")
	if r.code != app.ExitCapped {
		t.Fatalf("exit %d, want %d", r.code, app.ExitCapped)
	}
	e.wantRequests(3)
	if !strings.Contains(r.stderr, "the same feedback was given twice in a row; still open: 1 problem") {
		t.Errorf("stderr = %s", r.stderr)
	}
}

func TestE2EChecksTwoModules(t *testing.T) {
	e := newE2E(t, "checks_two_modules.json")
	e.file("a/go.mod", "module example.com/a\n\ngo 1.22\n")
	e.file("b/go.mod", "module example.com/b\n\ngo 1.22\n")
	r := e.run("--mode", "accept-edits", "-p", "work on both modules")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	e.wantRequests(4)
	retry := e.lastUser(2)
	// b/cmd/tool imports example.com/b/lib: it only type-checks when vet
	// runs from b's module root.
	for _, want := range []string{
		`a/main.go:6:14: fmt.Printf format %d has arg "a" of wrong type string (vet)`,
		"b/lib/lib.go:6:", "fmt.Sprintf format %d has arg name of wrong type string (vet)",
		"files you changed: a/main.go, b/cmd/tool/main.go, b/lib/lib.go.",
		"2 problems:",
	} {
		if !strings.Contains(retry, want) {
			t.Errorf("retry message lacks %q:\n%s", want, retry)
		}
	}
	if strings.Contains(retry, "cmd/tool") && strings.Contains(retry, "cannot find") {
		t.Errorf("b/cmd/tool did not load: vet did not run from b's root:\n%s", retry)
	}
	for _, f := range []string{"a/go.sum", "b/go.sum"} {
		if _, err := os.Stat(filepath.Join(e.workspace, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
}

func TestE2EChecksConfiguredCommand(t *testing.T) {
	e := newE2E(t, "checks_command.json")
	// The "linter" is a shell script that fails on a marker.
	e.file("lint.sh", "#!/bin/sh\nst=0\nfor f in \"$@\"; do\n\tif grep -q FIXME-NOW \"$f\"; then\n\t\tgrep -n FIXME-NOW \"$f\" | sed \"s|^|$f:|\"\n\t\tst=1\n\tfi\ndone\nexit $st\n")
	e.config(`{"checks": {"commands": [{"name": "shlint", "match": "*.sh", "run": ["./lint.sh", "{files}"]}]}}`)
	r := e.run("--mode", "accept-edits", "-p", "write a deploy script")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	e.wantRequests(4)
	retry := e.lastUser(2)
	if !strings.Contains(retry, "deploy.sh:2: # FIXME-NOW: check the target (shlint)") || strings.Contains(retry, "notes.txt") {
		t.Errorf("retry message:\n%s", retry)
	}
}

func TestE2EChecksFileChangedByBash(t *testing.T) {
	e := newE2E(t, "checks_bash.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--yes", "-p", "generate cmd/main.go")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	e.wantRequests(4)
	if retry := e.lastUser(2); !strings.Contains(retry, `cmd/main.go:6:14: fmt.Printf format %d has arg "x" of wrong type string (vet)`) {
		t.Errorf("retry message:\n%s", retry)
	}
}

func TestE2EChecksEditAfterAutoformatIsNotStale(t *testing.T) {
	// The model writes unformatted code with a vet error. gofmt formats
	// the file at turn end; the model's fix with edit_file, made without
	// reading the file again, must not be refused as stale: the only change
	// since its write is tackle's own, and the model was told of it.
	e := newE2E(t, "checks_format_then_edit.json")
	e.file("go.mod", checksGoMod)
	r := e.run("--mode", "accept-edits", "-p", "print x")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d, want %d", r.code, app.ExitOK)
	}
	e.wantRequests(4)
	if retry := e.lastUser(2); !strings.Contains(retry, "gofmt reformatted main.go") {
		t.Errorf("retry message does not mention the formatting:\n%s", retry)
	}
	if got := e.toolResult(3, "call_edit"); strings.Contains(got, "Refusing") {
		t.Errorf("edit refused: %q", got)
	}
	if got := e.readFile("main.go"); !strings.Contains(got, "\tfmt.Printf(\"%s\\n\", \"x\")") {
		t.Errorf("main.go = %q", got)
	}
}
