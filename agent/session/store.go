package session

import (
	"github.com/tackle-dev/tackle/tools/chat"

	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
)

// Store is the directory of sessions: one subdirectory per workspace,
// one file per session.
type Store struct {
	dir string
}

// Open returns the store in dir ($XDG_STATE_HOME/tackle/sessions). The
// directory is created when the first session is.
func Open(dir string) *Store { return &Store{dir: dir} }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// ErrInUse is returned when another process is writing the session.
var ErrInUse = errors.New("the session is open in another tackle process")

// workspaceDir is the directory of a workspace's sessions: its base name
// (for people) and a hash of its absolute path (so that two checkouts
// named alike do not share it).
func (s *Store) workspaceDir(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	base := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '_'
	}, filepath.Base(workspace))
	if len(base) > 40 {
		base = base[:40]
	}
	return filepath.Join(s.dir, base+"-"+hex.EncodeToString(sum[:6]))
}

// newID returns a session id that sorts by start time: 20261122-223000-1a2b.
func newID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// NewID returns an id for a new session of workspace (an absolute path)
// that no session of it has: a session known by its id before anything is
// recorded (an editor's), whose file a Recorder creates with the first
// record, with the id in its Header. Nothing is created: a session that
// records nothing leaves no file.
func (s *Store) NewID(workspace string) string {
	dir := s.workspaceDir(workspace)
	var id string
	for range 10 {
		id = newID(time.Now())
		if _, err := os.Lstat(filepath.Join(dir, id+".jsonl")); errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return id
}

// ValidID reports whether id can name a session file: letters, digits,
// '-', '_' and '.', not first, at most 64 bytes.
func ValidID(id string) bool {
	if id == "" || len(id) > 64 || id[0] == '.' {
		return false
	}
	for _, r := range id {
		if r != '-' && r != '_' && r != '.' && (r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// Create starts a new session of workspace (an absolute path) and returns
// its writer, with the header written. The session's id is h.ID when it
// is set (NewID), which no other session of the workspace may have;
// else a new one.
func (s *Store) Create(h Header) (*Writer, error) {
	if h.ID != "" && !ValidID(h.ID) {
		return nil, fmt.Errorf("create session: %q cannot be a session id", h.ID)
	}
	if !filepath.IsAbs(h.Workspace) {
		return nil, fmt.Errorf("create session: workspace %q is not an absolute path", h.Workspace)
	}
	dir := s.workspaceDir(h.Workspace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	h.Format = FormatVersion
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	chosen := h.ID
	for range 10 {
		if chosen == "" {
			h.ID = newID(h.Started)
		}
		path := filepath.Join(dir, h.ID+".jsonl")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && chosen != "" {
			return nil, fmt.Errorf("create session: a session %s exists already", chosen)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		w, err := newWriter(f, path, h)
		if err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
		// The header is synced with the first turn's records (a file of
		// a header alone is of no use): no fsync here, which would be
		// paid before the first request.
		b, err := marshalLine(headerLine{Kind: "header", Header: &h})
		if err == nil {
			err = w.write(b)
		}
		if err != nil {
			w.Close()
			os.Remove(path)
			return nil, fmt.Errorf("create session: %w", err)
		}
		return w, nil
	}
	return nil, errors.New("create session: no free session id")
}

// Reopen opens the session file at path for appending and loads it,
// in that order: the file is locked before it is read, so that what is
// loaded is what this process goes on from. It fails with ErrInUse while
// another process writes the session.
func (s *Store) Reopen(path string) (*Writer, *Loaded, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("continue session: %w", err)
	}
	w, err := newWriter(f, path, Header{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")})
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	l, err := Load(path)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	w.header = l.Header
	w.turns = l.Turns()
	w.conv = l.recorded()
	// A torn last line is ended, so that the next record starts a line
	// of its own.
	w.torn = l.tornTail
	return w, l, nil
}

// headerLine is the JSON form of the first line.
type headerLine struct {
	Kind   string  `json:"type"`
	Header *Header `json:"header"`
}

// Writer appends records to one session file. It is safe for concurrent
// use.
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	header Header
	redact func(string) string
	turns  int
	// torn: the file may end in a partial line (a failed write), which
	// the next write ends first.
	torn bool
	// conv is the conversation as a load of the file so far would give
	// it (before repairs: Loaded.recorded), which a compaction is
	// recorded against.
	conv []chat.Message
}

func newWriter(f *os.File, path string, h Header) (*Writer, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("session %s: %w", h.ID, ErrInUse)
		}
		return nil, fmt.Errorf("session %s: lock: %w", h.ID, err)
	}
	return &Writer{f: f, path: path, header: h}, nil
}

// ID returns the session's id.
func (w *Writer) ID() string { return w.header.ID }

// Path returns the session file.
func (w *Writer) Path() string { return w.path }

// SetRedact sets the function every string of a record passes through
// before it is written (the session's secret redaction).
func (w *Writer) SetRedact(redact func(string) string) {
	w.mu.Lock()
	w.redact = redact
	w.mu.Unlock()
}

// Append writes one record as one line. Time is set when zero. An
// Outcome's Turns is filled in from the prompts appended so far.
func (w *Writer) Append(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	if r.Prompt {
		w.turns++
	}
	if r.Outcome != nil {
		o := *r.Outcome
		o.Turns = w.turns
		r.Outcome = &o
	}
	var conv []chat.Message // the conversation after r
	switch {
	case r.Kind == KindMessage && r.Message != nil:
		conv = append(w.conv, *r.Message)
	case r.Kind == KindCompaction && r.Compaction != nil && r.Compaction.Parts == nil:
		c := *r.Compaction
		conv = c.Messages
		c.Parts, c.Messages = compactParts(w.conv, c.Messages), nil
		r.Compaction = &c
	}
	if w.redact != nil {
		r = redactRecord(r, w.redact)
	}
	r = fileRefs(r) // an attached image by its file, not its bytes
	b, err := marshalLine(r)
	if err != nil {
		return fmt.Errorf("session record: %w", err)
	}
	if err := w.write(b); err != nil {
		return err
	}
	if conv != nil {
		w.conv = conv
	}
	return nil
}

// write appends b with one write call; after a failed write it first
// ends the partial line the failure may have left.
func (w *Writer) write(b []byte) error {
	if w.torn {
		if _, err := w.f.Write([]byte{'\n'}); err != nil {
			return fmt.Errorf("session %s: %w", w.header.ID, err)
		}
		w.torn = false
	}
	if _, err := w.f.Write(b); err != nil {
		w.torn = true
		return fmt.Errorf("session %s: %w", w.header.ID, err)
	}
	return nil
}

// Sync flushes the file to disk: at every turn boundary and before exit.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("session %s: sync: %w", w.header.ID, err)
	}
	return nil
}

// Close syncs and closes the file, which releases it to other processes.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("session %s: close: %w", w.header.ID, err)
	}
	return nil
}
