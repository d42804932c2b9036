// Package atomicfile replaces files outside the workspace (tackle's own
// config, state and caches) in one step: a reader sees the old content or
// the new, never a mix, and a crash leaves the old file. It imports
// nothing of tackle. (Files in the workspace go through the Workspace's
// os.Root and its journal of temporary files instead.)
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data: a temporary file in the
// same directory with path's permission bits (perm for a new file),
// synced, renamed over it. On an error the file is as it was and the
// temporary file is gone.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteCache is Write without the fsyncs, for a file whose loss costs
// nothing (a cache, the prompt history): a reader still sees the old
// content or the new, but after a crash of the machine the file may be
// empty. It keeps the disk out of a start-up or a prompt.
func WriteCache(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, sync bool) (err error) {
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tackle-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		dir.Sync() // the rename, on file systems that need it; best effort
		dir.Close()
	}
	return nil
}
