package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Files lists the workspace's files (not directories), workspace-relative
// with forward slashes, sorted, as the search tools see them: .gitignore
// honoured, .git skipped, links not followed. It stops after limit files
// and reports whether it did.
func (ws *Workspace) Files(ctx context.Context, limit int) (files []string, cut bool) {
	var mu sync.Mutex
	w := &walker{
		ws:    ws,
		enter: func(string) bool { return true },
		entry: func(rel string, d fs.DirEntry) bool {
			if !d.Type().IsRegular() {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			if len(files) >= limit {
				cut = true
				return false
			}
			files = append(files, display(rel))
			return false
		},
	}
	_ = w.walk(ctx, ".")
	slices.Sort(files)
	return files, cut
}

// MaxMention bounds what ReadMention returns of one file.
const MaxMention = 64 << 10

// Mention is a file's content for a message that names it (@path).
type Mention struct {
	// Path is the file, workspace-relative with forward slashes and
	// symbolic links resolved.
	Path string
	// Text is its content, at most MaxMention bytes; Cut says how many
	// bytes were left out.
	Text string
	Cut  int64
	// Image is the file when its bytes are an image (SniffImage), for
	// the message's image parts; Text is then empty.
	Image *chat.Image
}

// ReadMention reads the file path names for a message: inside the
// workspace only (links resolved, none leading out), a regular text file,
// its first MaxMention bytes, or an image (its bytes say so, whatever
// its name), whole up to MaxImageBytes. allowed, when not nil, gets the resolved
// path and returns why the file may not be attached ("" when it may).
func (w *Workspace) ReadMention(path string, allowed func(rel string) string) (Mention, error) {
	rel, err := w.Resolve(path)
	if err != nil {
		return Mention{}, w.fileError(path, err)
	}
	m := Mention{Path: display(rel)}
	if allowed != nil {
		if why := allowed(m.Path); why != "" {
			return m, errors.New(why)
		}
	}
	f, fi, err := w.openRegular(rel)
	if err != nil {
		return m, w.fileError(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxMention))
	if err != nil {
		return m, err
	}
	if SniffImage(data) != "" {
		img, err := readImage(io.MultiReader(bytes.NewReader(data), f), filepath.Join(w.Dir(), filepath.FromSlash(m.Path)))
		if err != nil {
			return m, err
		}
		m.Image = &img
		return m, nil
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data[:validPrefix(data)]) {
		return m, fmt.Errorf("%s looks like a binary file", m.Path)
	}
	m.Text, m.Cut = string(data), max(fi.Size()-int64(len(data)), 0)
	return m, nil
}

// validPrefix is how much of data must be valid UTF-8: all of it but a
// character the limit may have cut at the end.
func validPrefix(data []byte) int {
	for i := len(data) - 1; i >= max(len(data)-utf8.UTFMax, 0); i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				return i
			}
			break
		}
	}
	return len(data)
}
