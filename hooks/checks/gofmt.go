package checks

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// gofmtTimeout bounds one gofmt process (one file).
const gofmtTimeout = 30 * time.Second

// fmtResult is what gofmt made of one file.
type fmtResult struct {
	path      string
	diags     []Diagnostic
	syntax    bool // the file does not parse
	formatted bool // the file was rewritten
	err       error
}

// gofmtFile runs the real gofmt on one workspace file: its content is
// read through root and piped in, so gofmt never opens a path that a
// link could redirect. A syntax error becomes a diagnostic; a file that
// only needs formatting is rewritten atomically (or, with noAutoformat,
// reported).
func (c *Checker) gofmtFile(ctx context.Context, root *os.Root, gofmt, rel string) fmtResult {
	res := fmtResult{path: rel}
	name := filepath.FromSlash(rel)
	fi, err := root.Lstat(name)
	if err != nil {
		res.err = err
		return res
	}
	src, err := root.ReadFile(name)
	if err != nil {
		res.err = err
		return res
	}
	pr := c.run(ctx, proc{argv: []string{gofmt, "-e"}, dir: c.root, env: c.env, stdin: src, timeout: gofmtTimeout})
	switch {
	case pr.err != nil:
		res.err = fmt.Errorf("gofmt %s: %w", rel, pr.err)
		return res
	case pr.exit != 0:
		p := outputParser{check: checkGofmt, dir: c.root, root: c.root, stdin: rel}.parse(string(pr.stderr))
		if len(p.diags) == 0 {
			res.err = fmt.Errorf("gofmt %s: exit status %d: %s", rel, pr.exit, firstLine(string(pr.stderr)))
			return res
		}
		res.diags, res.syntax = p.diags, true
		return res
	}
	if bytes.Equal(pr.stdout, src) {
		return res
	}
	if c.cfg.NoAutoformat {
		res.diags = []Diagnostic{{
			Check:   checkGofmt,
			Path:    rel,
			Line:    firstDiff(src, pr.stdout),
			Message: "not formatted as gofmt formats it (gofmt -d " + rel + " shows the change; gofmt -w fixes it)",
		}}
		return res
	}
	if err := replaceFile(root, name, pr.stdout, fi); err != nil {
		res.err = fmt.Errorf("format %s: %w", rel, err)
		return res
	}
	res.formatted = true
	return res
}

// errChanged is returned by replaceFile when the file changed while it
// was being formatted.
var errChanged = errors.New("the file changed while it was being formatted; left as it is")

// replaceFile replaces name (in root) with data atomically: a temporary
// file in the same directory is written, synced, given the old file's
// mode and renamed over it, unless the file changed since it was stat'd
// as was.
func replaceFile(root *os.Root, name string, data []byte, was fs.FileInfo) (err error) {
	dir, base := filepath.Split(name)
	tmp := filepath.Join(dir, "."+base+".tackle-fmt-"+rand.Text()[:12]+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Chmod(was.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	now, err := root.Lstat(name)
	if err != nil {
		return err
	}
	if !now.Mode().IsRegular() || now.Size() != was.Size() || !now.ModTime().Equal(was.ModTime()) {
		return errChanged
	}
	if err := root.Rename(tmp, name); err != nil {
		return err
	}
	if d, err := root.Open(filepath.Clean(dir + ".")); err == nil {
		d.Sync() // durability of the rename; a failure is not a failed write
		d.Close()
	}
	return nil
}

// firstDiff returns the first line (from 1) where a and b differ.
func firstDiff(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}

// firstLine returns the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
