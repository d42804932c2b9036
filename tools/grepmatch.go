package tools

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
)

// maxLiterals bounds the alternatives of a prefilter (foo|bar|baz).
const maxLiterals = 8

// lineMatcher finds the lines of a buffer that match a regular
// expression. Matching is per line, as in grep and ripgrep: a match never
// spans a newline, ^ and $ match at line boundaries.
//
// When every match must contain one of a few literals, candidate lines
// are found with bytes.Index over the whole buffer and the regular
// expression only runs on them; that is most of the speed. Without such
// literals, a lazily built DFA (grepdfa.go) reads each byte once.
type lineMatcher struct {
	re *regexp.Regexp
	// lits is the prefilter: every match contains one of them. Empty
	// means none is known.
	lits []literal
	fold bool // some literal is matched ignoring ASCII case
	// dfa matches the lines when there is no prefilter.
	dfa *dfaProg
}

// literal is text every match (of one alternative) contains. When fold
// is set, b is lower case and is looked for in the lower-cased text; it
// then holds only ASCII characters whose case variants are all ASCII (not
// k or s: the Kelvin sign and the long s fold to them).
type literal struct {
	b    []byte
	fold bool
}

func compileLineMatcher(pattern string, ignoreCase bool) (*lineMatcher, error) {
	flags := syntax.Perl
	prefix := "(?m)"
	if ignoreCase {
		flags |= syntax.FoldCase
		prefix = "(?mi)"
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{re: re}
	lits := requiredLiterals(tree.Simplify())
	if slices.ContainsFunc(lits, func(l literal) bool { return bytes.IndexByte(l.b, '\n') >= 0 }) {
		// A match containing a newline cannot be on one line: the
		// regular expression will find nothing, without a prefilter.
		lits = nil
	}
	if len(lits) == 0 {
		if m.dfa, err = compileDFA(pattern, ignoreCase); err != nil {
			return nil, err
		}
		return m, nil
	}
	m.lits = lits
	m.fold = slices.ContainsFunc(lits, func(l literal) bool { return l.fold })
	return m, nil
}

// requiredLiterals returns literals one of which every match of re
// contains, or nil when it cannot tell.
func requiredLiterals(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return []literal{{b: []byte(string(re.Rune))}}
		}
		if run := foldableRun(re.Rune); len(run) > 0 {
			return []literal{{b: run, fold: true}}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		for _, sub := range re.Sub {
			if lits := requiredLiterals(sub); better(lits, best) {
				best = lits
			}
		}
		return best
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			lits := requiredLiterals(sub)
			if lits == nil {
				return nil
			}
			all = append(all, lits...)
		}
		if len(all) <= maxLiterals {
			return all
		}
	}
	return nil
}

// better reports whether the prefilter a is more selective than b: its
// shortest literal is longer, or as long with fewer alternatives.
func better(a, b []literal) bool {
	if len(a) == 0 {
		return false
	}
	if len(b) == 0 {
		return true
	}
	ma, mb := minLen(a), minLen(b)
	return ma > mb || (ma == mb && len(a) < len(b))
}

func minLen(lits []literal) int {
	n := len(lits[0].b)
	for _, l := range lits[1:] {
		n = min(n, len(l.b))
	}
	return n
}

// foldableRun returns, lower-cased, the longest run of runes whose case
// variants are all ASCII.
func foldableRun(runes []rune) []byte {
	var best, cur []byte
	for _, r := range runes {
		if !asciiFoldable(r) {
			cur = nil
			continue
		}
		cur = append(cur, byte(unicode.ToLower(r)))
		if len(cur) > len(best) {
			best = slices.Clone(cur)
		}
	}
	return best
}

func asciiFoldable(r rune) bool {
	if r >= 0x80 {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= 0x80 {
			return false
		}
	}
	return true
}

// each calls fn with the bounds [start, end) of every matching line of
// data (end excludes the newline), in order, until fn returns false.
// bufs are the caller's, kept between calls of one search.
func (m *lineMatcher) each(data []byte, bufs *buffers, fn func(start, end int) bool) {
	if m.dfa != nil {
		if bufs.dfa == nil {
			bufs.dfa = m.dfa.newLineDFA()
		}
		bufs.dfa.each(data, fn)
		return
	}
	var lower []byte
	if m.fold {
		if cap(bufs.lower) < len(data) {
			bufs.lower = make([]byte, len(data))
		}
		lower = bufs.lower[:len(data)]
		asciiLower(lower, data)
	}
	// next[i] is where lits[i] next occurs at or after pos (len(data)
	// when it does not).
	next := make([]int, len(m.lits))
	for i := range next {
		next[i] = -1
	}
	pos := 0
	for pos < len(data) {
		// at is where the next candidate line has one of the literals.
		at := len(data)
		for i, l := range m.lits {
			if next[i] < pos {
				text := data
				if l.fold {
					text = lower
				}
				next[i] = len(data)
				if j := bytes.Index(text[pos:], l.b); j >= 0 {
					next[i] = pos + j
				}
			}
			at = min(at, next[i])
		}
		if at == len(data) {
			return
		}
		start := bytes.LastIndexByte(data[pos:at], '\n') + 1 + pos
		end := lineEnd(data, at)
		// A literal only finds candidate lines: the line is checked on
		// its own.
		if m.re.Match(data[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// asciiLower writes src to dst with ASCII letters in lower case, eight
// bytes at a time. len(dst) must be len(src).
func asciiLower(dst, src []byte) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		low := w &^ high // each byte's low 7 bits
		// A byte's high bit in ge is set when it is >= 'A', in gt when it
		// is > 'Z' (the additions cannot carry across bytes).
		ge := low + ones*(0x80-'A')
		gt := low + ones*(0x80-'Z'-1)
		upper := (ge &^ gt) &^ w & high
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}
