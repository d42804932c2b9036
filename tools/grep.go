package tools

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Caps of grep.
const (
	maxGrepMatches   = 200      // matching lines shown
	maxGrepBytes     = 32 << 10 // bytes of output
	maxGrepLineBytes = 300      // bytes shown of one line
	maxGrepFileSize  = 64 << 20 // larger files are not searched
	maxGrepContext   = 20       // lines of context either side
	keepBuffer       = 4 << 20  // larger buffers are not reused
)

// Grep is the name of the grep tool.
const Grep = "grep"

//go:embed descriptions/grep.md
var grepDescription string

// GrepArgs are the arguments of grep.
type GrepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"The regular expression to search for (Go RE2 syntax, like ripgrep's). It is matched against each line."`
	Path       string `json:"path,omitempty" jsonschema:"The file or directory to search, relative to the workspace root. Default: the whole workspace."`
	Include    string `json:"include,omitempty" jsonschema:"Only search files matching this glob, e.g. *.go or *.{ts,tsx}; a glob with a / is matched against the path below the searched directory, e.g. cmd/**/*.go."`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Match without regard to case. Default false."`
	Context    int    `json:"context,omitempty" jsonschema:"Lines of context to show before and after each matching line (at most 20). Default 0."`
	Before     int    `json:"before,omitempty" jsonschema:"Lines of context to show before each matching line; overrides context."`
	After      int    `json:"after,omitempty" jsonschema:"Lines of context to show after each matching line; overrides context."`
}

// Summary gives the pattern, and the file or directory searched if not the root.
func (a GrepArgs) Summary() string { return patternIn(a.Pattern, a.Path) }

// Paths returns the file or directory the call searches.
func (a GrepArgs) Paths() []string { return []string{cmp.Or(a.Path, ".")} }

// Access: grep shows what the files hold.
func (GrepArgs) Access() Access { return ReadsFiles }

// grepTool is grep: it searches the files of the workspace the read
// filter allows.
type grepTool struct {
	ws       *Workspace
	readable readFilter
}

func (t grepTool) tool() *Tool {
	return New(Grep, grepDescription, KindRead, t.run, summaryOnly[GrepArgs])
}

func (t grepTool) run(ctx context.Context, a GrepArgs) (Result, error) {
	if a.Pattern == "" {
		return Fail("pattern is empty. Give a regular expression to search for."), nil
	}
	m, err := compileLineMatcher(a.Pattern, a.IgnoreCase)
	if err != nil {
		why := err.Error()
		if se := (*syntax.Error)(nil); errors.As(err, &se) {
			why = fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
		}
		return Fail("pattern %q is not a valid regular expression (%s). The syntax is Go's RE2: no look-around or back-references; escape a literal ( [ { . * + ? | with \\.", a.Pattern, why), nil
	}
	before, after := a.Context, a.Context
	if a.Before != 0 {
		before = a.Before
	}
	if a.After != 0 {
		after = a.After
	}
	if before < 0 || after < 0 || before > maxGrepContext || after > maxGrepContext {
		return Fail("context, before and after must be between 0 and %d.", maxGrepContext), nil
	}
	if a.Include != "" && !doublestar.ValidatePattern(a.Include) {
		return Fail("include %q is not a valid glob pattern.", a.Include), nil
	}
	path := cmp.Or(a.Path, ".")
	rel, err := t.ws.Resolve(path)
	if err != nil {
		return t.ws.failPath(path, err), nil
	}
	fi, err := t.ws.root.Stat(rel)
	if err != nil {
		return t.ws.failPath(path, err), nil
	}

	s := &grepSearch{m: m, before: before, after: after}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return t.ws.failPath(path, errNotRegular), nil
		}
		if !t.readable.allows(rel) {
			return failDenied(rel), nil
		}
		dir, name := filepath.Split(rel)
		d, err := t.ws.root.OpenRoot(filepath.Clean(dir + "."))
		if err != nil {
			return t.ws.failPath(path, err), nil
		}
		s.file(d, name, rel, &buffers{})
		d.Close()
		if s.binary > 0 {
			return Fail("%s looks like a binary file (it contains NUL bytes); grep only searches text.", display(rel)), nil
		}
	} else {
		w := &walker{
			ws: t.ws,
			entry: func(frel string, d fs.DirEntry) bool {
				if !d.Type().IsRegular() || !includes(a.Include, rel, frel) {
					return false
				}
				if !t.readable.allows(frel) {
					s.count(func() { s.denied++ })
					return false
				}
				return true
			},
			file: s.file,
		}
		if err := w.walk(ctx, rel); err != nil {
			return t.ws.failPath(path, err), nil
		}
		s.unreadable = int(w.unreadable.Load())
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	return OK(s.report(a, rel)), nil
}

