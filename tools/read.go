package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// Caps of read_file's output.
const (
	maxReadLines = 2000      // lines shown when no limit is given
	maxReadBytes = 256 << 10 // bytes of output
	maxLineBytes = 2000      // bytes shown of one line
)

// ReadFile is the name of the read_file tool.
const ReadFile = "read_file"

//go:embed descriptions/read_file.md
var readFileDescription string

// ReadFileArgs are the arguments of read_file.
type ReadFileArgs struct {
	Path   string `json:"path" jsonschema:"The file to read, relative to the workspace root (an absolute path inside the workspace also works)."`
	Offset int    `json:"offset,omitempty" jsonschema:"The line number to start reading at, 1-based. Default 1."`
	Limit  int    `json:"limit,omitempty" jsonschema:"The maximum number of lines to return. Default 2000."`
}

// Summary gives the file it reads.
func (a ReadFileArgs) Summary() string { return a.Path }

// Paths returns the file the call reads.
func (a ReadFileArgs) Paths() []string { return []string{a.Path} }

// Access: read_file shows what the file holds.
func (ReadFileArgs) Access() Access { return ReadsFiles }

// readFileTool is read_file: it shows a file with line numbers and
// records what the model has seen of it.
type readFileTool struct {
	ws       *Workspace
	files    *fileState
	readable readFilter
}

func (t readFileTool) tool() *Tool {
	return New(ReadFile, readFileDescription, KindRead, t.run, summaryOnly[ReadFileArgs])
}

func (t readFileTool) run(ctx context.Context, a ReadFileArgs) (Result, error) {
	win, why := windowOf(a)
	if why != "" {
		return Fail("%s", why), nil
	}
	rel, f, fi, fail := t.open(a.Path)
	if fail.IsError {
		return fail, nil
	}
	defer f.Close()
	shown := display(rel)

	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	if fail := sniffText(br, shown); fail.IsError {
		return fail, nil
	}
	sc := &lineScanner{win: win}
	if err := sc.scan(ctx, br); err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("read %s: %w", shown, ctx.Err())
		}
		return Fail("Cannot read %s: %v.", shown, err), nil
	}
	st := stamp{modTime: fi.ModTime(), size: sc.size}
	h.Sum(st.sum[:0])
	t.files.record(rel, st)
	return sc.result(shown), nil
}

// readWindow is the part of a file read_file shows: limit lines from
// line first (1-based).
type readWindow struct{ first, limit int }

// windowOf returns the window a call asks for, or why it is invalid.
func windowOf(a ReadFileArgs) (readWindow, string) {
	if a.Offset < 0 {
		return readWindow{}, fmt.Sprintf("offset must be a line number, 1 or more (got %d).", a.Offset)
	}
	if a.Limit < 0 {
		return readWindow{}, fmt.Sprintf("limit must be 1 or more (got %d); leave it out to read up to %d lines.", a.Limit, maxReadLines)
	}
	limit := a.Limit
	if limit == 0 {
		limit = maxReadLines
	}
	return readWindow{first: max(a.Offset, 1), limit: limit}, ""
}

// contains reports whether line n is in the window.
func (w readWindow) contains(n int) bool { return n >= w.first && n < w.first+w.limit }

// open resolves path and opens the regular file it names, unless the read
// filter refuses it. A failure is a result with IsError.
func (t readFileTool) open(path string) (string, *os.File, fs.FileInfo, Result) {
	rel, err := t.ws.resolveFile(path)
	if err != nil {
		return "", nil, nil, t.ws.failPath(path, err)
	}
	if !t.readable.allows(rel) {
		return "", nil, nil, failDenied(rel)
	}
	f, fi, err := t.ws.openRegular(rel)
	if err != nil {
		return "", nil, nil, t.ws.failPath(path, err)
	}
	return rel, f, fi, Result{}
}

