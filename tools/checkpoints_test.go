package tools

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func newCheckpointed(t *testing.T) (*Registry, *Checkpoints, string) {
	t.Helper()
	dir := t.TempDir()
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cp := NewCheckpoints(ws)
	return NewRegistry(ws, WithCheckpoints(cp)), cp, ws.Dir()
}

func readBack(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUndoTurnByTurn: each undo reverts the last turn that changed files:
// edits put back, created files deleted, in the right order when a file
// changed in several turns; bash commands are listed as not tracked.
func TestUndoTurnByTurn(t *testing.T) {
	r, cp, dir := newCheckpointed(t)
	writeFile(t, dir, "b.txt", "one\n")

	cp.Begin("first")
	wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "sub/a.txt", Content: "new file\n"}))
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "b.txt"}))
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "b.txt", OldString: "one", NewString: "two"}))
	cp.Begin("second")
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "b.txt", OldString: "two", NewString: "three"}))
	wantOK(t, call(t, r, "bash", BashArgs{Command: "echo hi > c.txt"}))
	cp.Begin("third: nothing changed")

	res, err := cp.Undo(1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, dir, "b.txt"); got != "two\n" || !slices.Equal(res.Restored, []string{"b.txt"}) || len(res.Deleted) != 0 {
		t.Errorf("after one undo: b.txt %q, result %+v", got, res)
	}
	if len(res.Untracked) != 1 || !strings.Contains(res.Untracked[0], "echo hi > c.txt") {
		t.Errorf("untracked %q, want the bash command", res.Untracked)
	}
	if readBack(t, dir, "c.txt") != "hi\n" {
		t.Error("undo touched what bash wrote")
	}

	res, err = cp.Undo(1, false)
	if err != nil {
		t.Fatal(err)
	}
	if b, a := readBack(t, dir, "b.txt"), readBack(t, dir, "sub/a.txt"); b != "one\n" || a != "<absent>" || !slices.Equal(res.Deleted, []string{"sub/a.txt"}) {
		t.Errorf("after two undos: b.txt %q, sub/a.txt %q, result %+v", b, a, res)
	}
	if _, err := cp.Undo(1, false); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("a third undo: %v, want ErrNothingToUndo", err)
	}
}

// TestUndoSeveralTurnsAtOnce: /undo 2 puts a file changed in both turns
// back to before the first.
func TestUndoSeveralTurnsAtOnce(t *testing.T) {
	r, cp, dir := newCheckpointed(t)
	writeFile(t, dir, "f.txt", "v1\n")
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "f.txt"}))
	for _, v := range []string{"v2", "v3"} {
		cp.Begin("to " + v)
		wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "f.txt", Content: v + "\n"}))
	}
	res, err := cp.Undo(2, false)
	if err != nil || len(res.Turns) != 2 {
		t.Fatalf("Undo(2) = %+v, %v", res, err)
	}
	if got := readBack(t, dir, "f.txt"); got != "v1\n" {
		t.Errorf("f.txt %q, want v1", got)
	}
}

// TestUndoDoesNotOverwriteOthersChanges: a file changed since tackle wrote
// it (by the user, an editor, a command) is not overwritten unless forced.
func TestUndoDoesNotOverwriteOthersChanges(t *testing.T) {
	r, cp, dir := newCheckpointed(t)
	cp.Begin("write")
	wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "f.txt", Content: "tackle's\n"}))
	writeFile(t, dir, "f.txt", "the user's own edit\n")

	res, err := cp.Undo(1, false)
	if err != nil || !slices.Equal(res.Changed, []string{"f.txt"}) || len(res.Deleted) != 0 {
		t.Fatalf("Undo = %+v, %v; want f.txt listed as changed", res, err)
	}
	if got := readBack(t, dir, "f.txt"); got != "the user's own edit\n" {
		t.Fatalf("the user's edit was overwritten: %q", got)
	}
	if cp.Turns() != 1 {
		t.Error("a refused undo dropped the turn")
	}
	if res, err = cp.Undo(1, true); err != nil || !slices.Equal(res.Deleted, []string{"f.txt"}) {
		t.Fatalf("forced Undo = %+v, %v", res, err)
	}
	if got := readBack(t, dir, "f.txt"); got != "<absent>" {
		t.Errorf("f.txt %q after a forced undo, want it deleted", got)
	}
}

