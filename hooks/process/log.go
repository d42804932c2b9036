package process

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"
)

// maxLogSize is the size past which a server's log file is moved to
// NAME.log.old when tackle starts the server.
const maxLogSize = 8 << 20

// logFile is a server's log: its stderr and tackle's notes about it, one
// write at a time. The zero logFile (no directory) discards everything.
type logFile struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// openLog opens dir/name.log for appending (0600), moving a file that grew
// past maxLogSize aside first.
func openLog(dir, name string) (*logFile, error) {
	if dir == "" {
		return &logFile{}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	path := filepath.Join(dir, name+".log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		os.Rename(path, path+".old")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return &logFile{f: f, path: path}, nil
}

func (l *logFile) Write(p []byte) (int, error) {
	if l.f == nil {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Write(p)
}

// note writes one line of tackle's own about the server.
func (l *logFile) note(format string, args ...any) {
	fmt.Fprintf(l, "[tackle %s] %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

// where names the log for a message, or says there is none.
func (l *logFile) where() string {
	if l.f == nil {
		return ""
	}
	return " (its stderr is in " + l.path + ")"
}

func (l *logFile) close() {
	if l.f != nil {
		l.f.Close()
	}
}

// tail keeps the last bytes written to it, for the message of a crash.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	return len(p), nil
}

// String is the tail, starting at a whole character.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return string(b)
}
