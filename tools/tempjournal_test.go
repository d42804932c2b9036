package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Environment of TestTempJournalHelperWriter, run as a child process.
const (
	helperJournal = "TACKLE_TEST_WRITER_JOURNAL"
	helperWS      = "TACKLE_TEST_WRITER_WORKSPACE"
	helperFile    = "TACKLE_TEST_WRITER_FILE"
)

// helperSize is what the helper writes: half of it reaches the disk
// before the helper blocks.
const helperSize = 8 << 20

// blockingWriter writes half of the first buffer, says "ready" on stdout
// and waits until stdin is closed; then it writes the rest.
type blockingWriter struct {
	w       io.Writer
	blocked bool
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	if b.blocked {
		return b.w.Write(p)
	}
	b.blocked = true
	n, err := b.w.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin)
	m, err := b.w.Write(p[n:])
	return n + m, err
}

// TestTempJournalHelperWriter is not a test: run by the tests below as a
// child process, it writes a large file with write_file through a
// journaled workspace and blocks half way.
func TestTempJournalHelperWriter(t *testing.T) {
	journal := os.Getenv(helperJournal)
	if journal == "" {
		t.Skip("a helper process for TestTempJournalCleansAfterAKilledWriter")
	}
	ws, err := OpenWorkspace(os.Getenv(helperWS))
	if err != nil {
		t.Fatal(err)
	}
	j := NewTempJournal(journal)
	ws.UseTempJournal(j)
	ws.wrapWriter = func(w io.Writer) io.Writer { return &blockingWriter{w: w} }
	r := NewRegistry(ws)
	args, _ := json.Marshal(WriteFileArgs{Path: os.Getenv(helperFile), Content: strings.Repeat("x", helperSize)})
	res, err := r.Run(context.Background(), chat.ToolCall{ID: "c", Name: "write_file", Arguments: string(args)})
	if err != nil || res.Status != chat.StatusOK {
		t.Fatalf("write_file: %v %+v", err, res)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// writer is a helper process blocked in the middle of a write.
type writer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startWriter starts a helper that writes file in ws, and waits until it
// is blocked half way.
func startWriter(t *testing.T, journal, ws, file string) *writer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTempJournalHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperJournal+"="+journal, helperWS+"="+ws, helperFile+"="+file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	go io.Copy(io.Discard, stdout)
	return &writer{cmd: cmd, stdin: stdin}
}

// temps returns the temporary files of writeAtomic for file in dir.
func temps(t *testing.T, dir, file string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "."+file+".tackle-*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTempJournalCleansAfterAKilledWriter(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "state", "pending-writes")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	killed := startWriter(t, journal, ws, "killed.bin")
	live := startWriter(t, journal, ws, "live.bin")
	// A file of the user's that merely looks like a temporary file.
	lookalike := writeFile(t, ws, ".notes.txt.tackle-ABCDEFGHIJKL.tmp", "mine")

	left := temps(t, ws, "killed.bin")
	if len(left) != 1 {
		t.Fatalf("temporary files of the killed writer: %v", left)
	}
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.cmd.Wait()
	if fi, err := os.Stat(left[0]); err != nil || fi.Size() != helperSize/2 {
		t.Fatalf("the kill left %v (%v), want %d bytes", fi, err, helperSize/2)
	}
	if fi, err := os.Stat(journal); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("journal directory: %v %v, want mode 0700", fi, err)
	}

	stale, err := CleanStaleTemps(journal)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].Path != left[0] || stale[0].Size != helperSize/2 || stale[0].Err != nil {
		t.Errorf("cleaned %+v, want %s", stale, left[0])
	}
	if _, err := os.Lstat(left[0]); !os.IsNotExist(err) {
		t.Errorf("the killed writer's temporary file is still there: %v", err)
	}
	if got := temps(t, ws, "live.bin"); len(got) != 1 {
		t.Errorf("the running writer's temporary file was touched: %v", got)
	}
	if got := readFile(t, lookalike); got != "mine" {
		t.Errorf("the user's file = %q", got)
	}
	if entries, _ := os.ReadDir(journal); len(entries) != 1 {
		t.Errorf("journals after cleaning: %v, want the running writer's only", entries)
	}

	// The running writer finishes: its file is whole, nothing is left.
	live.stdin.Close()
	if err := live.cmd.Wait(); err != nil {
		t.Fatalf("the running writer failed: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(ws, "live.bin")); err != nil || fi.Size() != helperSize {
		t.Errorf("live.bin: %v %v", fi, err)
	}
	if got := temps(t, ws, "live.bin"); len(got) != 0 {
		t.Errorf("temporary files left: %v", got)
	}
	if entries, _ := os.ReadDir(journal); len(entries) != 0 {
		t.Errorf("journals left: %v", entries)
	}
	if stale, err := CleanStaleTemps(journal); len(stale) != 0 || err != nil {
		t.Errorf("second clean: %+v %v", stale, err)
	}
}