// TestUndoStaysInTheWorkspace: a path of the record swapped for a symbolic
// link to a file outside the workspace after the edit: undo does not write
// through it. It reports the file as changed; forced, it replaces the link
// itself with the file's old content, and the file outside is untouched.
func TestUndoStaysInTheWorkspace(t *testing.T) {
	r, cp, dir := newCheckpointed(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("tackle's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "f.txt", "before\n")
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "f.txt"}))
	cp.Begin("edit")
	wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "f.txt", Content: "tackle's\n"}))
	if err := os.Remove(filepath.Join(dir, "f.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "f.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := cp.Undo(1, false)
	if err != nil || !slices.Equal(res.Changed, []string{"f.txt"}) {
		t.Errorf("Undo through a link out = %+v, %v; want f.txt reported as changed", res, err)
	}
	if _, err := cp.Undo(1, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "tackle's\n" {
		t.Errorf("the file outside the workspace was written: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "f.txt")); err != nil || !fi.Mode().IsRegular() || readBack(t, dir, "f.txt") != "before\n" {
		t.Errorf("f.txt after a forced undo: %v, %v; want the old content in a regular file", fi, err)
	}
}

// TestSessionDiff: per file, from before the session's first change to now.
func TestSessionDiff(t *testing.T) {
	r, cp, dir := newCheckpointed(t)
	writeFile(t, dir, "b.txt", "one\ntwo\n")
	wantOK(t, call(t, r, "read_file", ReadFileArgs{Path: "b.txt"}))
	cp.Begin("change")
	wantOK(t, call(t, r, "edit_file", EditFileArgs{Path: "b.txt", OldString: "two", NewString: "TWO"}))
	wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "a.txt", Content: "hello\n"}))
	diffs := cp.SessionDiff()
	if len(diffs) != 2 || diffs[0].Path != "a.txt" || !diffs[0].Created || diffs[1].Path != "b.txt" {
		t.Fatalf("diffs %+v", diffs)
	}
	if d := diffs[0].Diff; !strings.Contains(d, "--- /dev/null") || !strings.Contains(d, "+hello") {
		t.Errorf("a.txt diff:\n%s", d)
	}
	if d := diffs[1].Diff; !strings.Contains(d, "-two") || !strings.Contains(d, "+TWO") || !strings.Contains(d, "--- a/b.txt") {
		t.Errorf("b.txt diff:\n%s", d)
	}
}

// TestUndoRefusesAPathOutOfTheWorkspace: a record naming a path outside
// the workspace (which the tools never write) cannot make undo write
// there: the workspace's root refuses it.
func TestUndoRefusesAPathOutOfTheWorkspace(t *testing.T) {
	_, cp, dir := newCheckpointed(t)
	target := filepath.Join(filepath.Dir(dir), "escape.txt")
	cp.Begin("crafted")
	cp.wrote("../escape.txt", []byte("planted\n"), true, nil)
	if _, err := cp.Undo(1, true); err == nil {
		t.Error("undo of a path out of the workspace succeeded")
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written outside the workspace: %v", err)
	}
}

func TestWorkspaceFiles(t *testing.T) {
	_, _, dir := newCheckpointed(t)
	for _, f := range []string{"a.go", "sub/b.go", "ignored.log", ".git/config", "sub/deep/c.txt"} {
		writeFile(t, dir, f, "x")
	}
	writeFile(t, dir, ".gitignore", "*.log\n")
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	files, cut := ws.Files(t.Context(), 100)
	if want := []string{".gitignore", "a.go", "sub/b.go", "sub/deep/c.txt"}; !slices.Equal(files, want) || cut {
		t.Errorf("Files = %q (cut %v), want %q", files, cut, want)
	}
	if files, cut := ws.Files(t.Context(), 2); len(files) != 2 || !cut {
		t.Errorf("Files with a limit of 2 = %q, cut %v", files, cut)
	}
}

// TestReadMention: a mentioned file is read inside the workspace only —
// not through .., an absolute path out or a symbolic link out — not a
// binary, at most MaxMention bytes, and not when allowed refuses it.
func TestReadMention(t *testing.T) {
	_, _, dir := newCheckpointed(t)
	outside := filepath.Join(t.TempDir(), "passwd")
	writeFile(t, filepath.Dir(outside), "passwd", "root:x:0:0\n")
	writeFile(t, dir, "notes.md", "# Notes\n")
	writeFile(t, dir, "big.txt", strings.Repeat("é", MaxMention)) // two bytes each
	writeFile(t, dir, "bin.dat", "a\x00b")
	writeFile(t, dir, ".env", "TOKEN=secret\n")
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	noEnv := func(rel string) string {
		if rel == ".env" {
			return ".env is protected"
		}
		return ""
	}
	m, err := ws.ReadMention("notes.md", noEnv)
	if err != nil || m.Text != "# Notes\n" || m.Cut != 0 {
		t.Errorf("notes.md: %+v, %v", m, err)
	}
	m, err = ws.ReadMention("big.txt", noEnv)
	if err != nil || len(m.Text) != MaxMention || m.Cut != int64(MaxMention) {
		t.Errorf("big.txt: %d bytes, cut %d, %v", len(m.Text), m.Cut, err)
	}
	for _, p := range []string{"../../../../etc/passwd", outside, "link", "bin.dat", ".env", "missing.txt"} {
		if m, err := ws.ReadMention(p, noEnv); err == nil || strings.Contains(m.Text, "root:") {
			t.Errorf("%s was attached: %+v", p, m)
		}
	}
}

// TestCheckpointsKeepTheLastTurns: the record keeps the last
// maxCheckpointTurns turns, so a long session's memory stays bounded.
func TestCheckpointsKeepTheLastTurns(t *testing.T) {
	r, cp, _ := newCheckpointed(t)
	for i := range maxCheckpointTurns + 5 {
		cp.Begin("turn")
		wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "f" + strconv.Itoa(i) + ".txt", Content: "x"}))
	}
	if n := cp.Turns(); n != maxCheckpointTurns {
		t.Errorf("%d turns kept, want %d", n, maxCheckpointTurns)
	}
	res, err := cp.Undo(maxCheckpointTurns+5, false)
	if err != nil || len(res.Deleted) != maxCheckpointTurns {
		t.Errorf("undo of everything: %d files deleted, %v; want the last %d turns' files", len(res.Deleted), err, maxCheckpointTurns)
	}
}
