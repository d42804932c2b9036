package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Sentinel errors wrapped by *PathError.
var (
	// ErrOutsideWorkspace means a path resolves outside the workspace root,
	// lexically (.., an absolute path elsewhere) or through a symbolic link.
	ErrOutsideWorkspace = errors.New("outside the workspace")
	// ErrInvalidPath means a path is empty, contains a NUL byte or is not
	// valid UTF-8.
	ErrInvalidPath = errors.New("invalid path")
)

// maxSymlinkHops bounds symbolic-link resolution, like the kernel's
// ELOOP limit.
const maxSymlinkHops = 40

// PathError is a path the workspace refuses. Its message is written for
// the model: it names the path and the workspace.
type PathError struct {
	Path      string // the path as given
	Workspace string // the workspace root
	Detail    string // why, e.g. "it goes through the symbolic link x"
	Err       error  // ErrOutsideWorkspace or ErrInvalidPath
}

func (e *PathError) Error() string {
	var msg string
	if errors.Is(e.Err, ErrOutsideWorkspace) {
		msg = fmt.Sprintf("path %s is outside the workspace %s", quotePath(e.Path), e.Workspace)
	} else {
		msg = fmt.Sprintf("path %s is invalid", quotePath(e.Path))
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *PathError) Unwrap() error { return e.Err }

// quotePath shows a path as is when it is plain, and Go-quoted when it has
// spaces, control characters or invalid UTF-8.
func quotePath(p string) string {
	if p != "" && utf8.ValidString(p) && !strings.ContainsFunc(p, func(r rune) bool {
		return r <= ' ' || r == '"' || r == 0x7f || r == utf8.RuneError
	}) {
		return p
	}
	return fmt.Sprintf("%q", p)
}

// Workspace is the directory tree the file tools may touch. Every access
// goes through an os.Root opened on the directory, so neither "..", nor an
// absolute path, nor a symbolic link (even one swapped in after a check)
// can reach outside it. A Workspace is safe for concurrent use.
type Workspace struct {
	dir   string // absolute, clean, symbolic links evaluated
	given string // absolute and clean, as given to OpenWorkspace
	root  *os.Root

	// Test hooks for atomic writes: wrapWriter wraps the temporary file's
	// writer, fault is called before the "sync" and "rename" steps and
	// fails the write with the error it returns.
	wrapWriter func(io.Writer) io.Writer
	fault      func(step string) error

	journal *TempJournal // nil: temporary files are not journaled
}

// OpenWorkspace opens the workspace rooted at dir, which must be an
// existing directory. Close releases it.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	fi, err := root.Stat(".")
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if !fi.IsDir() {
		root.Close()
		return nil, fmt.Errorf("open workspace: %s is not a directory", real)
	}
	return &Workspace{dir: real, given: abs, root: root}, nil
}

// UseTempJournal makes atomic writes record their temporary files in j,
// so that they can be cleaned up if the process is killed mid-write (see
// CleanStaleTemps). Call it before the workspace is used.
func (w *Workspace) UseTempJournal(j *TempJournal) { w.journal = j }

// Dir returns the absolute path of the workspace root, with symbolic links
// evaluated.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the workspace. The tools fail after Close.
func (w *Workspace) Close() error { return w.root.Close() }

// Rel checks path and returns it relative to the workspace root, cleaned,
// without following symbolic links ("." is the root). Absolute paths
// inside the workspace are accepted. The error is a *PathError.
func (w *Workspace) Rel(path string) (string, error) {
	if err := w.checkName(path); err != nil {
		return "", err
	}
	if filepath.IsAbs(path) {
		p := filepath.Clean(path)
		for _, base := range []string{w.dir, w.given} {
			if rel, ok := within(base, p); ok {
				return rel, nil
			}
		}
		return "", w.outside(path, "")
	}
	rel := filepath.Clean(path)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", w.outside(path, "")
	}
	return rel, nil
}

