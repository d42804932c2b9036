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

// editFileTool is edit_file: it replaces text in a file, refusing one
// that changed since the model last saw it.
type editFileTool struct {
	ws    *Workspace
	files *fileState
}

func (t editFileTool) tool() *Tool {
	return New(EditFile, editFileDescription, KindEdit, t.run)
}

func (t editFileTool) run(ctx context.Context, a EditFileArgs) (Result, error) {
	switch {
	case a.OldString == "":
		return Fail("old_string is empty. Give the exact text to replace; to create a file or replace all of it, use write_file."), nil
	case a.OldString == a.NewString:
		return Fail("old_string and new_string are identical, so there is nothing to change."), nil
	}
	rel, err := t.ws.resolveFile(a.Path)
	if err != nil {
		return t.ws.failPath(a.Path, err), nil
	}
	t.files.writeMu.Lock()
	defer t.files.writeMu.Unlock()

	f, fi, err := t.ws.openRegular(rel)
	if err != nil {
		res := t.ws.failPath(a.Path, err)
		if errors.Is(err, fs.ErrNotExist) {
			res.Content += " To create a new file, use write_file."
		}
		return res, nil
	}
	shown := display(rel)
	if fi.Size() > maxEditSize {
		f.Close()
		return Fail("%s is %s, too large for edit_file (at most %d MiB). Use bash to change it.", shown, humanSize(fi.Size()), maxEditSize>>20), nil
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return Fail("Cannot read %s: %v.", shown, err), nil
	}
	if why := binaryReason(data); why != "" {
		return Fail("%s looks like a binary file (%s); edit_file only edits text.", shown, why), nil
	}
	if why := t.files.check(rel, stampOf(fi, data), "edit"); why != "" {
		return Fail("%s", why), nil
	}

	content := string(data)
	old, repl, n := MatchEdit(content, a.OldString, a.NewString)
	switch {
	case n == 0:
		msg := fmt.Sprintf("old_string was not found in %s.", shown)
		if t := strings.TrimSpace(old); t != "" && t != old && strings.Contains(content, t) {
			msg += " It does occur without its leading and trailing whitespace: check the indentation and line breaks."
		}
		return Fail("%s Re-read the file with read_file and copy the text exactly as it is now (without the line-number prefix).", msg), nil
	case n > 1 && !a.ReplaceAll:
		return Fail("old_string occurs %d times in %s (at lines %s). Include more surrounding lines in old_string so that it matches exactly once, or set replace_all to true to change every occurrence.",
			n, shown, matchLines(content, old, 10)), nil
	}

	count := 1
	if a.ReplaceAll {
		count = -1
	}
	updated := strings.Replace(content, old, repl, count)
	if err := t.ws.writeAtomic(rel, []byte(updated), keepMode(fi)); err != nil {
		return Fail("Could not write %s: %v. The file was left as it was.", shown, t.ws.fileError(a.Path, err)), nil
	}
	t.files.recordWritten(rel, []byte(updated))
	diff := capDiff(udiff.Unified("a/"+shown, "b/"+shown, content, updated))
	return OK(fmt.Sprintf("Edited %s: replaced %s.\n%s", shown, plural(n, "occurrence"), diff)), nil
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

// MatchEdit finds old in content as edit_file does and returns the strings
// to replace (old and repl, adapted to the file's CRLF line endings, which
// read_file does not show, when only that form occurs) and how many times
// old occurs. The approval dialog previews an edit with it, so that what
// is shown is what the tool will do.
func MatchEdit(content, old, repl string) (string, string, int) {
	n := strings.Count(content, old)
	if n == 0 && strings.Contains(old, "\n") && !strings.Contains(old, "\r") && strings.Contains(content, "\r\n") {
		crlfOld := strings.ReplaceAll(old, "\n", "\r\n")
		if m := strings.Count(content, crlfOld); m > 0 {
			return crlfOld, strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", "\r\n"), m
		}
	}
	return old, repl, n
}
