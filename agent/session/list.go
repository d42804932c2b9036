package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Info describes a session for a listing, read from the head and the
// tail of its file only.
type Info struct {
	ID          string    `json:"id"`
	Path        string    `json:"path"`
	Workspace   string    `json:"workspace"`
	Model       string    `json:"model"`
	Started     time.Time `json:"started"`
	Updated     time.Time `json:"updated"`
	FirstPrompt string    `json:"first_prompt"`
	Turns       int       `json:"turns"`
	// Status is the last run's outcome ("finished", "paused", ...), or ""
	// when no run ended (the process died during its first).
	Status string `json:"status,omitempty"`
	// Unreadable says why the file could not be read as a session (its
	// first line is not a session header, it cannot be opened …); such an
	// entry has only its ID (the file's name), Path and Updated. It is
	// listed so that a session does not vanish without a word, but never
	// continued.
	Unreadable string `json:"unreadable,omitempty"`
}

// headBytes and tailBytes bound what a listing reads of each file.
const (
	headBytes = 256 << 10
	tailBytes = 256 << 10
)

// List returns the sessions of workspace, the one used last first (by
// the time its file last changed). A session file that cannot be read is
// listed with the reason in Unreadable.
func (s *Store) List(workspace string) ([]Info, error) {
	out, err := listDir(s.workspaceDir(workspace))
	if err != nil {
		return nil, err
	}
	sortInfos(out)
	return out, nil
}

// ListAll returns the sessions of every workspace, the one used last
// first, as List does.
func (s *Store) ListAll() ([]Info, error) {
	dirs, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Info
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		infos, err := listDir(filepath.Join(s.dir, d.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, infos...)
	}
	sortInfos(out)
	return out, nil
}

// Locate finds the session whose id is exactly id in any workspace;
// false when there is none (or id cannot be a session's).
func (s *Store) Locate(id string) (Info, bool, error) {
	if !ValidID(id) {
		return Info{}, false, nil
	}
	dirs, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, false, nil
	}
	if err != nil {
		return Info{}, false, fmt.Errorf("find session: %w", err)
	}
	for _, d := range dirs {
		path := filepath.Join(s.dir, d.Name(), id+".jsonl")
		if !d.IsDir() {
			continue
		}
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		info, err := readInfo(path)
		if err != nil {
			return Info{}, false, fmt.Errorf("session %q cannot be read: %w (%s)", id, err, path)
		}
		return info, true, nil
	}
	return Info{}, false, nil
}

// listDir reads the sessions of one workspace's directory, unsorted.
func listDir(dir string) ([]Info, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Info
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := readInfo(path)
		if err != nil {
			info = Info{ID: strings.TrimSuffix(e.Name(), ".jsonl"), Path: path, Unreadable: err.Error()}
			if fi, err := e.Info(); err == nil {
				info.Updated = fi.ModTime()
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// sortInfos puts the session used last first.
func sortInfos(out []Info) {
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// Latest returns the readable session of workspace used last, or false
// when it has none: the one -c goes on with. When the workspace has
// session files but none can be read, the error names them.
func (s *Store) Latest(workspace string) (Info, bool, error) {
	list, err := s.List(workspace)
	if err != nil {
		return Info{}, false, err
	}
	var bad []string
	for _, in := range list {
		if in.Unreadable == "" {
			return in, true, nil
		}
		bad = append(bad, in.Path+": "+in.Unreadable)
	}
	if len(bad) > 0 {
		return Info{}, false, fmt.Errorf("no session to continue: the session files of this workspace cannot be read:\n  %s", strings.Join(bad, "\n  "))
	}
	return Info{}, false, nil
}

// Find returns the session of workspace whose id is id or starts with
// it; an ambiguous prefix is an error naming the candidates.
func (s *Store) Find(workspace, id string) (Info, error) {
	list, err := s.List(workspace)
	if err != nil {
		return Info{}, err
	}
	var match []Info
	for _, in := range list {
		if in.ID == id && in.Unreadable != "" {
			return Info{}, fmt.Errorf("session %q cannot be read: %s (%s)", id, in.Unreadable, in.Path)
		}
		if in.ID == id {
			return in, nil
		}
		if id != "" && strings.HasPrefix(in.ID, id) {
			match = append(match, in)
		}
	}
	switch len(match) {
	case 1:
		if in := match[0]; in.Unreadable != "" {
			return Info{}, fmt.Errorf("session %q cannot be read: %s (%s)", in.ID, in.Unreadable, in.Path)
		}
		return match[0], nil
	case 0:
		return Info{}, fmt.Errorf("no session %q in this workspace (`tackle sessions` lists them)", id)
	}
	ids := make([]string, len(match))
	for i, m := range match {
		ids[i] = m.ID
	}
	return Info{}, fmt.Errorf("session %q is ambiguous: it starts %s", id, strings.Join(ids, ", "))
}

// readInfo reads a session's header and first prompt from the head of
// its file and its last outcome from the tail.
func readInfo(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	sc := bufio.NewScanner(io.LimitReader(f, headBytes))
	sc.Buffer(make([]byte, 0, 64<<10), headBytes)
	if !sc.Scan() {
		return Info{}, errors.New("the file is empty")
	}
	var l Loaded
	if err := l.readHeader(sc.Bytes()); err != nil {
		return Info{}, err
	}
	h := l.Header
	info := Info{ID: h.ID, Path: path, Workspace: h.Workspace, Model: h.Model, Started: h.Started, Updated: fi.ModTime()}
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Prompt && r.Message != nil {
			info.FirstPrompt = r.Message.Content
			break
		}
	}
	if r, ok := lastOutcome(f, fi.Size()); ok {
		info.Status, info.Turns = r.Status, r.Turns
	}
	return info, nil
}

// lastOutcome finds the last outcome record in the tail of the file.
func lastOutcome(f *os.File, size int64) (Outcome, bool) {
	off := max(size-tailBytes, 0)
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return Outcome{}, false
	}
	lines := bytes.Split(buf, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"outcome"`)) {
			continue
		}
		var r Record
		if json.Unmarshal(lines[i], &r) == nil && r.Kind == KindOutcome && r.Outcome != nil {
			return *r.Outcome, true
		}
	}
	return Outcome{}, false
}
