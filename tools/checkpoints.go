package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Checkpoints records, turn by turn, what the file tools change: for each
// file, its content before the turn's first change (or that it did not
// exist) and what the tools wrote last. That is tackle's own record, kept
// in memory for the session, not git's: it works outside a repository and
// never touches the index. From it a turn's changes can be undone and the
// session's changes shown as diffs.
//
// Only write_file and edit_file are tracked; a turn that ran bash (which
// may change files any way it likes) says so in Untracked. A Checkpoints
// is safe for concurrent use.
type Checkpoints struct {
	ws *Workspace

	mu    sync.Mutex
	turns []*Turn
	// first is each file's content before the session first changed it,
	// for SessionDiff.
	first map[string]fileVersion
}

// Turn is what one turn changed.
type Turn struct {
	// Prompt is the user's message that began the turn.
	Prompt string
	// Files are the files the file tools changed, in the order first
	// changed.
	Files []*TurnFile
	// Untracked are the shell commands the turn ran: changes they made
	// are not recorded.
	Untracked []string
}

// TurnFile is one file a turn changed.
type TurnFile struct {
	// Path is workspace-relative with forward slashes, symbolic links
	// resolved when it was written.
	Path string
	// Before is the content before the turn's first change; Existed is
	// false when the turn created the file.
	Before  []byte
	Existed bool
	// After is the content the tools wrote last in the turn.
	After []byte
}

type fileVersion struct {
	data    []byte
	existed bool
}

// maxCheckpointTurns bounds the turns kept: /undo reaches that far back,
// and a long session's memory stays bounded.
const maxCheckpointTurns = 100

// NewCheckpoints returns an empty record for the workspace's files.
func NewCheckpoints(ws *Workspace) *Checkpoints {
	return &Checkpoints{ws: ws, first: make(map[string]fileVersion)}
}

// Begin starts a turn: the changes recorded from now on belong to it.
func (c *Checkpoints) Begin(prompt string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.turns = append(c.turns, &Turn{Prompt: prompt})
	if n := len(c.turns) - maxCheckpointTurns; n > 0 {
		c.turns = slices.Delete(c.turns, 0, n)
	}
}

// Turns returns how many turns are recorded (undone ones are dropped).
func (c *Checkpoints) Turns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.turns)
}

// current is the turn being recorded, started when nothing began one.
func (c *Checkpoints) current() *Turn {
	if len(c.turns) == 0 {
		c.turns = append(c.turns, &Turn{})
	}
	return c.turns[len(c.turns)-1]
}

// wrote records that a file tool wrote after to rel, which held before
// (existed false: it did not exist).
func (c *Checkpoints) wrote(rel string, before []byte, existed bool, after []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.first[rel]; !ok {
		c.first[rel] = fileVersion{data: bytes.Clone(before), existed: existed}
	}
	t := c.current()
	for _, f := range t.Files {
		if f.Path == rel {
			f.After = bytes.Clone(after)
			return
		}
	}
	t.Files = append(t.Files, &TurnFile{Path: rel, Before: bytes.Clone(before), Existed: existed, After: bytes.Clone(after)})
}

// ran records a shell command of the current turn.
func (c *Checkpoints) ran(command string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.current()
	t.Untracked = append(t.Untracked, command)
}

// UndoResult says what Undo did.
type UndoResult struct {
	// Turns are the turns undone, the latest first.
	Turns []*Turn
	// Restored are the files put back as they were; Deleted those the
	// turns had created.
	Restored, Deleted []string
	// Changed are the files whose content is no longer what tackle wrote
	// (someone changed them since): nothing was undone.
	Changed []string
	// Untracked are the shell commands of the undone turns, whose changes
	// were not undone.
	Untracked []string
}

// ErrNothingToUndo is Undo's error when no turn changed a file.
var ErrNothingToUndo = errors.New("no file changes to undo")

// Undo reverts the file changes of the last n turns that changed files,
// latest first. A file whose content is not what tackle wrote last (its
// user, an editor or a command changed it since) is not overwritten unless
// force is set: then Undo changes nothing and lists those files in
// Changed. Every file is written through the workspace (atomically, never
// outside it); a file that cannot be is reported in the error, and the
// turns stay recorded.
func (c *Checkpoints) Undo(n int, force bool) (UndoResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var res UndoResult
	var idx []int // the turns to undo, latest first
	for i := len(c.turns) - 1; i >= 0 && len(idx) < n; i-- {
		if len(c.turns[i].Files) > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return res, ErrNothingToUndo
	}
	// What each file must hold now: what the latest of the turns wrote.
	want := map[string][]byte{}
	for _, i := range slices.Backward(idx) {
		for _, f := range c.turns[i].Files {
			want[f.Path] = f.After
		}
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		cur, err := c.ws.root.ReadFile(p)
		if err != nil || !bytes.Equal(cur, want[p]) {
			res.Changed = append(res.Changed, p)
		}
	}
	if len(res.Changed) > 0 && !force {
		return res, nil
	}
	res.Changed = nil
	var errs []error
	for _, i := range idx {
		t := c.turns[i]
		res.Turns = append(res.Turns, t)
		res.Untracked = append(res.Untracked, t.Untracked...)
		for _, f := range slices.Backward(t.Files) {
			if err := c.restore(f); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", display(f.Path), err))
				continue
			}
			if f.Existed {
				res.Restored = append(res.Restored, f.Path)
			} else {
				res.Deleted = append(res.Deleted, f.Path)
			}
		}
	}
	if len(errs) > 0 {
		return res, fmt.Errorf("undo: %w", errors.Join(errs...))
	}
	for _, i := range idx {
		c.turns = slices.Delete(c.turns, i, i+1) // idx is latest first
	}
	return res, nil
}

// restore puts f back as it was before its turn.
func (c *Checkpoints) restore(f *TurnFile) error {
	if !f.Existed {
		err := c.ws.root.Remove(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	mode := newFileMode
	if fi, err := c.ws.root.Lstat(f.Path); err == nil && fi.Mode().IsRegular() {
		mode = keepMode(fi)
	}
	return c.ws.writeAtomic(f.Path, f.Before, mode)
}

// FileDiff is one file's change over the session.
type FileDiff struct {
	Path string
	// Diff is a unified diff from the file before the session changed it
	// to the file now ("" when it is the same again).
	Diff string
	// Created and Deleted say the file did not exist before, or does not
	// now.
	Created, Deleted bool
}

// SessionDiff returns, per file the tools changed in the session, sorted
// by path, the change from its content before the first change to its
// content on disk now.
func (c *Checkpoints) SessionDiff() []FileDiff {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []FileDiff
	for _, p := range slices.Sorted(maps.Keys(c.first)) {
		was := c.first[p]
		now, err := c.ws.root.ReadFile(p)
		d := FileDiff{Path: p, Created: !was.existed, Deleted: err != nil}
		old, new := "a/"+display(p), "b/"+display(p)
		if !was.existed {
			old = "/dev/null"
		}
		if d.Deleted {
			new = "/dev/null"
		}
		d.Diff = udiff.Unified(old, new, string(was.data), string(now))
		out = append(out, d)
	}
	return out
}
