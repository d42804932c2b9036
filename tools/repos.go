package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// maxRepoScan bounds the entries one scan for git directories visits.
const maxRepoScan = 500_000

// Repositories finds the git directories of a workspace, for the sandbox
// to keep read-only: every .git at any depth (a directory, or the file
// that points a worktree or submodule at its git directory) and every
// directory git would take for a repository without being told (a bare
// one: HEAD, objects/ and refs/ — or the workspace root itself made to
// look like one). A change there runs code later, outside the sandbox:
// hooks, core.fsmonitor, filters.
//
// A scan walks the whole workspace without following symbolic links, so
// it runs in the background: Paths gives the last scan's answer (waiting
// only for the first), and Rescan starts a new one after a command that
// may have made a repository.
type Repositories struct {
	root string

	mu      sync.Mutex
	paths   []string
	first   chan struct{} // closed when the first scan is done
	running bool
	again   bool          // a rescan was asked for while one ran
	idle    chan struct{} // closed when the scans running end
}

// NewRepositories starts the first scan of the workspace at root.
func NewRepositories(root string) *Repositories {
	r := &Repositories{root: root, first: make(chan struct{}), idle: make(chan struct{})}
	r.running = true
	go r.scan()
	return r
}

// Paths returns the git directories found, absolute.
func (r *Repositories) Paths() []string {
	<-r.first
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paths
}

// Rescan starts a new scan, or has the running one followed by another.
func (r *Repositories) Rescan() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		r.again = true
		return
	}
	r.running, r.idle = true, make(chan struct{})
	go r.scan()
}

// waitScan waits until no scan runs.
func (r *Repositories) waitScan() {
	r.mu.Lock()
	idle := r.idle
	r.mu.Unlock()
	<-idle
}

func (r *Repositories) scan() {
	for {
		paths := findRepositories(r.root)
		r.mu.Lock()
		r.paths = paths
		select {
		case <-r.first:
		default:
			close(r.first)
		}
		if !r.again {
			r.running = false
			close(r.idle)
			r.mu.Unlock()
			return
		}
		r.again = false
		r.mu.Unlock()
	}
}

// gitFiles are the entries of a git directory through which a change
// runs code later or changes what git does: its configuration, hooks and
// what it points at.
var gitFiles = []string{"HEAD", "config", "hooks", "objects", "refs", "info", "packed-refs", "commondir", "gitdir", "modules", "worktrees"}

// findRepositories walks root for git directories (see Repositories): a
// .git is returned whole; of a directory that looks like a git directory
// without the name (a bare repository, the workspace made to look like
// one) its git entries are, which keeps the rest of it writable. A HEAD
// at the root is always named, so that a command planting a repository
// there is reported (sandbox.Process.Changed).
func findRepositories(root string) []string {
	out := []string{filepath.Join(root, "HEAD")}
	seen := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		seen++
		if seen > maxRepoScan {
			return filepath.SkipAll
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" && path != root {
			out = append(out, path)
			if d.IsDir() {
				return filepath.SkipDir // its inside is protected with it
			}
			return nil
		}
		if d.IsDir() && looksLikeGitDir(path) {
			for _, name := range gitFiles {
				if p := filepath.Join(path, name); p != out[0] {
					out = append(out, p)
				}
			}
		}
		return nil
	})
	return out
}

// looksLikeGitDir reports whether git would take dir for a git directory:
// it holds HEAD, objects/ and refs/ (git's own test, is_git_directory).
func looksLikeGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}
