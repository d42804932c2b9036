package checks

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// tracker remembers the files changed during the current run, and the
// snapshots taken before bash commands.
type tracker struct {
	mu      sync.Mutex
	changed map[string]bool     // workspace paths, forward slashes
	before  map[string]snapshot // bash call ID → the tree before it ran
}

func (t *tracker) add(paths ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.changed == nil {
		t.changed = make(map[string]bool)
	}
	for _, p := range paths {
		t.changed[p] = true
	}
}

// list returns the changed files, sorted.
func (t *tracker) list() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.changed))
	for p := range t.changed {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (t *tracker) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.changed, t.before = nil, nil
}

func (t *tracker) setBefore(callID string, s snapshot) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.before == nil {
		t.before = make(map[string]snapshot)
	}
	t.before[callID] = s
}

func (t *tracker) takeBefore(callID string) (snapshot, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.before[callID]
	delete(t.before, callID)
	return s, ok
}

// stamp is what a snapshot knows of a file.
type stamp struct {
	size  int64
	mtime int64 // Unix nanoseconds
}

// snapshot maps workspace paths to stamps.
type snapshot map[string]stamp

// skipDirs are never walked: version control data and installed
// JavaScript packages (huge, and never the model's work).
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// takeSnapshot stats every file below root for which want(rel) is true.
// It never follows symbolic links (a link is not a file it tracks). A
// directory that cannot be read is skipped. It stops early, returning
// ctx's error, when ctx is done.
func takeSnapshot(ctx context.Context, root string, want func(rel string) bool) (snapshot, error) {
	s := make(snapshot)
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: skip it (a directory's entries too)
		}
		if d.IsDir() {
			if skipDirs[d.Name()] && p != root {
				return filepath.SkipDir
			}
			return ctx.Err()
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, prefix))
		if !want(rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone since it was listed
		}
		s[rel] = stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// diff returns the files of after that are new or differ from before,
// sorted. Removed files are not changes to check.
func diff(before, after snapshot) []string {
	var out []string
	for p, st := range after {
		if old, ok := before[p]; !ok || old != st {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
