package tools

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreFile bounds the .gitignore files that are read.
const maxIgnoreFile = 1 << 20

// ignoreRules are the .gitignore patterns in force in one directory: its
// own, then its parent's, up to the workspace root. Later patterns and
// deeper files take precedence, as in git.
type ignoreRules struct {
	parent   *ignoreRules
	patterns []gitignore.Pattern
}

// ignored reports whether the workspace-relative path, split into its
// components, is ignored.
func (r *ignoreRules) ignored(path []string, isDir bool) bool {
	for ; r != nil; r = r.parent {
		for i := len(r.patterns) - 1; i >= 0; i-- {
			switch r.patterns[i].Match(path, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// with returns the rules of a directory whose own patterns are ps.
func (r *ignoreRules) with(ps []gitignore.Pattern) *ignoreRules {
	if len(ps) == 0 {
		return r
	}
	return &ignoreRules{parent: r, patterns: ps}
}

// readIgnore reads the ignore file name in dir (opened on the directory
// whose workspace-relative path is rel) and parses its patterns.
func readIgnore(dir *os.Root, name, rel string) []gitignore.Pattern {
	f, err := dir.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFile {
		return nil
	}
	data := make([]byte, fi.Size())
	n, _ := io.ReadFull(f, data)
	var domain []string
	if rel != "." {
		domain = strings.Split(filepath.ToSlash(rel), "/")
	}
	var ps []gitignore.Pattern
	for line := range bytes.Lines(data[:n]) {
		s := strings.TrimRight(string(line), "\r\n")
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(s, domain))
	}
	return ps
}

// ancestorRules returns the ignore rules in force in the parent of the
// resolved directory start: .git/info/exclude and the .gitignore files of
// the workspace root and every directory down to start's parent. When
// start is itself ignored, the model asked for it by name: no ancestor
// rule applies then.
func (w *Workspace) ancestorRules(start string) *ignoreRules {
	var rules *ignoreRules
	if info, err := w.root.OpenRoot(filepath.Join(".git", "info")); err == nil {
		rules = rules.with(readIgnore(info, "exclude", "."))
		info.Close()
	}
	if start == "." {
		return rules
	}
	parts := splitPath(start)
	for i := range parts {
		dir := filepath.Join(parts[:i]...)
		if dir == "" {
			dir = "."
		}
		if d, err := w.root.OpenRoot(dir); err == nil {
			rules = rules.with(readIgnore(d, ".gitignore", dir))
			d.Close()
		}
		if rules.ignored(parts[:i+1], true) {
			return nil
		}
	}
	return rules
}
