package approval

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// This file works out which paths a word known only at run time may name,
// the way bash expands it: brace expansion, then the tilde, then
// parameters (the values the program itself gives a variable, where the
// analysis can tell; see vartable.go), then pathname expansion (the files
// that match now, the pattern itself when none does, and the names a
// pattern could match when the file is made later). A part it cannot
// follow (a command substitution, a variable from the environment, a
// parameter with an operator, an extended glob) makes the word "unknown":
// it may name any path.

// tok is one piece of a word: a character, with whether it was quoted or
// escaped (then it has no brace, tilde or glob meaning), or a part known
// only at run time.
type tok struct {
	ch     byte
	quoted bool
	param  string // a parameter $NAME or ${NAME}, by name
	dyn    string // any other part known only at run time, as written
	inDQ   bool   // the param or dyn part is inside double quotes
	pos    int    // param: its offset in the program, for the variable analysis
	// globbed: an unquoted glob character of a pathname expansion that
	// happened before (a for loop's item): quotes around the variable
	// holding it do not make it literal.
	globbed bool
}

func (t tok) isChar() bool { return t.param == "" && t.dyn == "" }

// is reports an unquoted character c.
func (t tok) is(c byte) bool { return t.isChar() && !t.quoted && t.ch == c }

// charToks returns s as characters, quoted or not.
func charToks(s string, quoted bool) []tok {
	out := make([]tok, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = tok{ch: s[i], quoted: quoted}
	}
	return out
}

// maxAlternatives bounds the words brace expansion and variables may turn
// one word into; past it the word is unknown.
const maxAlternatives = 256

// expansion is one word a word may expand to before pathname expansion.
type expansion struct {
	lit     string // as a file name, if no file matches the pattern
	pattern string // a path.Match pattern (quoted metacharacters escaped)
	glob    bool   // it has unquoted glob characters
}

// varLookup gives the values the program gives a variable where it is
// used (pos), each as the characters it is made of, or ok=false when they
// cannot be told. quoted says the use is inside double quotes (outside,
// the value is split on IFS).
type varLookup func(name string, pos int, quoted bool) (values [][]tok, ok bool)

// expandWord returns what w may expand to, or unknown when a part of it
// can be anything. home is the home directory ("" when not known).
func expandWord(w word, vars varLookup, home string) (out []expansion, unknown bool) {
	if w.static {
		return []expansion{{lit: w.text, pattern: escapeGlob(w.text, "*?[\\")}}, false
	}
	if w.toks == nil {
		return nil, true
	}
	budget := maxAlternatives
	alts := braceExpand(w.toks, &budget)
	if alts == nil {
		return nil, true
	}
	for _, alt := range alts {
		alt, ok := expandTilde(alt, home)
		if !ok {
			return nil, true
		}
		subs, ok := substitute(alt, vars, &budget, 0)
		if !ok {
			return nil, true
		}
		for _, s := range subs {
			out = append(out, toExpansion(s))
		}
	}
	return out, false
}

// braceExpand performs bash's brace expansion on unquoted braces: {a,b}
// and sequences {1..3}, {a..e}. It returns nil when there would be more
// than budget words.
func braceExpand(ts []tok, budget *int) [][]tok {
	for i := range ts {
		if !ts[i].is('{') {
			continue
		}
		depth, end := 0, -1
		var commas []int
	scan:
		for j := i + 1; j < len(ts); j++ {
			switch {
			case ts[j].is('{'):
				depth++
			case ts[j].is('}'):
				if depth == 0 {
					end = j
					break scan
				}
				depth--
			case ts[j].is(',') && depth == 0:
				commas = append(commas, j)
			}
		}
		if end < 0 {
			continue
		}
		var alts [][]tok
		if len(commas) > 0 {
			start := i + 1
			for _, c := range append(commas, end) {
				alts = append(alts, ts[start:c])
				start = c + 1
			}
		} else {
			seq, ok := braceSeq(ts[i+1:end], budget)
			if !ok {
				return nil
			}
			if seq == nil {
				continue // {x}: no expansion
			}
			alts = seq
		}
		prefix, suffix := ts[:i], ts[end+1:]
		var out [][]tok
		for _, alt := range alts {
			rests := braceExpand(slices.Concat(alt, suffix), budget)
			if rests == nil {
				return nil
			}
			for _, rest := range rests {
				if *budget--; *budget < 0 {
					return nil
				}
				out = append(out, slices.Concat(prefix, rest))
			}
		}
		return out
	}
	return [][]tok{ts}
}

