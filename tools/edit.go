package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Limits of edit_file and of the diff it returns.
const (
	maxDiffLines     = 80
	maxDiffBytes     = 8 << 10
	maxDiffLineBytes = 400

	maxEditSize = 64 << 20 // larger files are not edited
)

// EditFile is the name of the edit_file tool.
const EditFile = "edit_file"

//go:embed descriptions/edit_file.md
var editFileDescription string

// EditFileArgs are the arguments of edit_file.
type EditFileArgs struct {
	Path       string `json:"path" jsonschema:"The file to edit, relative to the workspace root."`
	OldString  string `json:"old_string" jsonschema:"The exact text to replace, including whitespace and indentation. It must occur exactly once unless replace_all is true."`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place (empty to delete). Must differ from old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string instead of exactly one. Default false."`
}

// Summary gives the file it edits.
func (a EditFileArgs) Summary() string { return a.Path }

// Paths returns the file the call edits.
func (a EditFileArgs) Paths() []string { return []string{a.Path} }

// Access: edit_file changes the file, and its result shows it.
func (EditFileArgs) Access() Access { return EditsFiles | ReadsFiles }

// editFileTool is edit_file: it replaces text in a file, refusing one
// that changed since the model last saw it.
type editFileTool struct {
	ws    *Workspace
	files *fileState
}

func (t editFileTool) tool() *Tool {
	return New(EditFile, editFileDescription, KindEdit, t.run, t.preview)
}

func (t editFileTool) run(ctx context.Context, a EditFileArgs) (Result, error) {
	if why := a.invalid(); why != "" {
		return Fail("%s", why), nil
	}
	rel, err := t.ws.resolveFile(a.Path)
	if err != nil {
		return t.ws.failPath(a.Path, err), nil
	}
	t.files.writeMu.Lock()
	defer t.files.writeMu.Unlock()

	f, fail := t.load(rel, a.Path)
	if fail.IsError {
		return fail, nil
	}
	if why := t.files.check(rel, stampOf(f.info, f.data), "edit"); why != "" {
		return Fail("%s", why), nil
	}
	shown := display(rel)
	e := planEdit(string(f.data), a)
	if fail := e.failure(shown); fail.IsError {
		return fail, nil
	}
	if err := t.ws.writeAtomic(rel, []byte(e.updated), keepMode(f.info)); err != nil {
		return Fail("Could not write %s: %v. The file was left as it was.", shown, t.ws.fileError(a.Path, err)), nil
	}
	t.files.wrote(rel, f.data, true, []byte(e.updated))
	diff := capDiff(udiff.Unified("a/"+shown, "b/"+shown, e.content, e.updated))
	return OK(fmt.Sprintf("Edited %s: replaced %s.\n%s", shown, plural(e.n, "occurrence"), diff)), nil
}

// preview is the file a call would change, before and after, worked out
// by the same steps as run; or, when the edit will fail (Refused: what run
// would answer) or the file is too large to show, old_string and
// new_string with the reason.
func (t editFileTool) preview(a EditFileArgs) Preview {
	p := Preview{Summary: a.Summary()}
	c := &FileChange{Action: "edit", Path: a.Path, Old: a.OldString, New: a.NewString, ReplaceAll: a.ReplaceAll}
	p.Change = c
	if why := a.invalid(); why != "" {
		p.refuse("edit", Fail("%s", why))
		return p
	}
	rel, err := t.ws.resolveFile(a.Path)
	if err != nil {
		p.refuse("edit", t.ws.failPath(a.Path, err))
		return p
	}
	c.Path = display(rel)
	f, fail := t.load(rel, a.Path)
	if fail.IsError {
		p.refuse("edit", fail)
		return p
	}
	if why := t.files.check(rel, stampOf(f.info, f.data), "edit"); why != "" {
		p.refuse("edit", Fail("%s", why))
		return p
	}
	e := planEdit(string(f.data), a)
	if fail := e.failure(c.Path); fail.IsError {
		p.Problem, p.Refused = e.problem(), fail.Content
		return p
	}
	c.Replaced = e.n
	if len(f.data) > maxPreviewSize {
		p.Problem = fmt.Sprintf("%s is too large to show in full (%s): only the replaced text is shown", c.Path, humanSize(int64(len(f.data))))
		return p
	}
	c.Old, c.New = e.content, e.updated
	return p
}

// invalid says why the arguments cannot make an edit, or "".
func (a EditFileArgs) invalid() string {
	switch {
	case a.OldString == "":
		return "old_string is empty. Give the exact text to replace; to create a file or replace all of it, use write_file."
	case a.OldString == a.NewString:
		return "old_string and new_string are identical, so there is nothing to change."
	}
	return ""
}

// loaded is a file as read for an edit.
type loaded struct {
	data []byte
	info fs.FileInfo
}