// Resolve is Rel followed by the resolution of every symbolic link on the
// path, inside the workspace. The result names the real file (or, for a
// path that does not exist yet, where it would be created). A link that
// leads outside the workspace, or a chain of more than 40 links, is an
// error; other file system errors are returned as they are.
//
// Resolve is a check for good messages and for tracking files under one
// name; the operations that follow still go through the os.Root, so a
// link swapped in after Resolve cannot lead them outside either.
func (w *Workspace) Resolve(path string) (string, error) {
	rel, err := w.Rel(path)
	if err != nil {
		return "", err
	}
	pending := splitPath(rel)
	var done []string
	hops := 0
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case ".", "":
			continue
		case "..":
			if len(done) == 0 {
				return "", w.outside(path, "")
			}
			done = done[:len(done)-1]
			continue
		}
		next := filepath.Join(append(done, name)...)
		fi, err := w.root.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// The rest does not exist yet: nothing more to resolve.
			return filepath.Join(append(append(done, name), pending...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, name)
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
		}
		target, err := w.root.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			t, ok := within(w.dir, filepath.Clean(target))
			if !ok {
				return "", w.outside(path, fmt.Sprintf("the symbolic link %s points to %s", filepath.ToSlash(next), target))
			}
			done = nil
			pending = append(splitPath(t), pending...)
			continue
		}
		// A relative target is relative to the link's directory, which is
		// done (already free of links). Escapes are caught by ".." above.
		if escapes(done, target) {
			return "", w.outside(path, fmt.Sprintf("the symbolic link %s points to %s", filepath.ToSlash(next), target))
		}
		pending = append(splitPath(target), pending...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return filepath.Join(done...), nil
}

// resolveFile is Resolve for a path that must name a file: a path that
// ends with a slash, "/." or "/.." names a directory, and is refused
// rather than quietly cleaned into a file name ("src/" into a file "src").
func (w *Workspace) resolveFile(path string) (string, error) {
	if err := w.checkName(path); err != nil {
		return "", err
	}
	i := strings.LastIndexByte(path, filepath.Separator)
	last := path[i+1:]
	if i < 0 || (last != "" && last != "." && last != "..") {
		return w.Resolve(path) // "." alone is the root, which Resolve names
	}
	detail := fmt.Sprintf("it ends with %q, so it names a directory, not a file", last)
	if last == "" {
		detail = fmt.Sprintf("it ends with \"/\", so it names a directory, not a file: give the file's path, such as %s", quotePath(strings.TrimRight(path, "/")+"/name.ext"))
	}
	return "", &PathError{Path: path, Workspace: w.dir, Detail: detail, Err: ErrInvalidPath}
}

// display returns rel, a path relative to the workspace, as it is shown
// to the model: with forward slashes.
func display(rel string) string { return filepath.ToSlash(rel) }

// checkName rejects names no file can have.
func (w *Workspace) checkName(path string) error {
	var detail string
	switch {
	case path == "":
		detail = "it is empty"
	case strings.IndexByte(path, 0) >= 0:
		detail = "it contains a NUL byte"
	case !utf8.ValidString(path):
		detail = "it is not valid UTF-8"
	default:
		return nil
	}
	return &PathError{Path: path, Workspace: w.dir, Detail: detail, Err: ErrInvalidPath}
}

func (w *Workspace) outside(path, detail string) error {
	return &PathError{Path: path, Workspace: w.dir, Detail: detail, Err: ErrOutsideWorkspace}
}

// fileError turns the error of an operation on the workspace into a
// message for the model: an escape caught by os.Root becomes a *PathError.
func (w *Workspace) fileError(path string, err error) error {
	if isEscape(err) {
		return w.outside(path, "it goes through a symbolic link that leads outside")
	}
	return err
}

// isEscape reports whether err is os.Root refusing a path that leaves the
// root. The os package does not export that error, so it is recognised by
// its text (covered by the security tests).
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// within returns p relative to base when p is base or below it.
func within(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// escapes reports whether the relative link target, read in directory
// dir, climbs above the workspace root.
func escapes(dir []string, target string) bool {
	depth := len(dir)
	for _, name := range splitPath(target) {
		switch name {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

func splitPath(p string) []string {
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, string(filepath.Separator))
}