// braceSeq reads a sequence expression x..y or x..y..step (numbers or
// single letters) and returns its words; nil when it is none; ok=false
// when it has more words than the budget allows.
func braceSeq(ts []tok, budget *int) (out [][]tok, ok bool) {
	var b strings.Builder
	for _, t := range ts {
		if !t.isChar() || t.quoted {
			return nil, true
		}
		b.WriteByte(t.ch)
	}
	parts := strings.Split(b.String(), "..")
	if len(parts) != 2 && len(parts) != 3 {
		return nil, true
	}
	step := 1
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			return nil, true
		}
		step = max(n, -n, 1)
	}
	x, errX := strconv.Atoi(parts[0])
	y, errY := strconv.Atoi(parts[1])
	letters := false
	if errX != nil || errY != nil {
		if len(parts[0]) != 1 || len(parts[1]) != 1 || !isLetter(parts[0][0]) || !isLetter(parts[1][0]) {
			return nil, true
		}
		x, y, letters = int(parts[0][0]), int(parts[1][0]), true
	}
	n := (max(x, y)-min(x, y))/step + 1
	if n > *budget {
		return nil, false
	}
	for k := 0; k < n; k++ {
		v := x + k*step
		if y < x {
			v = x - k*step
		}
		s := strconv.Itoa(v)
		if letters {
			s = string(rune(v))
		}
		out = append(out, charToks(s, false))
	}
	return out, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// expandTilde replaces a leading unquoted ~ or ~/ with the home
// directory; ok=false for one it cannot tell (~user, ~+, no home).
func expandTilde(ts []tok, home string) ([]tok, bool) {
	if len(ts) == 0 || !ts[0].is('~') {
		return ts, true
	}
	if len(ts) > 1 && !(ts[1].isChar() && ts[1].ch == '/') {
		return nil, false
	}
	if home == "" {
		return nil, false
	}
	return slices.Concat(charToks(home, true), ts[1:]), true
}

// maxVarDepth bounds how deeply a variable's value may name variables.
const maxVarDepth = 4

// substitute replaces the parameters of ts by their values. A value
// substituted outside double quotes keeps its glob characters, and is
// unknown when it holds blanks (it would be split into several words).
func substitute(ts []tok, vars varLookup, budget *int, depth int) ([][]tok, bool) {
	out := [][]tok{nil}
	for _, t := range ts {
		switch {
		case t.isChar():
			for i := range out {
				out[i] = append(out[i], t)
			}
			continue
		case t.dyn != "" || vars == nil || depth >= maxVarDepth:
			return nil, false
		}
		values, ok := vars(t.param, t.pos, t.inDQ)
		if !ok {
			return nil, false
		}
		var next [][]tok
		for _, v := range values {
			subs, ok := substitute(v, vars, budget, depth+1)
			if !ok {
				return nil, false
			}
			for _, s := range subs {
				if t.inDQ {
					s = quoteToks(s)
				} else if slices.ContainsFunc(s, func(t tok) bool { return t.ch == ' ' || t.ch == '\t' || t.ch == '\n' }) {
					return nil, false
				}
				for _, o := range out {
					if *budget--; *budget < 0 {
						return nil, false
					}
					next = append(next, slices.Concat(o, s))
				}
			}
		}
		if len(next) == 0 {
			return nil, false
		}
		out = next
	}
	return out, true
}

// quoteToks marks every character quoted, but those of a pathname
// expansion that happened before.
func quoteToks(ts []tok) []tok {
	out := slices.Clone(ts)
	for i := range out {
		out[i].quoted = !out[i].globbed
	}
	return out
}

