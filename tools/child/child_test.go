package child

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTailKeepsTheEndAtAWholeCharacter(t *testing.T) {
	t.Parallel()
	var tl Tail
	tl.Write([]byte(strings.Repeat("x", TailSize-1)))
	tl.Write([]byte("é and the end")) // é is two bytes: the cut falls inside it
	got := tl.String()
	if !strings.HasSuffix(got, "é and the end") && !strings.HasSuffix(got, " and the end") {
		t.Fatalf("tail ends %q", got[len(got)-20:])
	}
	if len(got) > TailSize {
		t.Errorf("tail holds %d bytes, want at most %d", len(got), TailSize)
	}
	if !strings.HasPrefix(got, "x") && !strings.HasPrefix(got, "é") {
		t.Errorf("tail starts with %q: not a whole character", got[:2])
	}
	tl.Reset()
	if tl.String() != "" {
		t.Errorf("after Reset the tail is %q", tl.String())
	}
}

func TestLogWithoutDirectoryDiscards(t *testing.T) {
	t.Parallel()
	l, err := OpenLog("", "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.Write([]byte("abc")); n != 3 || err != nil {
		t.Errorf("Write = %d, %v", n, err)
	}
	if l.Where() != "" || l.Path() != "" {
		t.Errorf("a log without a directory names %q", l.Where())
	}
	l.Close()
}

func TestLogAppendsAndNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := OpenLog(filepath.Join(dir, "logs"), "srv", nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Write([]byte("from stderr\n"))
	l.Note("started %q", "x")
	l.Close()
	b, err := os.ReadFile(filepath.Join(dir, "logs", "srv.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "from stderr\n[tackle ") || !strings.Contains(string(b), `started "x"`) {
		t.Errorf("log holds %q", b)
	}
	if !strings.Contains(l.Where(), filepath.Join(dir, "logs", "srv.log")) {
		t.Errorf("Where = %q", l.Where())
	}
}

// A child writing without end keeps each of its logs under the cap while it
// runs (before, the file grew until the next start: 789 MB in 3.5 s), the
// new file says where the earlier output went, and the user is told once.
func TestLogIsCappedWhileWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	drops := 0
	l, err := openLog(dir, "srv", 1000, func() { drops++ })
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 99) + "\n")
	for range 100 { // 10 times the cap
		if _, err := l.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	cur, err := os.ReadFile(filepath.Join(dir, "srv.log"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(filepath.Join(dir, "srv.log.old"))
	if err != nil {
		t.Fatal(err)
	}
	// Each within the cap, the new log's first line included (it was
	// not counted: a log went over the cap by its length).
	if len(cur) > 1000 || len(old) > 1000 || len(old) < 900 {
		t.Errorf("logs of %d and %d bytes, want each at most the cap of 1000 and the old one full", len(cur), len(old))
	}
	if !strings.HasPrefix(string(cur), "[tackle ") || !strings.Contains(string(cur), "srv.log.old, and anything older was dropped") {
		t.Errorf("the new log does not say where the earlier output went: %.120q", cur)
	}
	if !strings.HasSuffix(string(cur), string(line)) {
		t.Errorf("the newest output is not at the end of the log")
	}
	if drops != 1 {
		t.Errorf("dropped called %d times, want once", drops)
	}
}
