package tools

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// maxDFAStates bounds the states one lineDFA keeps. Past it the cache is
// dropped and built again as the search goes (RE2 does the same), so a
// pattern whose DFA would explode costs time, never unbounded memory.
const maxDFAStates = 2048

// dfaProg is a regular expression compiled for lineDFA: Go's own program
// (regexp/syntax), shared by every search of one grep call. A lineDFA is
// built from it per goroutine.
type dfaProg struct {
	prog *syntax.Prog
}

// compileDFA compiles pattern with the flags of lineMatcher's regexp
// ((?m): ^ and $ match at line boundaries).
func compileDFA(pattern string, ignoreCase bool) (*dfaProg, error) {
	flags := syntax.Perl &^ syntax.OneLine
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	return &dfaProg{prog: prog}, nil
}

// lineDFA tells whether a line contains a match, reading each byte of it
// once. It is a DFA built lazily from the program's instructions, as RE2
// and ripgrep do, for the patterns no literal prefilter helps with (such
// as [A-Z]{10,}), where Go's regexp would try a match at every byte.
//
// A state is the set of instructions waiting for the next character (the
// search is unanchored: the program's start is in every set) and what the
// empty-width assertions need to know of the character before: whether
// it starts the line and whether it is a word character. A transition
// first follows the empty-width instructions, knowing both characters, and
// then steps over the character. Only a line's truth is wanted, so a
// state that reaches the match instruction ends the line's scan.
//
// Lines are matched on their own, as in grep and ripgrep: \A and \z mean
// the line's start and end, like ^ and $.
//
// A lineDFA is not safe for concurrent use.
type lineDFA struct {
	prog   *syntax.Prog
	states map[string]*dfaState
	start  *dfaState // the state at a line's start
	resets int       // times the cache was dropped
	// scratch for transitions
	stack []uint32
	seen  []bool
	key   []byte
}

// dfaState is one state of a lineDFA. next holds its ASCII transitions as
// they are computed (nil: not yet); other characters go through wide.
type dfaState struct {
	pcs       []uint32 // sorted
	lineStart bool
	prevWord  bool
	next      [utf8.RuneSelf]*dfaState
	wide      map[rune]*dfaState
	atEnd     int8 // whether the line matches if it ends here: 0 unknown, 1 yes, -1 no
}

// matched is the sentinel a transition returns when a match ended before
// the character.
var matched = &dfaState{}

func (p *dfaProg) newLineDFA() *lineDFA {
	d := &lineDFA{prog: p.prog, seen: make([]bool, len(p.prog.Inst))}
	d.reset()
	return d
}

func (d *lineDFA) reset() {
	d.states = make(map[string]*dfaState)
	d.start = d.state([]uint32{uint32(d.prog.Start)}, true, false)
}

// state returns the state for pcs (sorted, deduplicated) and the context,
// creating it when new.
func (d *lineDFA) state(pcs []uint32, lineStart, prevWord bool) *dfaState {
	d.key = d.key[:0]
	var ctx byte
	if lineStart {
		ctx |= 1
	}
	if prevWord {
		ctx |= 2
	}
	d.key = append(d.key, ctx)
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if s, ok := d.states[string(d.key)]; ok {
		return s
	}
	if len(d.states) >= maxDFAStates {
		// Drop the cache; the states in hand stay valid (they are
		// only no longer shared), the start is made again.
		d.states = make(map[string]*dfaState)
		d.start = nil
		d.resets++
	}
	s := &dfaState{pcs: slices.Clone(pcs), lineStart: lineStart, prevWord: prevWord}
	d.states[string(d.key)] = s
	if d.start == nil && lineStart {
		d.start = s
	}
	return s
}

// each calls fn with the bounds [start, end) of every line of data that
// contains a match (end excludes the newline), in order, until fn returns
// false.
func (d *lineDFA) each(data []byte, fn func(start, end int) bool) {
	for pos := 0; pos < len(data); {
		if d.start == nil {
			d.reset()
		}
		s, i := d.start, pos
		for i < len(data) && s != matched {
			c := data[i]
			if c == '\n' {
				break
			}
			if c < utf8.RuneSelf {
				n := s.next[c]
				if n == nil {
					n = d.step(s, rune(c))
					s.next[c] = n
				}
				s = n
				i++
				continue
			}
			r, w := utf8.DecodeRune(data[i:])
			s = d.wideStep(s, r)
			i += w
		}
		end := i
		if s == matched {
			end = lineEnd(data, i)
		}
		if s == matched || d.matchesAtEnd(s) {
			if !fn(pos, end) {
				return
			}
		}
		pos = end + 1
	}
}

func (d *lineDFA) wideStep(s *dfaState, r rune) *dfaState {
	if n, ok := s.wide[r]; ok {
		return n
	}
	n := d.step(s, r)
	if s.wide == nil {
		s.wide = make(map[rune]*dfaState)
	}
	s.wide[r] = n
	return n
}

// matchesAtEnd reports whether a match ends at the end of the line when
// the scan is in s there.
func (d *lineDFA) matchesAtEnd(s *dfaState) bool {
	if s.atEnd == 0 {
		s.atEnd = -1
		if d.closure(s, -1, nil) {
			s.atEnd = 1
		}
	}
	return s.atEnd > 0
}

// step returns the state after s reads r, or matched when a match ends
// before r.
func (d *lineDFA) step(s *dfaState, r rune) *dfaState {
	var ready []uint32
	if d.closure(s, r, &ready) {
		return matched
	}
	next := []uint32{uint32(d.prog.Start)}
	for _, pc := range ready {
		inst := &d.prog.Inst[pc]
		if stepsOver(inst, r) {
			next = append(next, inst.Out)
		}
	}
	slices.Sort(next)
	return d.state(slices.Compact(next), false, isWordChar(r))
}

// stepsOver reports whether the character instruction inst reads r.
func stepsOver(inst *syntax.Inst, r rune) bool {
	switch inst.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	default: // InstRune, InstRune1
		return inst.MatchRune(r)
	}
}

// closure follows the empty-width instructions from s's, at the boundary
// before r (-1: the end of the line), appending the character
// instructions it reaches to ready (when not nil). It reports whether it
// reaches a match.
func (d *lineDFA) closure(s *dfaState, r rune, ready *[]uint32) bool {
	ops := d.emptyOps(s, r)
	clear(d.seen)
	d.stack = append(d.stack[:0], s.pcs...)
	found := false
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		inst := &d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstMatch:
			found = true
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^ops == 0 {
				d.stack = append(d.stack, inst.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if ready != nil {
				*ready = append(*ready, pc)
			}
		}
	}
	return found
}

// emptyOps returns the assertions that hold between s's previous
// character and r (-1: the end of the line).
func (d *lineDFA) emptyOps(s *dfaState, r rune) syntax.EmptyOp {
	var ops syntax.EmptyOp
	if s.lineStart {
		ops |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if r < 0 {
		ops |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	if s.prevWord != (r >= 0 && isWordChar(r)) {
		ops |= syntax.EmptyWordBoundary
	} else {
		ops |= syntax.EmptyNoWordBoundary
	}
	return ops
}

// isWordChar reports whether r is a word character of \b: ASCII letters,
// digits and underscore, as in Go's regexp.
func isWordChar(r rune) bool {
	return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}