// includes reports whether the file rel, found below the searched
// directory base, passes the include glob.
func includes(glob, base, rel string) bool {
	if glob == "" {
		return true
	}
	name := filepath.Base(rel)
	if strings.Contains(glob, "/") {
		name, _ = filepath.Rel(base, rel)
	}
	return doublestar.MatchUnvalidated(glob, filepath.ToSlash(name))
}

// grepSearch collects the results of one grep. Files are searched in
// parallel; the output is the first maxGrepMatches matching lines in path
// order, whatever the order of the search, so it is deterministic.
type grepSearch struct {
	m             *lineMatcher
	before, after int

	mu      sync.Mutex
	files   []grepFile // stored with their lines, trimmed as the search goes
	stored  int        // matching lines stored in files
	cutoff  string     // when set, files sorting after it are not stored
	matches int        // matching lines found
	hits    int        // files with a match
	binary  int        // binary files skipped
	large   int        // files over maxGrepFileSize skipped
	failed  int        // files that could not be read
	denied  int        // files the read filter refused

	unreadable int // directories that could not be listed
}

type grepFile struct {
	rel     string
	lines   []grepLine
	matches int
}

type grepLine struct {
	n     int
	text  string
	match bool
}

// file searches one file, with buffers the caller keeps between calls.
// Buffers grown for a big file are not kept.
func (s *grepSearch) file(dir *os.Root, name, rel string, bufs *buffers) {
	defer func() {
		if cap(bufs.data) > keepBuffer {
			bufs.data = nil
		}
		if cap(bufs.lower) > keepBuffer {
			bufs.lower = nil
		}
	}()
	data, err := readSmall(dir, name, &bufs.data)
	switch {
	case errors.Is(err, errTooLarge):
		s.count(func() { s.large++ })
		return
	case err != nil:
		s.count(func() { s.failed++ })
		return
	case bytes.IndexByte(data, 0) >= 0:
		s.count(func() { s.binary++ })
		return
	}
	f := grepFile{rel: rel}
	keep := s.wantLines(rel)
	line, pos := 1, 0           // the line number at pos
	emitted := 0                // the last line number stored
	afterLeft, afterPos := 0, 0 // after-context still owed, and where
	flushAfter := func(upto int) {
		for ; afterLeft > 0 && afterPos < len(data) && emitted+1 < upto; afterLeft-- {
			end := lineEnd(data, afterPos)
			emitted++
			f.lines = append(f.lines, grepLine{n: emitted, text: showLine(data[afterPos:end])})
			afterPos = end + 1
		}
	}
	s.m.each(data, bufs, func(start, end int) bool {
		f.matches++
		if !keep || f.matches > maxGrepMatches {
			return true // only counted
		}
		line += bytes.Count(data[pos:start], []byte{'\n'})
		pos = start
		flushAfter(line)
		// Before-context: up to s.before lines not already stored.
		n := min(s.before, line-1-emitted)
		ctxStart := start
		for range n {
			ctxStart = bytes.LastIndexByte(data[:ctxStart-1], '\n') + 1
		}
		for i, p := line-n, ctxStart; i < line; i++ {
			e := lineEnd(data, p)
			f.lines = append(f.lines, grepLine{n: i, text: showLine(data[p:e])})
			p = e + 1
		}
		f.lines = append(f.lines, grepLine{n: line, text: showLine(data[start:end]), match: true})
		emitted, afterLeft, afterPos = line, s.after, end+1
		return true
	})
	if f.matches == 0 {
		return
	}
	flushAfter(math.MaxInt)
	s.add(f, keep)
}

func (s *grepSearch) count(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
}

// wantLines reports whether the lines of the file rel may still be shown.
func (s *grepSearch) wantLines(rel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cutoff == "" || rel < s.cutoff
}

