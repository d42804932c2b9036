package child

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxLogSize is the size past which a log file is moved to NAME.log.old
// when it is opened.
const MaxLogSize = 8 << 20

// Log is a child's log: its stderr and tackle's notes about it, one
// write at a time. A Log opened without a directory discards everything.
type Log struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// OpenLog opens dir/name.log for appending (0600), moving a file that
// grew past MaxLogSize aside first. An empty dir gives a Log that
// discards what it is given.
func OpenLog(dir, name string) (*Log, error) {
	if dir == "" {
		return &Log{}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	path := filepath.Join(dir, name+".log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxLogSize {
		os.Rename(path, path+".old")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return &Log{f: f, path: path}, nil
}

func (l *Log) Write(p []byte) (int, error) {
	if l.f == nil {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Write(p)
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
	if l.f == nil {
		return ""
	}
	return " (its stderr is in " + l.path + ")"
}

// Close closes the file.
func (l *Log) Close() {
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
