package approval

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tackle-dev/tackle/tools"
)

// ShellTool is the tool whose rule patterns match shell commands; every
// other tool's patterns match the path it is given.
const ShellTool = tools.Bash

// ErrBadRule is wrapped by every error ParseRule and Rules.Parse return.
var ErrBadRule = errors.New("bad approval rule")

// Rule is one allow or deny rule: `tool` matches every call of the tool,
// `tool(pattern)` the calls whose command or path matches the pattern.
//
// For bash the pattern is a sequence of words separated by spaces. It is
// matched against each simple command of the parsed shell program, word
// by word: a `*` as the whole last word matches any remaining words (zero
// or more); any other word is a path.Match glob on one word ("go", "*.go",
// "-v*"). A word of the command whose value is known only when the shell
// runs (it holds $VAR, $(…), `…`, $((…)), <(…), an unquoted glob, a brace
// or tilde expansion, $'…') matches nothing but that final `*`. Quoting
// and backslashes are resolved before matching: 'rm', \rm and r\m are all
// the word rm. A pattern without a final `*` matches the whole command
// exactly: `bash(git status)` matches "git status" and not
// "git status --short".
//
// A final `*` does not cover the words commands.go marks as risky (options
// and scripts that write, delete or run code), words naming paths outside
// the workspace, or words known only at run time in commands whose
// arguments are files; see the package documentation.
//
// For fetch the pattern is a host: `fetch(domain:go.dev)` matches the
// URLs on go.dev alone, `fetch(domain:*.go.dev)` those on its subdomains
// (pkg.go.dev, not go.dev itself); an IP address is a host too
// (`fetch(domain:127.0.0.1)`). Hosts are compared as fetch reads them
// (tools.FetchURL): lower case, ASCII, an IPv4 address only as a.b.c.d.
// An allow rule naming a host exactly (no *) also lets fetch connect to
// it at a loopback, private or link-local address (domain.go).
//
// For any other tool the pattern is a doublestar glob (`**` crosses
// directories) on the workspace-relative, cleaned path the call names:
// `edit_file(docs/**)`, `read_file(.env)`. A path rule applies to every
// file tool that reaches the path the same way (reading, editing or
// listing), and deny rules on reading and editing apply to bash commands
// naming the path (see the package documentation).
type Rule struct {
	Tool    string
	Pattern string // "" matches every call of Tool
}

