package child

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxPinnedEntries bounds the entries a pinned directory's check visits.
const maxPinnedEntries = 20_000

// Pins are the files and directories configured commands run or import
// (the scripts of hooks, hook servers and MCP servers, the packages of a
// `python -m`), as they were when tackle started. A command the model
// may have changed must not run without the user knowing: once a pinned
// path was created, removed, written, renamed or had its mode changed,
// Check fails, and the caller starts no configured command again (a hook
// is not run, a hook or MCP server is not started again) until the user
// has looked and started tackle again. Protection makes the model ask
// before it writes there and the sandbox keeps existing ones read-only;
// pins also hold for what those do not cover: a file planted where none
// was, a change at the sandbox's landlock level, a command run outside
// the sandbox.
//
// A change is seen by its inode's change time (ctime), which no program
// can set back, with the size, the modification time and the inode; a
// directory is compared entry by entry. A nil *Pins pins nothing.
type Pins struct {
	paths []string // the pinned paths, sorted
	dirs  map[string]bool
	state map[string]entry

	mu      sync.Mutex
	changed []string // what Check found changed, once it did
}

// entry is what a pinned path, or an entry of a pinned directory, was.
type entry struct {
	exists bool
	mode   fs.FileMode
	size   int64
	mtime  time.Time
	ctime  syscall.Timespec
	ino    uint64
}

// Pin takes the state of files and dirs (absolute; missing ones are
// pinned as missing) now.
func Pin(files, dirs []string) *Pins {
	p := &Pins{dirs: map[string]bool{}}
	for _, f := range files {
		p.paths = append(p.paths, filepath.Clean(f))
	}
	for _, d := range dirs {
		d = filepath.Clean(d)
		p.paths = append(p.paths, d)
		p.dirs[d] = true
	}
	slices.Sort(p.paths)
	p.paths = slices.Compact(p.paths)
	p.state = p.take()
	return p
}

// take reads the state of every pinned path and of every entry of the
// pinned directories.
func (p *Pins) take() map[string]entry {
	st := make(map[string]entry, len(p.paths))
	for _, path := range p.paths {
		st[path] = stat(path)
		if !p.dirs[path] {
			continue
		}
		n := 0
		filepath.WalkDir(path, func(q string, d fs.DirEntry, err error) error {
			if n++; n > maxPinnedEntries {
				return filepath.SkipAll
			}
			if q != path {
				st[q] = stat(q)
			}
			return nil
		})
	}
	return st
}

func stat(path string) entry {
	fi, err := os.Lstat(path)
	if err != nil {
		return entry{}
	}
	e := entry{exists: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.ctime, e.ino = sys.Ctim, sys.Ino
	}
	if fi.IsDir() {
		e.size, e.mtime = 0, time.Time{} // its entries are compared one by one
	}
	return e
}

// Changed lists the pinned paths (and entries of pinned directories)
// that are not as they were; once something changed, it stays changed.
func (p *Pins) Changed() []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed != nil {
		return p.changed
	}
	now := p.take()
	var out []string
	for path, was := range p.state {
		if now[path] != was {
			out = append(out, path)
		}
	}
	for path := range now {
		if _, ok := p.state[path]; !ok {
			out = append(out, path)
		}
	}
	if len(out) > 0 {
		slices.Sort(out)
		p.changed = out
	}
	return out
}

// ErrChanged is wrapped by Check's error.
var ErrChanged = errors.New("a file it runs or imports changed since tackle started")

// Check returns an error wrapping ErrChanged, naming what changed, once
// a pinned path changed; nil while none did.
func (p *Pins) Check() error {
	changed := p.Changed()
	if len(changed) == 0 {
		return nil
	}
	shown := changed
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(changed) > 3 {
		more = fmt.Sprintf(" and %d more", len(changed)-3)
	}
	return fmt.Errorf("not run: %w (%s%s); the model may have changed it: look at it, then start tackle again", ErrChanged, strings.Join(shown, ", "), more)
}