// add records a file's result. Once more than twice the lines that can be
// shown are stored, the files that sort last are dropped: they could not
// be shown anyway.
func (s *grepSearch) add(f grepFile, keep bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.matches += f.matches
	s.hits++
	if !keep || (s.cutoff != "" && f.rel >= s.cutoff) {
		return
	}
	s.files = append(s.files, f)
	s.stored += min(f.matches, maxGrepMatches)
	if s.stored <= 2*maxGrepMatches {
		return
	}
	slices.SortFunc(s.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	n := 0
	for i, f := range s.files {
		n += min(f.matches, maxGrepMatches)
		if n >= maxGrepMatches {
			s.files = s.files[:i+1]
			s.stored = n
			s.cutoff = f.rel
			return
		}
	}
}

// report formats the results.
func (s *grepSearch) report(a GrepArgs, rel string) string {
	var b strings.Builder
	where := display(rel)
	if s.matches == 0 {
		fmt.Fprintf(&b, "No matches for %q in %s", a.Pattern, where)
		if a.Include != "" {
			fmt.Fprintf(&b, " (files matching %s)", a.Include)
		}
		b.WriteString(".\n")
		s.notes(&b)
		return b.String()
	}
	slices.SortFunc(s.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	withContext := s.before > 0 || s.after > 0
	shown, capped := 0, false
Files:
	for i, f := range s.files {
		path := display(f.rel)
		prev := 0
		for _, l := range f.lines {
			if withContext && ((i > 0 && prev == 0) || (prev > 0 && l.n > prev+1)) {
				b.WriteString("--\n")
			}
			sep := byte('-')
			if l.match {
				if shown == maxGrepMatches {
					capped = true
					break Files
				}
				sep = ':'
			}
			entry := fmt.Sprintf("%s%c%d%c%s\n", path, sep, l.n, sep, l.text)
			if b.Len()+len(entry) > maxGrepBytes {
				capped = true
				break Files
			}
			b.WriteString(entry)
			if l.match {
				shown++
			}
			prev = l.n
		}
	}
	if capped || shown < s.matches {
		fmt.Fprintf(&b, "[Showed %d of %s in %s. Narrow the search (path, include, a more specific pattern) to see the rest.]\n",
			shown, plural(s.matches, "matching line"), plural(s.hits, "file"))
	} else {
		fmt.Fprintf(&b, "[%s in %s.]\n", plural(s.matches, "matching line"), plural(s.hits, "file"))
	}
	s.notes(&b)
	return b.String()
}

func (s *grepSearch) notes(b *strings.Builder) {
	if s.large > 0 {
		fmt.Fprintf(b, "[%s larger than %d MiB not searched.]\n", plural(s.large, "file"), maxGrepFileSize>>20)
	}
	if s.failed > 0 {
		fmt.Fprintf(b, "[%s could not be read.]\n", plural(s.failed, "file"))
	}
	if s.unreadable > 0 {
		fmt.Fprintf(b, "[%s could not be listed.]\n", plural(s.unreadable, "directory"))
	}
	if s.denied > 0 {
		fmt.Fprintf(b, "[%s not searched: an approval rule denies reading them.]\n", plural(s.denied, "file"))
	}
}

// errTooLarge is returned by readSmall for files over maxGrepFileSize.
var errTooLarge = errors.New("file too large")

// readSmall reads the regular file name in dir into *buf, reusing it.
func readSmall(dir *os.Root, name string, buf *[]byte) ([]byte, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	size := fi.Size()
	if size > maxGrepFileSize {
		return nil, errTooLarge
	}
	if int64(cap(*buf)) < size {
		*buf = make([]byte, size)
	}
	n, err := io.ReadFull(f, (*buf)[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return (*buf)[:n], nil
}

// lineEnd returns the index of the newline ending the line that starts at
// p, or len(data).
func lineEnd(data []byte, p int) int {
	if i := bytes.IndexByte(data[p:], '\n'); i >= 0 {
		return p + i
	}
	return len(data)
}

// showLine returns a line as grep shows it: without a trailing \r, cut to
// maxGrepLineBytes, valid UTF-8.
func showLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	s := string(b)
	if len(s) > maxGrepLineBytes {
		s = chat.Quote(s, maxGrepLineBytes)
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