// String returns the rule in the syntax ParseRule reads.
func (r Rule) String() string {
	if r.Pattern == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// ParseRule reads a rule: `tool` or `tool(pattern)`.
func ParseRule(s string) (Rule, error) {
	bad := func(format string, args ...any) (Rule, error) {
		return Rule{}, fmt.Errorf("%w %q: %s", ErrBadRule, s, fmt.Sprintf(format, args...))
	}
	src := strings.TrimSpace(s)
	if src == "" {
		return bad("the rule is empty (want tool or tool(pattern), e.g. bash(go test *))")
	}
	tool, pattern, hasParen := strings.Cut(src, "(")
	tool = strings.TrimSpace(tool)
	if !hasParen {
		if strings.Contains(tool, ")") {
			return bad(`")" without "("`)
		}
	} else {
		if !strings.HasSuffix(pattern, ")") {
			if strings.Contains(pattern, ")") {
				return bad(`text after the closing ")"`)
			}
			return bad(`missing the closing ")"`)
		}
		pattern = pattern[:len(pattern)-1]
		depth := 0
		for _, c := range pattern {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth < 0 {
				return bad(`text after the closing ")"`)
			}
		}
		if depth != 0 {
			return bad(`unbalanced parentheses in the pattern`)
		}
		pattern = strings.TrimSpace(pattern)
		if pattern == "" {
			return bad("the pattern in () is empty (write %s alone to match every call)", tool)
		}
	}
	if tool == "" {
		return bad("missing the tool name before the pattern")
	}
	if strings.HasPrefix(tool, mcpPrefix) {
		if err := checkMCPRule(tool); err != nil {
			return bad("%v", err)
		}
		if hasParen {
			return bad("an MCP tool's rule takes no pattern: tackle cannot tell what its arguments reach (write %s alone)", tool)
		}
		return Rule{Tool: tool}, nil
	}
	if err := checkToolName(tool); err != nil {
		return bad("%v", err)
	}
	r := Rule{Tool: tool}
	if !hasParen {
		return r, nil
	}
	if tool == ShellTool {
		words := strings.Fields(pattern)
		for _, w := range words {
			if _, err := path.Match(w, ""); err != nil {
				return bad("bad glob %q in the pattern", w)
			}
		}
		r.Pattern = strings.Join(words, " ")
		return r, nil
	}
	if tool == tools.Fetch {
		d, err := parseDomain(pattern)
		if err != nil {
			return bad("%v", err)
		}
		r.Pattern = d
		return r, nil
	}
	pattern = cleanPattern(pattern)
	if !doublestar.ValidatePattern(pattern) {
		return bad("bad path glob %q", pattern)
	}
	r.Pattern = pattern
	return r, nil
}

// checkToolName accepts the names tackle's tools have: lower case letters,
// digits and _ . : - (so mcp__server__tool works), starting with a letter.
func checkToolName(name string) error {
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-'):
		case c >= 'A' && c <= 'Z':
			return fmt.Errorf("tool names are lower case (did you mean %s?)", strings.ToLower(name))
		default:
			return fmt.Errorf("%q is not a tool name (want e.g. bash, edit_file, read_file)", name)
		}
	}
	return nil
}

// mcpPrefix starts the names of MCP servers' tools: mcp__SERVER__TOOL.
const mcpPrefix = "mcp__"

// checkMCPRule accepts the tool part of a rule about MCP tools:
// mcp__SERVER__TOOL, mcp__SERVER__* (a glob: * and ? as in path.Match),
// or mcp__SERVER for every tool of the server. The names are as the
// model sees them (letters of either case, digits, _ and -).
func checkMCPRule(tool string) error {
	rest := strings.TrimPrefix(tool, mcpPrefix)
	if rest == "" {
		return fmt.Errorf("%q names no MCP server (want mcp__SERVER, mcp__SERVER__TOOL or mcp__SERVER__*)", tool)
	}
	for _, c := range rest {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*' || c == '?') {
			return fmt.Errorf("%q is not an MCP tool name or glob (letters, digits, _, - and the globs * and ?)", tool)
		}
	}
	return nil
}

// toolMatches reports whether a rule's tool covers a call's tool: the
// same name, or for MCP tools a glob (mcp__github__*) or a whole server
// (mcp__github covers every mcp__github__… tool, and no other server's).
func toolMatches(rule, call string) bool {
	if rule == call {
		return true
	}
	if !strings.HasPrefix(rule, mcpPrefix) || !strings.HasPrefix(call, mcpPrefix) {
		return false
	}
	if !strings.Contains(strings.TrimPrefix(rule, mcpPrefix), "__") && !strings.ContainsAny(rule, "*?") {
		return strings.HasPrefix(call, rule+"__")
	}
	return globWord(rule, call)
}

// cleanPattern cleans a path pattern the way call paths are cleaned, so
// "./docs/**" and "docs/**" are the same rule.
func cleanPattern(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		// "docs/" means the directory and what is in it.
		return c + "/**"
	}
	return c
}

// Rules is the allow and deny rules of a config file or the command line.
type Rules struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Parse parses every rule and reports every bad one, each naming the list
// and the position it has there.
func (r Rules) Parse() (allow, deny []Rule, err error) {
	var errs []error
	parse := func(list string, src []string) []Rule {
		var out []Rule
		for i, s := range src {
			rule, err := ParseRule(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s rule %d: %w", list, i+1, err))
				continue
			}
			out = append(out, rule)
		}
		return out
	}
	allow = parse("allow", r.Allow)
	deny = parse("deny", r.Deny)
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return allow, deny, nil
}

