package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// securityLayout is a workspace with hostile neighbours:
//
//	base/outside/secret.txt   TOP SECRET, outside the workspace
//	base/proj-evil/secret.txt a sibling sharing the workspace's prefix
//	base/proj/                the workspace
//	  real.txt                a file inside
//	  link -> base/outside/secret.txt       absolute link out
//	  rellink -> ../outside/secret.txt      relative link out
//	  dirlink -> base/outside               a parent directory out
//	  alias -> real.txt                     a link that stays inside
//	  absalias -> base/proj/real.txt        an absolute link inside
//	  loop1 -> loop2, loop2 -> loop1        a link loop
//	  a/self -> ..                          a directory loop
type securityLayout struct {
	r                         *Registry
	base, ws, outside, secret string
}

const secretText = "TOP SECRET\n"

func newSecurityLayout(t *testing.T) *securityLayout {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &securityLayout{base: base, ws: filepath.Join(base, "proj"), outside: filepath.Join(base, "outside")}
	l.secret = writeFile(t, base, "outside/secret.txt", secretText)
	writeFile(t, base, "proj-evil/secret.txt", secretText)
	writeFile(t, l.ws, "real.txt", "inside\n")
	writeFile(t, l.ws, "a/file.txt", "in a\n")
	for link, target := range map[string]string{
		"link":     l.secret,
		"rellink":  "../outside/secret.txt",
		"dirlink":  l.outside,
		"alias":    "real.txt",
		"absalias": filepath.Join(l.ws, "real.txt"),
		"loop1":    "loop2",
		"loop2":    "loop1",
		"a/self":   "..",
	} {
		if err := os.Symlink(target, filepath.Join(l.ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := OpenWorkspace(l.ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	l.r = NewRegistry(ws, WithEnv(testEnv()))
	return l
}

// outsideUntouched fails if anything outside the workspace changed.
func (l *securityLayout) outsideUntouched(t *testing.T) {
	t.Helper()
	if got := readFile(t, l.secret); got != secretText {
		t.Errorf("secret.txt changed: %q", got)
	}
	entries, _ := os.ReadDir(l.outside)
	if len(entries) != 1 {
		t.Errorf("files appeared outside the workspace: %v", entries)
	}
	entries, _ = os.ReadDir(filepath.Join(l.base, "proj-evil"))
	if len(entries) != 1 {
		t.Errorf("files appeared in the sibling: %v", entries)
	}
}

func TestSecurityWorkspaceBoundary(t *testing.T) {
	l := newSecurityLayout(t)
	outside := "is outside the workspace " + l.ws
	tests := []struct {
		name string
		tool string
		args any
		want []string
	}{
		{"dotdot read", "read_file", ReadFileArgs{Path: "../outside/secret.txt"}, []string{"Path ../outside/secret.txt " + outside}},
		{"dotdot hidden in the middle", "read_file", ReadFileArgs{Path: "a/../../outside/secret.txt"}, []string{outside}},
		{"dotdot write", "write_file", WriteFileArgs{Path: "../outside/new.txt", Content: "x"}, []string{outside}},
		{"absolute outside", "read_file", ReadFileArgs{Path: "/etc/passwd"}, []string{"Path /etc/passwd " + outside}},
		{"absolute secret", "read_file", ReadFileArgs{Path: filepath.Join(l.base, "outside/secret.txt")}, []string{outside}},
		{"shared-prefix sibling, relative", "read_file", ReadFileArgs{Path: "../proj-evil/secret.txt"}, []string{outside}},
		{"shared-prefix sibling, absolute", "read_file", ReadFileArgs{Path: filepath.Join(l.base, "proj-evil/secret.txt")}, []string{outside}},
		{"shared-prefix sibling, write", "write_file", WriteFileArgs{Path: filepath.Join(l.base, "proj-evil/new.txt"), Content: "x"}, []string{outside}},
		{"absolute link out, read", "read_file", ReadFileArgs{Path: "link"}, []string{outside, "the symbolic link link points to " + l.secret}},
		{"absolute link out, write", "write_file", WriteFileArgs{Path: "link", Content: "pwned"}, []string{outside}},
		{"absolute link out, edit", "edit_file", EditFileArgs{Path: "link", OldString: "TOP", NewString: "NO"}, []string{outside}},
		{"relative link out, read", "read_file", ReadFileArgs{Path: "rellink"}, []string{outside, "points to ../outside/secret.txt"}},
		{"relative link out, write", "write_file", WriteFileArgs{Path: "rellink", Content: "pwned"}, []string{outside}},
		{"relative link out, edit", "edit_file", EditFileArgs{Path: "rellink", OldString: "TOP", NewString: "NO"}, []string{outside}},
		{"link in a parent, read", "read_file", ReadFileArgs{Path: "dirlink/secret.txt"}, []string{outside, "the symbolic link dirlink points to"}},
		{"link in a parent, write", "write_file", WriteFileArgs{Path: "dirlink/new.txt", Content: "x"}, []string{outside}},
		{"link in a parent, edit", "edit_file", EditFileArgs{Path: "dirlink/secret.txt", OldString: "TOP", NewString: "NO"}, []string{outside}},
		{"link in a parent, list_dir", "list_dir", ListDirArgs{Path: "dirlink"}, []string{outside}},
		{"link in a parent, grep", "grep", GrepArgs{Pattern: "SECRET", Path: "dirlink"}, []string{outside}},
		{"link in a parent, glob", "glob", GlobArgs{Pattern: "*", Path: "dirlink"}, []string{outside}},
		{"link in a parent, glob pattern", "glob", GlobArgs{Pattern: "dirlink/*.txt"}, []string{outside}},
		{"link loop", "read_file", ReadFileArgs{Path: "loop1"}, []string{"too many levels of symbolic links"}},
		{"NUL byte", "read_file", `{"path": "real.txt\u0000.png"}`, []string{`Path "real.txt\x00.png" is invalid (it contains a NUL byte)`}},
		{"NUL byte, write", "write_file", `{"path": "x\u0000", "content": ""}`, []string{"contains a NUL byte"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, l.r, tt.tool, tt.args), tt.want...)
			l.outsideUntouched(t)
		})
	}
}

func TestSecurityWalksStayInside(t *testing.T) {
	l := newSecurityLayout(t)
	// Links are not followed while walking: no result from outside, and
	// the directory loop a/self -> .. ends.
	got := wantOK(t, call(t, l.r, "grep", GrepArgs{Pattern: "SECRET|inside|in a"}))
	if want := "a/file.txt:1:in a\nreal.txt:1:inside\n[2 matching lines in 2 files.]\n"; got != want {
		t.Errorf("grep got:\n%s\nwant:\n%s", got, want)
	}
	got = wantOK(t, call(t, l.r, "glob", GlobArgs{Pattern: "**"}))
	if want := "a/file.txt\na/self\nabsalias\nalias\ndirlink\nlink\nloop1\nloop2\nreal.txt\nrellink\n"; got != want {
		t.Errorf("glob got:\n%s\nwant:\n%s", got, want)
	}
	got = wantOK(t, call(t, l.r, "glob", GlobArgs{Pattern: "**/*.txt", Path: "a/self"}))
	if want := "a/file.txt\nreal.txt\n"; got != want {
		t.Errorf("glob through a/self got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSecurityLinksInsideWork(t *testing.T) {
	l := newSecurityLayout(t)
	for _, p := range []string{"alias", "absalias", "a/self/real.txt", filepath.Join(l.ws, "real.txt")} {
		got := wantOK(t, call(t, l.r, "read_file", ReadFileArgs{Path: p}))
		if got != "     1\tinside\n" {
			t.Errorf("read %s: %q", p, got)
		}
	}
	// An edit through a link edits its target and keeps the link.
	wantOK(t, call(t, l.r, "edit_file", EditFileArgs{Path: "alias", OldString: "inside", NewString: "edited"}))
	if got := readFile(t, filepath.Join(l.ws, "real.txt")); got != "edited\n" {
		t.Errorf("real.txt = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(l.ws, "alias")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("alias is no longer a symbolic link")
	}
	// The read of real.txt through alias counts for absalias: one file.
	wantOK(t, call(t, l.r, "edit_file", EditFileArgs{Path: "absalias", OldString: "edited", NewString: "again"}))
}

func TestSecurityLinkSwappedBeforeUse(t *testing.T) {
	l := newSecurityLayout(t)
	wantOK(t, call(t, l.r, "write_file", WriteFileArgs{Path: "sub/f.txt", Content: "v1\n"}))
	// Between the checks and the rename, sub is swapped for a link to
	// the outside directory.
	sub := filepath.Join(l.ws, "sub")
	l.r.ws.fault = func(step string) error {
		if step == "rename" {
			if err := os.Rename(sub, sub+".old"); err != nil {
				return err
			}
			return os.Symlink(l.outside, sub)
		}
		return nil
	}
	wantError(t, call(t, l.r, "write_file", WriteFileArgs{Path: "sub/f.txt", Content: "v2\n"}), "Could not write sub/f.txt")
	l.outsideUntouched(t)
	l.r.ws.fault = nil

	// Reads go through the os.Root as well: sub still points out.
	wantError(t, call(t, l.r, "read_file", ReadFileArgs{Path: "sub/f.txt"}), "outside the workspace")
	f, _, err := l.r.ws.openRegular("sub/f.txt")
	if err == nil {
		f.Close()
		t.Fatal("opened a file through a link that leads outside")
	}
	if !isEscape(err) {
		t.Errorf("error %v is not an escape", err)
	}
}

func TestSecurityStaleEdit(t *testing.T) {
	l := newSecurityLayout(t)
	wantOK(t, call(t, l.r, "read_file", ReadFileArgs{Path: "real.txt"}))
	// Another process changes the file after the model read it.
	writeFile(t, l.ws, "real.txt", "inside, changed by the user\n")
	wantError(t, call(t, l.r, "edit_file", EditFileArgs{Path: "real.txt", OldString: "inside", NewString: "x"}), "changed on disk")
	wantError(t, call(t, l.r, "write_file", WriteFileArgs{Path: "real.txt", Content: "x"}), "changed on disk")
	if got := readFile(t, filepath.Join(l.ws, "real.txt")); got != "inside, changed by the user\n" {
		t.Errorf("the user's change was lost: %q", got)
	}
}

func TestSecurityAtomicWriteFailure(t *testing.T) {
	for _, step := range []string{"write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			l := newSecurityLayout(t)
			wantOK(t, call(t, l.r, "read_file", ReadFileArgs{Path: "real.txt"}))
			injectFault(l.r.ws, step)
			wantError(t, call(t, l.r, "edit_file", EditFileArgs{Path: "real.txt", OldString: "inside", NewString: strings.Repeat("new", 100)}), "injected")
			if got := readFile(t, filepath.Join(l.ws, "real.txt")); got != "inside\n" {
				t.Errorf("content after a failed write: %q", got)
			}
			matches, _ := filepath.Glob(filepath.Join(l.ws, ".*.tmp"))
			if len(matches) > 0 {
				t.Errorf("temporary files left: %v", matches)
			}
		})
	}
}

func TestSecurityWorkspacePaths(t *testing.T) {
	l := newSecurityLayout(t)
	ws := l.r.Workspace()
	tests := []struct {
		path    string
		rel     string // Rel's result, or
		wantErr error
	}{
		{"real.txt", "real.txt", nil},
		{"./a/../real.txt", "real.txt", nil},
		{".", ".", nil},
		{l.ws, ".", nil},
		{l.ws + "/a/file.txt", "a/file.txt", nil},
		{"..", "", ErrOutsideWorkspace},
		{"../proj", "", ErrOutsideWorkspace},
		{l.ws + "-evil/x", "", ErrOutsideWorkspace},
		{"/", "", ErrOutsideWorkspace},
		{"", "", ErrInvalidPath},
		{"a\x00b", "", ErrInvalidPath},
		{"bad\xff.txt", "", ErrInvalidPath},
	}
	for _, tt := range tests {
		rel, err := ws.Rel(tt.path)
		if !errors.Is(err, tt.wantErr) || rel != tt.rel {
			t.Errorf("Rel(%q) = %q, %v; want %q, %v", tt.path, rel, err, tt.rel, tt.wantErr)
		}
	}
	for path, want := range map[string]string{
		"alias":            "real.txt",
		"absalias":         "real.txt",
		"a/self/a/self/a":  "a",
		"a/self/new/x.txt": "new/x.txt",
		"a/self/../x":      "a/x", // .. is lexical, as in filepath.Clean
	} {
		if got, err := ws.Resolve(path); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{"link", "rellink", "dirlink/secret.txt", "a/self/dirlink/x"} {
		if _, err := ws.Resolve(path); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Resolve(%q) error = %v, want ErrOutsideWorkspace", path, err)
		}
	}
}
