package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// linesByRegexp is the reference: the lines of data (split as grep does)
// that Go's regexp matches on their own.
func linesByRegexp(re *regexp.Regexp, data []byte) [][2]int {
	var got [][2]int
	for pos := 0; pos < len(data); {
		end := lineEnd(data, pos)
		if re.Match(data[pos:end]) {
			got = append(got, [2]int{pos, end})
		}
		pos = end + 1
	}
	return got
}

func linesByDFA(t testing.TB, pattern string, ignoreCase bool, data []byte) [][2]int {
	p, err := compileDFA(pattern, ignoreCase)
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]int
	p.newLineDFA().each(data, func(start, end int) bool {
		got = append(got, [2]int{start, end})
		return true
	})
	return got
}

func checkDFA(t testing.TB, pattern string, ignoreCase bool, data []byte) {
	prefix := "(?m)"
	if ignoreCase {
		prefix = "(?mi)"
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return
	}
	want := linesByRegexp(re, data)
	got := linesByDFA(t, pattern, ignoreCase, data)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pattern %q (ignore case %v) on %q:\n got lines %v\nwant lines %v", pattern, ignoreCase, data, got, want)
	}
}

const dfaText = "THE QUICK brown fox\n\nABCDEFGHIJK and more\nfoo_bar baz\r\n  indented\tTAB\n" +
	"héllo wörld ÀÉÎÕÜ ÀÉÎÕÜÀÉÎÕÜ\n\xff\xfe broken utf8 \xc3\nend without newline KELVIN \u212a"

func TestLineDFAMatchesLikeRegexp(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{
		`[A-Z]{10,}`, `[A-Z]{3}`, `^`, `$`, `^$`, `^\s+\w`, `\w+$`, `\bfoo`, `bar\b`, `o_b\B`,
		`\Bro`, `.`, `^.{5}$`, `[^a-z ]+`, `\p{Lu}{3,}`, `(?i)kelvin k`, `\x{FFFD}`, `[À-Ü]{10}`,
		`(a|b)*c`, `\d`, `x*`, `\A\s`, `\z`, `(?s).\z`, `(?-m)^T`, `w.rld`, `\r$`, `[[:upper:]]{4,}`,
		`(?U)a+`, `\t[A-Z]+$`, `(?i)[a-c]{3}`,
	} {
		checkDFA(t, pattern, false, []byte(dfaText))
		checkDFA(t, pattern, true, []byte(dfaText))
	}
}

// TestLineDFACacheOverflow runs a pattern whose DFA has more states than
// the cache keeps: the answers stay the same when it is rebuilt mid-scan.
func TestLineDFACacheOverflow(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%b\n", i*7919)
	}
	data := []byte(b.String())
	p, err := compileDFA(`1.{12}0`, false)
	if err != nil {
		t.Fatal(err)
	}
	d := p.newLineDFA()
	states := 0
	var got [][2]int
	d.each(data, func(start, end int) bool {
		got = append(got, [2]int{start, end})
		states = max(states, len(d.states))
		return true
	})
	want := linesByRegexp(regexp.MustCompile(`(?m)1.{12}0`), data)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	if len(want) == 0 {
		t.Fatal("the test data has no match")
	}
	if d.resets == 0 {
		t.Error("the cache was never dropped: the test does not test the overflow")
	}
	if states > maxDFAStates {
		t.Errorf("the DFA kept %d states, more than %d", states, maxDFAStates)
	}
}

func FuzzLineDFA(f *testing.F) {
	f.Add(`[A-Z]{10,}`, false, []byte(dfaText))
	f.Add(`^\w+\b$`, true, []byte("a\nb c\n"))
	f.Add(`(?i)\bK`, true, []byte("\u212a k\n"))
	f.Fuzz(func(t *testing.T, pattern string, ignoreCase bool, data []byte) {
		if len(pattern) > 40 || bytes.Count(data, []byte{'\n'}) > 200 {
			return
		}
		checkDFA(t, pattern, ignoreCase, data)
	})
}
