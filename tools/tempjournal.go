package tools

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// TempJournal records the temporary files of atomic writes while they
// exist, so that the next tackle can remove the ones a killed process
// (kill -9, a crash, a power cut) left behind, without walking any
// workspace.
//
// Each process has its own journal file in the journal directory, created
// at its first write and locked (flock) for as long as the process lives:
// a journal that can be locked belongs to a process that is gone. A
// journal lists each temporary file by workspace, path and identity
// (device and inode), so cleaning removes exactly the files that process
// created, never a file that merely has a similar name. A TempJournal is
// safe for concurrent use.
type TempJournal struct {
	dir string

	mu      sync.Mutex
	f       *os.File // nil until the first write
	next    int      // id of the next record
	pending int      // temporary files not yet renamed or removed
	closed  bool
}

// journalSuffix ends the name of every journal file.
const journalSuffix = ".journal"

// journalRecord is one line of a journal: a temporary file that was
// created (Op "+") or is gone (Op "-", only ID set).
type journalRecord struct {
	Op        string `json:"op"`
	ID        int    `json:"id"`
	Workspace string `json:"workspace,omitempty"`
	Path      string `json:"path,omitempty"` // relative to Workspace
	Dev       uint64 `json:"dev,omitempty"`
	Ino       uint64 `json:"ino,omitempty"`
}

// NewTempJournal returns a journal kept in dir (e.g. tackle's state
// directory plus "pending-writes"), which is created with mode 0700 at the
// first write.
func NewTempJournal(dir string) *TempJournal { return &TempJournal{dir: dir} }

// Dir returns the journal directory.
func (j *TempJournal) Dir() string { return j.dir }

// add records a temporary file that was just created; done is called
// once it has been renamed or removed. A journal that cannot be written
// does not stop the write: the file then goes unrecorded.
func (j *TempJournal) add(workspace, rel string, fi fs.FileInfo) (done func(), err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return func() {}, errors.New("no file identity")
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return func() {}, errors.New("journal closed")
	}
	if j.f == nil {
		f, err := createJournal(j.dir)
		if err != nil {
			return func() {}, err
		}
		j.f = f
	}
	j.next++
	id := j.next
	if err := j.write(journalRecord{Op: "+", ID: id, Workspace: workspace, Path: rel, Dev: uint64(st.Dev), Ino: st.Ino}); err != nil {
		return func() {}, err
	}
	j.pending++
	return func() { j.end(id) }, nil
}

// end records that the temporary file id is gone. When none is left the
// journal is emptied, so it does not grow with every write.
func (j *TempJournal) end(id int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return
	}
	j.pending--
	if j.pending == 0 {
		if j.f.Truncate(0) == nil {
			return
		}
	}
	_ = j.write(journalRecord{Op: "-", ID: id})
}

// write appends one record as one line in one write; j.mu is held.
func (j *TempJournal) write(r journalRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write temporary-file journal: %w", err)
	}
	return nil
}

// Close removes the journal when no temporary file is pending, and
// releases it. A pending file (a write still running) stays recorded for
// the next tackle to clean.
func (j *TempJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if j.f == nil {
		return nil
	}
	if j.pending == 0 {
		os.Remove(j.f.Name())
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// createJournal creates and locks a new journal file in dir. A cleaner
// may lock and remove a journal in the moment between its creation and
// its lock; the file locked is then no longer the one named, and another
// is created.
func createJournal(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("temporary-file journal: %w", err)
	}
	for range 10 {
		name := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+rand.Text()[:8]+journalSuffix)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("temporary-file journal: %w", err)
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && sameFile(f, name) {
			return f, nil
		}
		f.Close()
	}
	return nil, errors.New("temporary-file journal: could not create a journal of our own")
}

// sameFile reports whether name still names the open file f.
func sameFile(f *os.File, name string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(name)
	return err == nil && os.SameFile(a, b)
}

// tempName matches the names of writeAtomic's temporary files:
// ".NAME.tackle-" twelve characters of crypto/rand.Text ".tmp".
var tempName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\..+\.tackle-[A-Z2-7]{12}\.tmp$`)
})

// StaleTemp is a temporary file left by a tackle that is gone.
type StaleTemp struct {
	Path string // absolute
	Size int64
	Err  error // why it could not be removed, or nil
}

// CleanStaleTemps removes the temporary files recorded in the journals in
// dir whose process is gone, then those journals. A file is removed only
// when it still is the file that was recorded (same device and inode, a
// regular file, a name of writeAtomic's pattern, inside the recorded
// workspace); anything else is left alone. The journals of running
// processes are not touched. It returns the files it found, removed or
// not.
func CleanStaleTemps(dir string) ([]StaleTemp, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("temporary-file journals: %w", err)
	}
	var found []StaleTemp
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), journalSuffix) {
			continue
		}
		found = append(found, cleanJournal(filepath.Join(dir, e.Name()))...)
	}
	return found, nil
}

// cleanJournal cleans after one journal if its process is gone.
func cleanJournal(name string) []StaleTemp {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return nil // its process still runs
	}
	pending := map[int]journalRecord{}
	var order []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r journalRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // a torn last line
		}
		switch r.Op {
		case "+":
			pending[r.ID] = r
			order = append(order, r.ID)
		case "-":
			delete(pending, r.ID)
		}
	}
	var found []StaleTemp
	failed := false
	for _, id := range order {
		r, ok := pending[id]
		if !ok {
			continue
		}
		if st, ok := removeStale(r); ok {
			found = append(found, st)
			failed = failed || st.Err != nil
		}
	}
	// A file that could not be removed stays recorded, to be tried again.
	if !failed && sameFile(f, name) {
		os.Remove(name)
	}
	return found
}

// removeStale removes the temporary file of r if it still is the file
// recorded. ok is false when there is no such file.
func removeStale(r journalRecord) (_ StaleTemp, ok bool) {
	if !filepath.IsAbs(r.Workspace) || !filepath.IsLocal(r.Path) || !tempName().MatchString(filepath.Base(r.Path)) {
		return StaleTemp{}, false
	}
	root, err := os.OpenRoot(r.Workspace)
	if err != nil {
		return StaleTemp{}, false
	}
	defer root.Close()
	fi, err := root.Lstat(r.Path)
	if err != nil || !fi.Mode().IsRegular() {
		return StaleTemp{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uint64(st.Dev) != r.Dev || st.Ino != r.Ino {
		return StaleTemp{}, false
	}
	stale := StaleTemp{Path: filepath.Join(r.Workspace, r.Path), Size: fi.Size()}
	if err := root.Remove(r.Path); err != nil {
		stale.Err = err
	}
	return stale, true
}
