package child

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxLogSize bounds a log file. A log that reaches it while its child
// writes is moved to NAME.log.old (replacing the one there) and begun
// again, so a child's logs take at most twice this on disk however much
// it writes; a file found past it when the log is opened is moved aside
// the same way.
const MaxLogSize = 8 << 20

// Log is a child's log: its stderr and tackle's notes about it, one
// write at a time. A Log opened without a directory discards everything.
type Log struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	size    int64
	max     int64
	dropped func() // called once, at the first rotation
	rotated bool   // the log was rotated since it was opened
}

// OpenLog opens dir/name.log for appending (0600), moving a file that
// grew past MaxLogSize aside first. An empty dir gives a Log that
// discards what it is given. dropped, when not nil, is called once, the
// first time the log is rotated while the child writes: from then on its
// oldest output is being dropped, which the user should be told once.
func OpenLog(dir, name string, dropped func()) (*Log, error) {
	return openLog(dir, name, MaxLogSize, dropped)
}

func openLog(dir, name string, max int64, dropped func()) (*Log, error) {
	if dir == "" {
		return &Log{}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	path := filepath.Join(dir, name+".log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > max {
		os.Rename(path, path+".old")
	}
	l := &Log{path: path, max: max, dropped: dropped}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

// open opens the log file for appending and learns its size.
func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	l.f, l.size = f, 0
	if fi, err := f.Stat(); err == nil {
		l.size = fi.Size()
	}
	return nil
}

func (l *Log) Write(p []byte) (int, error) {
	if l.path == "" {
		return len(p), nil
	}
	l.mu.Lock()
	first := false
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil {
			l.mu.Unlock()
			return 0, err
		}
		first, l.rotated = !l.rotated, true
	}
	n, err := len(p), error(nil)
	if l.f != nil { // else the log could not be opened again: drop
		n, err = l.f.Write(p)
		l.size += int64(n)
	}
	l.mu.Unlock()
	if first && l.dropped != nil {
		l.dropped() // not under l.mu: the callback may log
	}
	return n, err
}

// rotate moves the full log to NAME.log.old and begins a new one, which
// says where the earlier output went; l.mu must be held.
func (l *Log) rotate() error {
	l.f.Close()
	l.f = nil
	if err := os.Rename(l.path, l.path+".old"); err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	if err := l.open(); err != nil {
		return err
	}
	// The line counts towards the cap like the child's output (it was
	// left out, and a full log went over the cap by its length).
	n, _ := fmt.Fprintf(l.f, "[tackle %s] the log reached %d MiB: what came before is in %s.old, and anything older was dropped\n",
		time.Now().Format(time.RFC3339), l.max>>20, filepath.Base(l.path))
	l.size += int64(n)
	return nil
}

// Note writes one line of tackle's own about the child.
func (l *Log) Note(format string, args ...any) {
	fmt.Fprintf(l, "[tackle %s] %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

// Path is the log file's path, "" when there is none.
func (l *Log) Path() string { return l.path }

// Where names the log for a message (" (its stderr is in PATH)"), or is
// empty when there is none.
func (l *Log) Where() string {
	if l.path == "" {
		return ""
	}
	return " (its stderr is in " + l.path + ")"
}

// Close closes the file.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
	}
}

// TailSize is how much of a child's output a Tail keeps.
const TailSize = 2 << 10

// Tail keeps the last TailSize bytes written to it, for the message of a
// crash. The zero Tail is ready to use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - TailSize; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	return len(p), nil
}

// String is the tail, starting at a whole character.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return string(b)
}

// Reset forgets what was written.
func (t *Tail) Reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}
