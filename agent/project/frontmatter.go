package project

import (
	"bytes"
	"errors"
	"slices"
	"strings"
)

// SplitFrontMatter splits a markdown file of the kind custom agents and
// slash commands are written in (Claude Code's and tackle's) into its
// front matter — the lines between a first line "---" and the next line
// "---" (trailing blanks allowed, a byte order mark skipped) — and its
// body. ok is false, and body all of data, when the file does not start
// with front matter; a front matter that never closes is an error.
func SplitFrontMatter(data []byte) (front, body []byte, ok bool, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isFence(line) {
		return nil, data, false, nil
	}
	for off := 0; off <= len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		l, next := rest[off:], len(rest)+1
		if end >= 0 {
			l, next = rest[off:off+end], off+end+1
		}
		if isFence(l) {
			if next > len(rest) {
				return rest[:off], nil, true, nil
			}
			return rest[:off], rest[next:], true, nil
		}
		off = next
	}
	return nil, nil, true, errors.New("the front matter has no closing ---")
}

func isFence(line []byte) bool { return strings.TrimRight(string(line), " \t\r") == "---" }

// MergeByName joins sets of definitions named by name (custom agents,
// slash commands), the later sets winning for a name several have (a
// project's over the user's), sorted by name.
func MergeByName[T any](name func(T) string, sets ...[]T) []T {
	byName := map[string]T{}
	for _, set := range sets {
		for _, d := range set {
			byName[name(d)] = d
		}
	}
	out := make([]T, 0, len(byName))
	for _, d := range byName {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(name(a), name(b)) })
	return out
}
