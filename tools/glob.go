package tools

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// maxGlobResults caps glob's output.
const maxGlobResults = 500

// Glob is the name of the glob tool.
const Glob = "glob"

//go:embed descriptions/glob.md
var globDescription string

// GlobArgs are the arguments of glob.
type GlobArgs struct {
	Pattern string `json:"pattern" jsonschema:"The glob to match file paths against, relative to path: * matches within one directory, ** across directories, {a,b} either. E.g. **/*.go, cmd/*/main.go, **/*_test.{go,py}."`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in, relative to the workspace root. Default: the workspace root."`
}

// Summary gives the pattern, and the directory searched if not the root.
func (a GlobArgs) Summary() string { return patternIn(a.Pattern, a.Path) }

// Paths returns the directory the call searches.
func (a GlobArgs) Paths() []string { return []string{cmp.Or(a.Path, ".")} }

// Access: glob shows names, not what the files hold.
func (GlobArgs) Access() Access { return ListsNames }

// globTool is glob: it finds the files whose paths match a pattern.
type globTool struct{ ws *Workspace }

func (t globTool) tool() *Tool {
	return New(Glob, globDescription, KindRead, t.run, summaryOnly[GlobArgs])
}

func (t globTool) run(ctx context.Context, a GlobArgs) (Result, error) {
	pattern := a.Pattern
	if pattern == "" {
		return Fail("pattern is empty. Give a glob such as **/*.go."), nil
	}
	if strings.HasPrefix(pattern, "/") {
		// An absolute pattern inside the workspace is made relative.
		base, rest := doublestar.SplitPattern(pattern)
		rel, err := t.ws.Rel(base)
		if err != nil || a.Path != "" {
			return Fail("pattern %q is absolute; give it relative to the workspace root (or to path).", pattern), nil
		}
		pattern = path.Join(filepath.ToSlash(rel), rest)
	}
	if !doublestar.ValidatePattern(pattern) {
		return Fail("pattern %q is not a valid glob (check the brackets and braces).", pattern), nil
	}
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return Fail("pattern %q contains ..; give the directory to search in as path instead.", pattern), nil
	}
	dir := cmp.Or(a.Path, ".")
	rel, err := t.ws.Resolve(dir)
	if err != nil {
		return t.ws.failPath(dir, err), nil
	}
	// Walk from the pattern's fixed leading directories, if any.
	base, rest := doublestar.SplitPattern(pattern)
	start := filepath.Join(rel, filepath.FromSlash(base))
	if base == "." || !strings.ContainsAny(rest, "*?[{\\") {
		start, rest = rel, pattern
	}
	startName := dir // how errors name start
	if start != rel {
		startName = display(start)
	}
	fi, err := t.ws.root.Stat(start)
	if errors.Is(err, fs.ErrNotExist) && start != rel {
		// The pattern's leading directory does not exist: nothing matches.
		return OK(fmt.Sprintf("No files match %s in %s.", a.Pattern, display(rel))), nil
	}
	if err != nil {
		return t.ws.failPath(startName, err), nil
	}
	if !fi.IsDir() {
		return Fail("%s is a file, not a directory; give a directory as path.", display(start)), nil
	}

	var (
		mu      sync.Mutex
		matches []string
	)
	depth := patternDepth(rest)
	w := &walker{
		ws: t.ws,
		enter: func(d string) bool {
			return depth < 0 || strings.Count(relTo(start, d), "/")+1 < depth
		},
		entry: func(frel string, _ fs.DirEntry) bool {
			if doublestar.MatchUnvalidated(rest, relTo(start, frel)) {
				mu.Lock()
				matches = append(matches, display(frel))
				mu.Unlock()
			}
			return false
		},
	}
	if err := w.walk(ctx, start); err != nil {
		return t.ws.failPath(startName, err), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}
	if len(matches) == 0 {
		return OK(fmt.Sprintf("No files match %s in %s.", a.Pattern, display(rel))), nil
	}
	slices.Sort(matches)
	var b strings.Builder
	for i, m := range matches {
		if i == maxGlobResults {
			fmt.Fprintf(&b, "[%d more files not shown, %d in all. Use a more specific pattern or path.]\n", len(matches)-i, len(matches))
			break
		}
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if n := w.unreadable.Load(); n > 0 {
		fmt.Fprintf(&b, "[%s could not be listed.]\n", plural(int(n), "directory"))
	}
	return OK(b.String()), nil
}

// patternDepth returns how many path components a match of pattern has,
// or -1 when that is not fixed (the pattern has ** or a brace, which
// may hold a /).
func patternDepth(pattern string) int {
	if strings.Contains(pattern, "**") || strings.Contains(pattern, "{") {
		return -1
	}
	return strings.Count(pattern, "/") + 1
}

// relTo returns the slash-separated path of p below base.
func relTo(base, p string) string {
	if base == "." {
		return filepath.ToSlash(p)
	}
	r, _ := filepath.Rel(base, p)
	return filepath.ToSlash(r)
}

// patternIn summarises a search: the pattern, and the path searched when
// one is given.
func patternIn(pattern, path string) string {
	if path == "" {
		return pattern
	}
	return pattern + "  in " + path
}
