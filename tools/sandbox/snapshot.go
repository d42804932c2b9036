package sandbox

import (
	"io/fs"
	"path/filepath"
	"slices"
)

// snapshot is what was at the protected paths when a command started:
// for each path (and, in deep mode, everything under it) its kind, mode,
// size, inode and times. The inode change time moves with every write,
// chmod, rename and link, and a process cannot set it back.
type snapshot struct {
	deep    []string // trees recorded whole
	shallow []string // paths recorded themselves, or as missing
	files   map[string]fileState
}

type fileState struct {
	mode         fs.FileMode
	size         int64
	ino          uint64
	mtime, ctime int64
}

func takeSnapshot(deep, shallow []string) snapshot {
	s := snapshot{deep: deep, shallow: shallow}
	s.files = s.take()
	return s
}

func (s snapshot) again() snapshot {
	s.files = s.take()
	return s
}

func (s snapshot) take() map[string]fileState {
	files := map[string]fileState{}
	for _, p := range s.shallow {
		if st, err := lstat(p); err == nil {
			files[p] = st
		}
	}
	for _, root := range s.deep {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // gone, or unreadable: left out, which shows as a change if it was there
			}
			if st, err := lstat(path); err == nil {
				files[path] = st
			}
			return nil
		})
	}
	return files
}

// changed lists the paths whose state differs in after, sorted.
func (s snapshot) changed(after snapshot) []string {
	var out []string
	for path, st := range s.files {
		if now, ok := after.files[path]; !ok || now != st {
			out = append(out, path)
		}
	}
	for path := range after.files {
		if _, ok := s.files[path]; !ok {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}
