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
	"strings"
	"unicode/utf8"
)

// Caps of read_file's output.
const (
	maxReadLines = 2000      // lines shown when no limit is given
	maxReadBytes = 256 << 10 // bytes of output
	maxLineBytes = 2000      // bytes shown of one line
)

//go:embed descriptions/read_file.md
var readFileDescription string

// ReadFileArgs are the arguments of read_file.
type ReadFileArgs struct {
	Path   string `json:"path" jsonschema:"The file to read, relative to the workspace root (an absolute path inside the workspace also works)."`
	Offset int    `json:"offset,omitempty" jsonschema:"The line number to start reading at, 1-based. Default 1."`
	Limit  int    `json:"limit,omitempty" jsonschema:"The maximum number of lines to return. Default 2000."`
}

// Paths returns the file the call reads.
func (a ReadFileArgs) Paths() []string { return []string{a.Path} }

func (r *Registry) readFileTool() *Tool {
	return New("read_file", readFileDescription, true, r.readFile)
}

func (r *Registry) readFile(ctx context.Context, a ReadFileArgs) (Result, error) {
	if a.Offset < 0 {
		return Fail("offset must be a line number, 1 or more (got %d).", a.Offset), nil
	}
	if a.Limit < 0 {
		return Fail("limit must be 1 or more (got %d); leave it out to read up to %d lines.", a.Limit, maxReadLines), nil
	}
	first := max(a.Offset, 1)
	limit := a.Limit
	if limit == 0 {
		limit = maxReadLines
	}
	rel, err := r.ws.resolveFile(a.Path)
	if err != nil {
		return r.ws.failPath(a.Path, err), nil
	}
	if !r.mayRead(rel) {
		return failDenied(rel), nil
	}
	f, fi, err := r.ws.openRegular(rel)
	if err != nil {
		return r.ws.failPath(a.Path, err), nil
	}
	defer f.Close()
	shown := display(rel)

	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	sample, err := br.Peek(binarySample)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Fail("Cannot read %s: %v.", shown, err), nil
	}
	if why := binaryReason(sample); why != "" {
		return Fail("%s looks like a binary file (%s), so read_file does not show it. Use bash to inspect it, for example `file %s` or `xxd %s | head -n 40`.", shown, why, shown, shown), nil
	}

	var (
		out       strings.Builder
		line      int   // lines seen so far
		last      int   // last line shown
		capped    bool  // the byte cap stopped the output
		cutLines  int   // lines shown shortened
		size      int64 // bytes read
		cur       []byte
		curLen    int
		lineShown bool
	)
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		if len(chunk) > 0 {
			if curLen == 0 {
				n := line + 1
				lineShown = !capped && n >= first && n < first+limit
			}
			if lineShown && len(cur) < maxLineBytes+4 {
				cur = append(cur, chunk[:min(len(chunk), maxLineBytes+4-len(cur))]...)
			}
			curLen += len(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return Fail("Cannot read %s: %v.", shown, err), nil
		}
		if curLen > 0 {
			line++
			if lineShown {
				n := curLen
				if err == nil { // the line ends with '\n'
					n--
				}
				text, cut := displayLine(cur, n)
				entry := fmt.Sprintf("%6d\t%s\n", line, text)
				if out.Len()+len(entry) > maxReadBytes {
					capped = true
				} else {
					out.WriteString(entry)
					last = line
					if cut {
						cutLines++
					}
				}
			}
			cur, curLen = cur[:0], 0
			if line%4096 == 0 && ctx.Err() != nil {
				return Result{}, fmt.Errorf("read %s: %w", shown, ctx.Err())
			}
		}
		if err != nil {
			break
		}
	}

	var st stamp
	st.modTime, st.size = fi.ModTime(), size
	h.Sum(st.sum[:0])
	r.files.record(rel, st)

	switch {
	case line == 0:
		return OK(fmt.Sprintf("%s is empty (0 bytes).", shown)), nil
	case first > line:
		return Fail("offset %d is past the end of %s, which has %s.", first, shown, plural(line, "line")), nil
	}
	if cutLines > 0 {
		fmt.Fprintf(&out, "[%s longer than %d bytes were cut short.]\n", plural(cutLines, "line"), maxLineBytes)
	}
	if last < line {
		why := ""
		if capped {
			why = fmt.Sprintf(" (output is capped at %d KiB)", maxReadBytes>>10)
		}
		fmt.Fprintf(&out, "[Showed lines %d-%d of %d%s. To read more, call read_file with offset %d.]\n", first, last, line, why, last+1)
	}
	return OK(out.String()), nil
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