// toExpansion makes the characters of a word a file name and a pattern.
func toExpansion(ts []tok) expansion {
	var lit, pat strings.Builder
	glob := false
	for i, t := range ts {
		lit.WriteByte(t.ch)
		switch {
		case t.quoted && strings.IndexByte("*?[\\", t.ch) >= 0:
			pat.WriteByte('\\')
		case !t.quoted && (t.ch == '*' || t.ch == '?'):
			glob = true
		case !t.quoted && t.ch == '[' && slices.ContainsFunc(ts[i+1:], func(t tok) bool { return t.is(']') }):
			glob = true
		case !t.quoted && t.ch == '[':
			pat.WriteByte('\\')
		case !t.quoted && t.ch == '\\':
			pat.WriteByte('\\')
		}
		pat.WriteByte(t.ch)
	}
	x := expansion{lit: lit.String(), glob: glob}
	if glob {
		x.pattern = pat.String()
	} else {
		x.pattern = escapeGlob(x.lit, "*?[\\")
	}
	return x
}

// Pathname expansion.

// maxGlobEntries bounds the directory entries one pattern is matched
// against; past it the word is unknown.
const maxGlobEntries = 4096

// globMatch matches a file name against one component of a pattern as
// bash does: a leading dot must be matched by a dot (unless dotglob), and
// neither . nor .. is matched by a wildcard (bash 5.2's globskipdots). A
// pattern Go cannot read ([[:alpha:]]) may match anything.
func globMatch(pattern, name string, dotglob bool) bool {
	if name == "." || name == ".." {
		return pattern == name
	}
	if strings.HasPrefix(name, ".") && !dotglob && !strings.HasPrefix(pattern, ".") && !strings.HasPrefix(pattern, `\.`) {
		return false
	}
	return globMayMatch(pattern, name)
}

// globMayMatch matches a name against a pattern component with bash's
// bracket negation ([!x]), and without the rules for dots: older shells
// let .* match .. too. A pattern Go cannot read may match anything.
func globMayMatch(pattern, name string) bool {
	if strings.Contains(pattern, "[:") || strings.Contains(pattern, "[=") || strings.Contains(pattern, "[.") {
		return true // a character class path.Match does not know
	}
	ok, err := path.Match(goPattern(pattern), name)
	return err != nil || ok
}

// goPattern turns bash's [!…] into path.Match's [^…].
func goPattern(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		b.WriteByte(p[i])
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			b.WriteByte(p[i])
		case p[i] == '[' && i+1 < len(p) && p[i+1] == '!':
			b.WriteByte('^')
			i++
		}
	}
	return b.String()
}

// hasMetaComp reports a pattern component with an unescaped glob
// character.
func hasMetaComp(c string) bool { return hasMeta(c, "*?[") }

// unescapeGlob removes the backslashes of a pattern without glob
// characters.
func unescapeGlob(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// globFS returns the existing files an absolute pattern matches now, or
// ok=false when there are too many to look at.
func globFS(pattern string, dotglob bool) (matches []string, ok bool) {
	comps := strings.Split(strings.TrimPrefix(filepath.ToSlash(pattern), "/"), "/")
	dirs := []string{"/"}
	seen := 0
	for ci, c := range comps {
		if c == "" {
			continue
		}
		last := ci == len(comps)-1
		var next []string
		for _, d := range dirs {
			if !hasMetaComp(c) {
				p := filepath.Join(d, unescapeGlob(c))
				if _, err := os.Lstat(p); err == nil {
					next = append(next, p)
				}
				continue
			}
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if seen++; seen > maxGlobEntries {
					return nil, false
				}
				if !globMatch(c, e.Name(), dotglob) {
					continue
				}
				p := filepath.Join(d, e.Name())
				if !last {
					if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
						continue
					}
				}
				next = append(next, p)
			}
		}
		dirs = next
		if len(dirs) == 0 {
			return nil, true
		}
	}
	return dirs, true
}
