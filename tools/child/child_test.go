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
	l, err := OpenLog("", "x")
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
	l, err := OpenLog(filepath.Join(dir, "logs"), "srv")
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