// match is the result of matching a rule: deny rules can get "maybe" when
// a word is known only at run time.
type match uint8

const (
	noMatch match = iota
	maybeMatch
	fullMatch
)

// matchAllow reports whether an allow rule's pattern covers a command's
// words. A word known only at run time is covered by a final `*` alone.
// guard (nil, or one entry per word) holds why the final `*` must not
// cover a word (a risky option, a path outside the workspace); when that
// stops a match that would otherwise be made, stop says why.
func matchAllow(pat []string, ws []word, guard []string) (ok bool, stop string) {
	for i, p := range pat {
		if p == "*" && i == len(pat)-1 {
			for j := i; j < len(guard); j++ {
				if guard[j] != "" {
					return false, guard[j]
				}
			}
			return true, ""
		}
		if i >= len(ws) || !ws[i].static || !globWord(p, ws[i].text) {
			return false, ""
		}
	}
	return len(ws) == len(pat), ""
}

// matchDeny matches a deny rule's pattern against a command's words (its
// name first, assignments left out). Deny rules are matched more loosely
// than allow rules, so that they are hard to dodge:
//
//   - the name matches by its base name too: `bash(rm *)` denies /bin/rm;
//   - before every pattern word after the name, option words (starting
//     with "-"), each perhaps followed by its argument, may be skipped:
//     `bash(git push *)` denies `git -C repo --no-pager push`;
//   - a word known only at run time might be anything: where it decides
//     the outcome the result is maybeMatch. An unquoted one might even be
//     several words or none, which shifts every word after it.
func matchDeny(pat []string, ws []word) match {
	memo := make(map[[2]int]match)
	var from func(i, j int) match
	from = func(i, j int) match {
		key := [2]int{i, j}
		if m, ok := memo[key]; ok {
			return m
		}
		m := denyStep(pat, ws, i, j, from)
		memo[key] = m
		return m
	}
	return from(0, 0)
}

// denyStep matches pat[i:] against ws[j:].
func denyStep(pat []string, ws []word, i, j int, from func(i, j int) match) match {
	rest, words := pat[i:], ws[j:]
	if len(rest) == 1 && rest[0] == "*" {
		return fullMatch
	}
	if len(rest) == 0 {
		if len(words) == 0 {
			return fullMatch
		}
		// An exact pattern and more words: they might expand to nothing.
		for _, w := range words {
			if w.static || !w.split {
				return noMatch
			}
		}
		return maybeMatch
	}
	if len(words) == 0 {
		return noMatch
	}
	w, best := words[0], noMatch
	switch {
	case !w.static && w.split:
		return maybeMatch
	case !w.static:
		best = min(from(i+1, j+1), maybeMatch)
	case globWord(rest[0], w.text) || i == 0 && globWord(rest[0], path.Base(w.text)):
		best = from(i+1, j+1)
	}
	if i > 0 && w.static && len(w.text) > 1 && w.text[0] == '-' {
		best = max(best, from(i, j+1))
		if j+1 < len(ws) {
			best = max(best, from(i, j+2))
		}
	}
	return best
}

// globWord matches one word against one pattern word.
func globWord(pattern, w string) bool {
	ok, err := path.Match(pattern, w)
	return err == nil && ok
}

// matchPath matches a path rule against a workspace-relative, cleaned
// path. Deny rules ignore case where the file system usually does.
func matchPath(pattern, p string, deny bool) bool {
	if deny && foldCase {
		pattern, p = strings.ToLower(pattern), strings.ToLower(p)
	}
	ok, err := doublestar.Match(pattern, p)
	return err == nil && ok
}

// foldCase is true where file names are usually case-insensitive.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"