// sniffText refuses a file whose first bytes look binary; shown names it.
func sniffText(br *bufio.Reader, shown string) Result {
	sample, err := br.Peek(binarySample)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Fail("Cannot read %s: %v.", shown, err)
	}
	if why := binaryReason(sample); why != "" {
		return Fail("%s looks like a binary file (%s), so read_file does not show it. Use bash to inspect it, for example `file %s` or `xxd %s | head -n 40`.", shown, why, shown, shown)
	}
	return Result{}
}

// lineScanner reads a file line by line, in bounded memory however long
// its lines are, and keeps the lines of its window as read_file shows
// them.
type lineScanner struct {
	win      readWindow
	out      strings.Builder
	line     int   // lines seen so far
	last     int   // last line shown
	capped   bool  // the byte cap stopped the output
	cutLines int   // lines shown shortened
	size     int64 // bytes read

	cur       []byte // the start of the current line, if it is shown
	curLen    int    // the length of the current line so far
	lineShown bool   // the current line is in the window
}

// scan reads br to its end. It returns a read error, or the context's
// error once ctx is done.
func (s *lineScanner) scan(ctx context.Context, br *bufio.Reader) error {
	for {
		chunk, err := br.ReadSlice('\n')
		s.take(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if s.curLen > 0 {
			s.endLine(err == nil)
			if s.line%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		if err != nil {
			return nil
		}
	}
}

// take adds a chunk of the current line.
func (s *lineScanner) take(chunk []byte) {
	s.size += int64(len(chunk))
	if len(chunk) == 0 {
		return
	}
	if s.curLen == 0 {
		s.lineShown = !s.capped && s.win.contains(s.line+1)
	}
	if s.lineShown && len(s.cur) < maxLineBytes+4 {
		s.cur = append(s.cur, chunk[:min(len(chunk), maxLineBytes+4-len(s.cur))]...)
	}
	s.curLen += len(chunk)
}

// endLine finishes the current line; newline says it ends with '\n'.
func (s *lineScanner) endLine(newline bool) {
	s.line++
	if s.lineShown {
		n := s.curLen
		if newline {
			n--
		}
		text, cut := displayLine(s.cur, n)
		entry := fmt.Sprintf("%6d\t%s\n", s.line, text)
		if s.out.Len()+len(entry) > maxReadBytes {
			s.capped = true
		} else {
			s.out.WriteString(entry)
			s.last = s.line
			if cut {
				s.cutLines++
			}
		}
	}
	s.cur, s.curLen = s.cur[:0], 0
}

// result is what the model reads once the file shown has been scanned.
func (s *lineScanner) result(shown string) Result {
	switch {
	case s.line == 0:
		return OK(fmt.Sprintf("%s is empty (0 bytes).", shown))
	case s.win.first > s.line:
		return Fail("offset %d is past the end of %s, which has %s.", s.win.first, shown, plural(s.line, "line"))
	}
	if s.cutLines > 0 {
		fmt.Fprintf(&s.out, "[%s longer than %d bytes were cut short.]\n", plural(s.cutLines, "line"), maxLineBytes)
	}
	if s.last < s.line {
		why := ""
		if s.capped {
			why = fmt.Sprintf(" (output is capped at %d KiB)", maxReadBytes>>10)
		}
		fmt.Fprintf(&s.out, "[Showed lines %d-%d of %d%s. To read more, call read_file with offset %d.]\n", s.win.first, s.last, s.line, why, s.last+1)
	}
	return OK(s.out.String())
}

// displayLine returns a line as read_file shows it: without its line
// ending, cut to maxLineBytes on a UTF-8 boundary, valid UTF-8. n is the
// length of the line without its '\n'; b holds at least its first
// maxLineBytes bytes.
func displayLine(b []byte, n int) (string, bool) {
	b = b[:min(len(b), n)]
	if n <= maxLineBytes {
		b = bytes.TrimSuffix(b, []byte{'\r'})
		return strings.ToValidUTF8(string(b), "\uFFFD"), false
	}
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d more bytes]", strings.ToValidUTF8(string(b[:cut]), "\uFFFD"), n-cut), true
}
