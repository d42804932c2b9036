package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	udiff "github.com/aymanbagabas/go-udiff"
)

// WriteFile is the name of the write_file tool.
const WriteFile = "write_file"

//go:embed descriptions/write_file.md
var writeFileDescription string

// WriteFileArgs are the arguments of write_file.
type WriteFileArgs struct {
	Path    string `json:"path" jsonschema:"The file to write, relative to the workspace root. Missing parent directories are created."`
	Content string `json:"content" jsonschema:"The complete new content of the file."`
}

// Summary gives the file it writes.
func (a WriteFileArgs) Summary() string { return a.Path }

// Paths returns the file the call writes.
func (a WriteFileArgs) Paths() []string { return []string{a.Path} }

// Access: write_file changes the file.
func (WriteFileArgs) Access() Access { return EditsFiles }

// writeFileTool is write_file: it replaces or creates a file, refusing
// one that changed since the model last saw it.
type writeFileTool struct {
	ws    *Workspace
	files *fileState
}

func (t writeFileTool) tool() *Tool {
	return New(WriteFile, writeFileDescription, KindEdit, t.run, t.preview)
}

func (t writeFileTool) run(ctx context.Context, a WriteFileArgs) (Result, error) {
	rel, err := t.ws.resolveFile(a.Path)
	if err != nil {
		return t.ws.failPath(a.Path, err), nil
	}
	if rel == "." {
		return Fail("%s is the workspace root, not a file.", quotePath(a.Path)), nil
	}
	shown := display(rel)
	t.files.writeMu.Lock()
	defer t.files.writeMu.Unlock()

	mode := newFileMode
	verb := "created"
	var before []byte // the content replaced: for the diff, and undo
	f, fi, err := t.ws.openRegular(rel)
	switch {
	case err == nil:
		var buf bytes.Buffer
		cur, err := stampFile(io.TeeReader(f, &buf), fi)
		f.Close()
		before = buf.Bytes()
		if err != nil {
			return Fail("Cannot read the current %s: %v.", shown, err), nil
		}
		if why := t.files.check(rel, cur, "overwrite"); why != "" {
			return Fail("%s", why), nil
		}
		mode, verb = keepMode(fi), "replaced"
	case errors.Is(err, fs.ErrNotExist):
		if dir := filepath.Dir(rel); dir != "." {
			if err := t.ws.root.MkdirAll(dir, 0o755); err != nil {
				return t.ws.failPath(filepath.Dir(a.Path), err), nil
			}
		}
	default:
		return t.ws.failPath(a.Path, err), nil
	}

	if err := t.ws.writeAtomic(rel, []byte(a.Content), mode); err != nil {
		return Fail("Could not write %s: %v. The file was left as it was.", shown, t.ws.fileError(a.Path, err)), nil
	}
	t.files.wrote(rel, before, verb == "replaced", []byte(a.Content))
	msg := fmt.Sprintf("Wrote %s (%s) to %s (%s).", plural(countLines(a.Content), "line"), plural(len(a.Content), "byte"), shown, verb)
	if verb == "replaced" {
		if d := udiff.Unified("a/"+shown, "b/"+shown, string(before), a.Content); d != "" {
			msg += "\n" + capDiff(d)
		} else {
			msg += " The content is the same as before."
		}
	}
	return OK(msg), nil
}

// preview is the file a call would write, before and after, worked out
// by the same checks as run: a call run would refuse (a path it cannot
// write, a file the model never read or that changed since) is Refused.
func (t writeFileTool) preview(a WriteFileArgs) Preview {
	c := &FileChange{Action: "write", Path: a.Path, New: a.Content}
	p := Preview{Summary: a.Summary(), Change: c}
	rel, err := t.ws.resolveFile(a.Path)
	if err != nil {
		p.refuse("write", t.ws.failPath(a.Path, err))
		return p
	}
	if rel == "." {
		p.refuse("write", Fail("%s is the workspace root, not a file.", quotePath(a.Path)))
		return p
	}
	c.Path = display(rel)
	f, fi, err := t.ws.openRegular(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Created = true
		return p
	case err != nil:
		p.refuse("write", t.ws.failPath(a.Path, err))
		return p
	}
	defer f.Close()
	var old bytes.Buffer
	var keep io.Writer = &old
	if fi.Size() > maxPreviewSize {
		keep = io.Discard // only its stamp: too large to compare
	}
	cur, err := stampFile(io.TeeReader(f, keep), fi)
	if err != nil {
		p.Problem = fmt.Sprintf("cannot read the current file: %v", err)
		return p
	}
	c.Old = old.String()
	if why := t.files.check(rel, cur, "overwrite"); why != "" {
		p.refuse("write", Fail("%s", why))
		return p
	}
	if fi.Size() > maxPreviewSize {
		p.Problem = fmt.Sprintf("the current file is too large to compare (%s)", humanSize(fi.Size()))
	}
	return p
}
