package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"
)

// stamp is what the session knows of a file: how it was when the model
// last read or wrote it through the tools.
type stamp struct {
	modTime time.Time
	size    int64
	sum     [sha256.Size]byte
}

func stampOf(fi fs.FileInfo, content []byte) stamp {
	return stamp{modTime: fi.ModTime(), size: fi.Size(), sum: sha256.Sum256(content)}
}

// stampFile reads the open file f, whose information is fi, to its end
// and returns its stamp; it needs no memory for the content.
func stampFile(f io.Reader, fi fs.FileInfo) (stamp, error) {
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return stamp{}, err
	}
	st := stamp{modTime: fi.ModTime(), size: n}
	h.Sum(st.sum[:0])
	return st, nil
}

// fileState is what the model has seen of the workspace's files, shared
// by read_file, write_file and edit_file: per resolved workspace path,
// the stamp of the last read or write through the tools, so that a write
// never clobbers a change the model has not seen. It lives as long as the
// Registry: one session.
type fileState struct {
	ws *Workspace
	// writeMu serialises the tools that change files, so that two
	// parallel edits of one file cannot both pass the staleness check.
	writeMu sync.Mutex

	mu     sync.Mutex
	stamps map[string]stamp
	// observe, when set, is told each stamp recorded (see
	// WithFileObserver).
	observe func(FileStamp)

	// checkpoints, when set, records each write for undo.
	checkpoints *Checkpoints
}

func newFileState(ws *Workspace) *fileState { return &fileState{ws: ws} }

func (s *fileState) record(rel string, st stamp) {
	s.mu.Lock()
	if s.stamps == nil {
		s.stamps = make(map[string]stamp)
	}
	s.stamps[rel] = st
	observe := s.observe
	s.mu.Unlock()
	if observe != nil {
		observe(st.export(rel))
	}
}

// FileStamp is what the tools know of a workspace file the model read or
// wrote through them: how it was then. write_file and edit_file refuse a
// file with no stamp (never read) or whose content no longer matches its
// stamp (changed since). A session keeps the stamps (WithFileObserver),
// and a later process taking the session up again restores them
// (Registry.SetFiles), so that an approved edit of a file read before a
// saved pause is applied, and one changed since is reported as changed.
type FileStamp struct {
	// Path is relative to the workspace root, slash-separated, with
	// symbolic links resolved.
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	// SHA256 is the content's hash, in hex.
	SHA256 string `json:"sha256"`
}

func (st stamp) export(rel string) FileStamp {
	return FileStamp{Path: display(rel), Size: st.size, ModTime: st.modTime, SHA256: hex.EncodeToString(st.sum[:])}
}

// set replaces the stamps with those given; one that is not well formed
// is left out.
func (s *fileState) set(stamps []FileStamp) {
	m := make(map[string]stamp, len(stamps))
	for _, fs := range stamps {
		sum, err := hex.DecodeString(fs.SHA256)
		if err != nil || len(sum) != sha256.Size || fs.Path == "" {
			continue
		}
		rel, err := s.ws.Resolve(fs.Path)
		if err != nil {
			continue
		}
		st := stamp{modTime: fs.ModTime, size: fs.Size}
		copy(st.sum[:], sum)
		m[rel] = st
	}
	s.mu.Lock()
	s.stamps = m
	s.mu.Unlock()
}

// check returns "" when the model may replace the existing file rel whose
// current state is cur, or the reason it may not. verb names what was
// refused ("edit", "overwrite").
func (s *fileState) check(rel string, cur stamp, verb string) string {
	s.mu.Lock()
	last, ok := s.stamps[rel]
	s.mu.Unlock()
	shown := display(rel)
	if !ok {
		return fmt.Sprintf("Refusing to %s %s: it has not been read in this session. Read it with read_file first, so that your change is based on its current content.", verb, shown)
	}
	if last.sum != cur.sum {
		what := "its content changed"
		if !last.modTime.Equal(cur.modTime) {
			what = fmt.Sprintf("it was modified at %s", cur.modTime.Format(time.RFC3339))
		}
		return fmt.Sprintf("Refusing to %s %s: it changed on disk since you last read or wrote it (%s; %d bytes then, %d now). Read it again with read_file and redo the change against its current content.", verb, shown, what, last.size, cur.size)
	}
	return ""
}

// known reports whether rel has a stamp.
func (s *fileState) known(rel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.stamps[rel]
	return ok
}

// wrote records that rel, which held before (existed false: it did not
// exist), was just written with content.
func (s *fileState) wrote(rel string, before []byte, existed bool, content []byte) {
	s.recordWritten(rel, content)
	if s.checkpoints != nil {
		s.checkpoints.wrote(rel, before, existed, content)
	}
}

// recordWritten records the stamp of rel, just written with content.
func (s *fileState) recordWritten(rel string, content []byte) {
	if fi, err := s.ws.root.Stat(rel); err == nil {
		s.record(rel, stampOf(fi, content))
	}
}

// acknowledge records the current content of path as known to the model,
// if the model knew an earlier version (see Registry.Acknowledge).
func (s *fileState) acknowledge(path string) error {
	rel, err := s.ws.Resolve(path)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if !s.known(rel) {
		return nil
	}
	f, fi, err := s.ws.openRegular(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := stampFile(f, fi)
	if err != nil {
		return err
	}
	s.record(rel, st)
	return nil
}