// load reads the text file rel (path as the call names it) for an edit. A
// failure is a result with IsError.
func (t editFileTool) load(rel, path string) (loaded, Result) {
	f, fi, err := t.ws.openRegular(rel)
	if err != nil {
		res := t.ws.failPath(path, err)
		if errors.Is(err, fs.ErrNotExist) {
			res.Content += " To create a new file, use write_file."
		}
		return loaded{}, res
	}
	defer f.Close()
	shown := display(rel)
	if fi.Size() > maxEditSize {
		return loaded{}, Fail("%s is %s, too large for edit_file (at most %d MiB). Use bash to change it.", shown, humanSize(fi.Size()), maxEditSize>>20)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return loaded{}, Fail("Cannot read %s: %v.", shown, err)
	}
	if why := binaryReason(data); why != "" {
		return loaded{}, Fail("%s looks like a binary file (%s); edit_file only edits text.", shown, why)
	}
	return loaded{data: data, info: fi}, Result{}
}

// edit is an edit_file call applied to a file's content: what the tool
// writes, and what the approval dialog shows.
type edit struct {
	content   string
	old, repl string // as matched (see matchEdit)
	n         int    // occurrences of old
	all       bool   // replace every occurrence
	updated   string // the new content, when the edit applies
}

// planEdit applies a call to content, without writing anything.
func planEdit(content string, a EditFileArgs) edit {
	old, repl, n := matchEdit(content, a.OldString, a.NewString)
	e := edit{content: content, old: old, repl: repl, n: n, all: a.ReplaceAll}
	if e.applies() {
		count := 1
		if e.all {
			count = -1
		}
		e.updated = strings.Replace(content, old, repl, count)
	}
	return e
}

// applies reports whether the edit can be made: old occurs once, or
// every occurrence is to be replaced.
func (e edit) applies() bool { return e.n == 1 || e.n > 1 && e.all }

// failure is the result for an edit that cannot be made in the file
// shown, for the model; IsError is false when it can.
func (e edit) failure(shown string) Result {
	switch {
	case e.n == 0:
		msg := fmt.Sprintf("old_string was not found in %s.", shown)
		if t := strings.TrimSpace(e.old); t != "" && t != e.old && strings.Contains(e.content, t) {
			msg += " It does occur without its leading and trailing whitespace: check the indentation and line breaks."
		}
		return Fail("%s Re-read the file with read_file and copy the text exactly as it is now (without the line-number prefix).", msg)
	case !e.applies():
		return Fail("old_string occurs %d times in %s (at lines %s). Include more surrounding lines in old_string so that it matches exactly once, or set replace_all to true to change every occurrence.",
			e.n, shown, matchLines(e.content, e.old, 10))
	}
	return Result{}
}

// problem says why the edit cannot be made, for the person approving it,
// or "".
func (e edit) problem() string {
	switch {
	case e.n == 0:
		return "old_string is not in the file: the edit will fail"
	case !e.applies():
		return fmt.Sprintf("old_string occurs %d times: the edit will fail", e.n)
	}
	return ""
}

// matchLines lists the line numbers of the first max occurrences of s.
func matchLines(content, s string, max int) string {
	var b strings.Builder
	line, pos, count := 1, 0, 0
	for {
		i := strings.Index(content[pos:], s)
		if i < 0 {
			break
		}
		line += strings.Count(content[pos:pos+i], "\n")
		if count == max {
			b.WriteString(", …")
			break
		}
		if count > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", line)
		count++
		line += strings.Count(s, "\n")
		pos += i + len(s)
	}
	return b.String()
}

// capDiff shortens a unified diff to maxDiffLines lines and maxDiffBytes,
// and each line to maxDiffLineBytes.
func capDiff(diff string) string {
	lines := strings.SplitAfter(diff, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		if i == maxDiffLines || b.Len()+len(l) > maxDiffBytes {
			fmt.Fprintf(&b, "[diff cut short: %d more lines]\n", len(lines)-i)
			break
		}
		if len(l) > maxDiffLineBytes {
			l = chat.Quote(strings.TrimSuffix(l, "\n"), maxDiffLineBytes) + "\n"
		}
		b.WriteString(l)
	}
	return b.String()
}

// matchEdit finds old in content and returns the strings to replace (old
// and repl, adapted to the file's CRLF line endings, which read_file does
// not show, when only that form occurs) and how many times old occurs.
func matchEdit(content, old, repl string) (string, string, int) {
	n := strings.Count(content, old)
	if n == 0 && strings.Contains(old, "\n") && !strings.Contains(old, "\r") && strings.Contains(content, "\r\n") {
		crlfOld := strings.ReplaceAll(old, "\n", "\r\n")
		if m := strings.Count(content, crlfOld); m > 0 {
			return crlfOld, strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", "\r\n"), m
		}
	}
	return old, repl, n
}