// plant writes a journal that no process holds, as an attacker with
// write access to the state directory could.
func plant(t *testing.T, journal string, records ...journalRecord) string {
	t.Helper()
	if err := os.MkdirAll(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range records {
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(`{"op":"+","id":99,"work`) // a torn last line
	name := filepath.Join(journal, "666-planted"+journalSuffix)
	if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// record returns a journal record naming the file at rel in ws as it is.
func record(t *testing.T, id int, ws, rel string) journalRecord {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(ws, rel))
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return journalRecord{Op: "+", ID: id, Workspace: ws, Path: rel, Dev: uint64(st.Dev), Ino: st.Ino}
}

func TestTempJournalRemovesOnlyWhatItRecorded(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "pending-writes")
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())

	writeFile(t, ws, "important.txt", "keep")
	writeFile(t, ws, ".a.tackle-AAAAAAAAAAAA.tmp", "keep")
	writeFile(t, ws, ".other.tackle-DDDDDDDDDDDD.tmp", "keep")
	writeFile(t, outside, ".x.tackle-CCCCCCCCCCCC.tmp", "keep")
	writeFile(t, outside, "target", "keep")
	if err := os.Symlink(filepath.Join(outside, "target"), filepath.Join(ws, ".lnk.tackle-BBBBBBBBBBBB.tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, ws, ".done.tackle-EEEEEEEEEEEE.tmp", "stale")
	writeFile(t, ws, ".finished.tackle-FFFFFFFFFFFF.tmp", "renamed away, then a new file")

	wrongIno := record(t, 2, ws, ".a.tackle-AAAAAAAAAAAA.tmp")
	wrongIno.Ino++
	viaLink := record(t, 5, outside, ".x.tackle-CCCCCCCCCCCC.tmp")
	viaLink.Workspace, viaLink.Path = ws, "sub/.x.tackle-CCCCCCCCCCCC.tmp"
	upAndOut := record(t, 6, outside, ".x.tackle-CCCCCCCCCCCC.tmp")
	upAndOut.Workspace, upAndOut.Path = ws, "../"+filepath.Base(outside)+"/.x.tackle-CCCCCCCCCCCC.tmp"
	plant(t, journal,
		record(t, 1, ws, "important.txt"), // not tackle's naming
		wrongIno,                          // another file now has the name
		record(t, 3, ws, ".lnk.tackle-BBBBBBBBBBBB.tmp"), // a symbolic link
		viaLink,  // through a link out of the workspace
		upAndOut, // ".." out of the workspace
		// The same file, in the directory it was recorded in: removed.
		record(t, 4, outside, ".x.tackle-CCCCCCCCCCCC.tmp"),
		record(t, 7, ws, ".done.tackle-EEEEEEEEEEEE.tmp"), // removed
		record(t, 8, ws, ".finished.tackle-FFFFFFFFFFFF.tmp"),
		journalRecord{Op: "-", ID: 8}, // renamed: gone from the journal
	)
	// The journal of a process that still runs: locked.
	running := filepath.Join(journal, "1-running"+journalSuffix)
	rec, _ := json.Marshal(record(t, 1, ws, ".other.tackle-DDDDDDDDDDDD.tmp"))
	if err := os.WriteFile(running, append(rec, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	lock, err := os.Open(running)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	stale, err := CleanStaleTemps(journal)
	if err != nil {
		t.Fatal(err)
	}
	var removed []string
	for _, s := range stale {
		removed = append(removed, s.Path)
	}
	want := []string{filepath.Join(outside, ".x.tackle-CCCCCCCCCCCC.tmp"), filepath.Join(ws, ".done.tackle-EEEEEEEEEEEE.tmp")}
	if strings.Join(removed, "\n") != strings.Join(want, "\n") {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, p := range []string{
		filepath.Join(ws, "important.txt"), filepath.Join(ws, ".a.tackle-AAAAAAAAAAAA.tmp"),
		filepath.Join(outside, "target"), filepath.Join(ws, ".other.tackle-DDDDDDDDDDDD.tmp"),
		filepath.Join(ws, ".finished.tackle-FFFFFFFFFFFF.tmp"),
	} {
		if got := readFile(t, p); got == "" {
			t.Errorf("%s was emptied", p)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, ".lnk.tackle-BBBBBBBBBBBB.tmp")); err != nil {
		t.Errorf("the link was removed: %v", err)
	}
	if _, err := os.Stat(running); err != nil {
		t.Errorf("the running process's journal was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(journal, "666-planted"+journalSuffix)); !os.IsNotExist(err) {
		t.Errorf("the cleaned journal is still there: %v", err)
	}
}

func TestTempJournalForgetsFinishedWrites(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "pending-writes")
	r, dir := newTestRegistry(t)
	j := NewTempJournal(journal)
	r.ws.UseTempJournal(j)

	wantOK(t, call(t, r, "write_file", WriteFileArgs{Path: "a.txt", Content: "one"}))
	injectFault(r.ws, "rename")
	wantError(t, call(t, r, "write_file", WriteFileArgs{Path: "b.txt", Content: "two"}), "injected")
	entries, err := os.ReadDir(journal)
	if err != nil || len(entries) != 1 {
		t.Fatalf("journals: %v %v", entries, err)
	}
	name := filepath.Join(journal, entries[0].Name())
	if b, _ := os.ReadFile(name); len(b) != 0 {
		t.Errorf("journal after finished writes = %q, want empty", b)
	}
	if !strings.HasPrefix(entries[0].Name(), strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("journal name %q", entries[0].Name())
	}
	// Another tackle does not take a running process's journal.
	if stale, err := CleanStaleTemps(journal); len(stale) != 0 || err != nil {
		t.Errorf("clean: %+v %v", stale, err)
	}
	if _, err := os.Stat(name); err != nil {
		t.Errorf("the running journal was removed: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("Close left the journal: %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "one" {
		t.Errorf("a.txt = %q", got)
	}
}
