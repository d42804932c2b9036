package tools

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// newFileMode is the mode of files the tools create.
const newFileMode fs.FileMode = 0o644

// writeAtomic replaces (or creates) the file rel in the workspace with
// data: it writes a temporary file in the same directory, syncs it, gives
// it mode, renames it over rel and syncs the directory. Readers see the
// old content or the new, never a mix; after a failure the old file is
// intact and the temporary file is gone, and a temporary file left by a
// killed process is in the workspace's TempJournal, if it has one. rel
// must already be resolved (see Workspace.Resolve) and its directory must
// exist.
func (w *Workspace) writeAtomic(rel string, data []byte, mode fs.FileMode) (err error) {
	dir, base := filepath.Split(rel)
	tmp := filepath.Join(dir, "."+base+".tackle-"+rand.Text()[:12]+".tmp")
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	// The journal lets the next tackle remove the file if this process
	// dies before it is renamed or removed.
	forget := func() {}
	if w.journal != nil {
		if fi, err := f.Stat(); err == nil {
			forget, _ = w.journal.add(w.dir, tmp, fi)
		}
	}
	defer func() {
		if err != nil {
			f.Close()
			w.root.Remove(tmp)
		}
		forget()
	}()
	var out io.Writer = f
	if w.wrapWriter != nil {
		out = w.wrapWriter(f)
	}
	if _, err := out.Write(data); err != nil {
		return fmt.Errorf("write temporary file: %w", err)
	}
	if err := w.step("sync"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync temporary file: %w", err)
	}
	// Chmod through the descriptor: it cannot be redirected by a link.
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("set mode: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temporary file: %w", err)
	}
	if err := w.step("rename"); err != nil {
		return err
	}
	if err := w.root.Rename(tmp, rel); err != nil {
		return fmt.Errorf("rename temporary file: %w", err)
	}
	// The rename is done; a failure to sync the directory only weakens
	// durability, so it is not reported as a failed write.
	if d, err := w.root.Open(filepath.Clean(dir + ".")); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// step runs the test fault hook for one step of a write ("sync",
// "rename").
func (w *Workspace) step(name string) error {
	if w.fault == nil {
		return nil
	}
	if err := w.fault(name); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// keepMode returns the permission bits of an existing file that a
// replacement keeps (setuid, setgid and sticky included).
func keepMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// errNotRegular is returned when a tool is asked to read or replace
// something that is not a regular file.
var errNotRegular = errors.New("not a regular file")
