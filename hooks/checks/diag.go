package checks

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Diagnostic is one problem a check found.
type Diagnostic struct {
	// Check names the check that reported it ("gofmt", "vet", a command).
	Check string `json:"check"`
	// Path is the file, relative to the workspace root with forward
	// slashes; empty when the problem is not about one file (a command
	// that failed without naming a file).
	Path string `json:"path,omitempty"`
	// Line and Col are 1-based; zero when the tool did not say.
	Line int `json:"line,omitempty"`
	Col  int `json:"col,omitempty"`
	// Message is the tool's text. It may span lines (an indented
	// continuation such as go's "to add it:" hint).
	Message string `json:"message"`
}

// String renders the diagnostic as "path:line:col: message (check)",
// leaving out what is unknown; the check's name ends the first line of a
// message of several lines.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Path != "" {
		b.WriteString(d.Path)
		if d.Line > 0 {
			b.WriteString(":" + strconv.Itoa(d.Line))
			if d.Col > 0 {
				b.WriteString(":" + strconv.Itoa(d.Col))
			}
		}
		b.WriteString(": ")
	}
	msg, rest, multi := strings.Cut(d.Message, "\n")
	b.WriteString(msg)
	// The check's name ends the first line; a diagnostic about no file
	// names the command in its text already.
	if d.Check != "" && d.Path != "" {
		b.WriteString(" (" + d.Check + ")")
	}
	if multi {
		b.WriteString("\n" + rest)
	}
	return b.String()
}

// short is String cut to its first line, for one-line summaries.
func (d Diagnostic) short() string {
	s := d.String()
	if first, _, ok := strings.Cut(s, "\n"); ok {
		return first + " …"
	}
	return s
}

// compareDiagnostics orders diagnostics by file (file-less ones last),
// position, check and message.
func compareDiagnostics(a, b Diagnostic) int {
	if (a.Path == "") != (b.Path == "") {
		if a.Path == "" {
			return 1
		}
		return -1
	}
	return cmp.Or(
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col),
		cmp.Compare(a.Check, b.Check),
		cmp.Compare(a.Message, b.Message),
	)
}

// Normalize sorts diagnostics and removes duplicates: two diagnostics at
// the same place with the same message are one, whichever checks
// reported them (gofmt and vet both see a syntax error; gofmt -e repeats
// some). The first check in sort order keeps it.
func Normalize(ds []Diagnostic) []Diagnostic {
	out := slices.Clone(ds)
	slices.SortFunc(out, compareDiagnostics)
	type key struct {
		path      string
		line, col int
		msg       string
	}
	seen := make(map[key]bool, len(out))
	return slices.DeleteFunc(out, func(d Diagnostic) bool {
		k := key{d.Path, d.Line, d.Col, d.Message}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

// filterChanged splits ds into the diagnostics about files in changed
// (workspace paths), about no file at all, or for which also(i) is true
// (also may be nil), and the others.
func filterChanged(ds []Diagnostic, changed []string, also func(i int) bool) (kept, dropped []Diagnostic) {
	for i, d := range ds {
		if d.Path == "" || slices.Contains(changed, d.Path) || (also != nil && also(i)) {
			kept = append(kept, d)
		} else {
			dropped = append(dropped, d)
		}
	}
	return kept, dropped
}

// parsed is a tool's output read line by line.
type parsed struct {
	diags []Diagnostic
	// typeErrs marks the diagnostics (by index) that go vet prefixed
	// with "vet: ": errors that kept it from checking a package at all.
	typeErrs map[int]bool
	// other are the lines that are not diagnostics (headers, notes,
	// unpositioned errors), trimmed, empty ones left out.
	other []string
}

// outputParser reads the "file:line:col: message" output that go, gofmt,
// staticcheck, golangci-lint and most linters print.
type outputParser struct {
	check string
	// dir is the absolute directory the tool ran in: relative paths in
	// its output are relative to it.
	dir string
	// root is the workspace root; paths are reported relative to it, and
	// paths outside it are kept absolute (and later filtered out).
	root string
	// stdin, when set, is the file the tool read as "<standard input>".
	stdin string
	// continuation: a line starting with a tab continues the previous
	// diagnostic (go's "to add it:\n\tgo get ..."). Off for linters that
	// print the offending source line under each diagnostic.
	continuation bool
}

// diagLine matches "file:line: message" and "file:line:col: message",
// optionally behind go vet's "vet: " prefix. The space after the last
// colon is optional (grep -n prints none).
var diagLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(vet: )?([^\s:][^:]*?):(\d+)(?::(\d+))?: ?(.*)$`) })

// parse reads out.
func (p outputParser) parse(out string) parsed {
	var res parsed
	last := -1 // index of the diagnostic a continuation line extends
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if p.continuation && last >= 0 && strings.HasPrefix(line, "\t") && strings.TrimSpace(line) != "" {
			res.diags[last].Message += "\n\t" + strings.TrimSpace(line)
			continue
		}
		last = -1
		m := diagLine().FindStringSubmatch(line)
		if m == nil || strings.TrimSpace(m[5]) == "" {
			if s := strings.TrimSpace(line); s != "" {
				res.other = append(res.other, s)
			}
			continue
		}
		ln, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		d := Diagnostic{Check: p.check, Path: p.path(m[2]), Line: ln, Col: col, Message: strings.TrimSpace(m[5])}
		res.diags = append(res.diags, d)
		last = len(res.diags) - 1
		if m[1] != "" {
			if res.typeErrs == nil {
				res.typeErrs = make(map[int]bool)
			}
			res.typeErrs[last] = true
		}
	}
	return res
}

// path turns a path as a tool printed it into a workspace path.
func (p outputParser) path(s string) string {
	if s == "<standard input>" && p.stdin != "" {
		return p.stdin
	}
	s = filepath.FromSlash(s)
	if !filepath.IsAbs(s) {
		s = filepath.Join(p.dir, s)
	}
	if rel, ok := within(p.root, filepath.Clean(s)); ok {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(s)
}

// within returns p relative to root when p is root or below it.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// report renders what a round found for the model and for the user.
type report struct {
	files     []string // the files checked
	checks    []string // the checks that ran, in order
	formatted []string // files gofmt rewrote
	diags     []Diagnostic
	max       int // most diagnostics listed; <= 0 means all
}

// maxListedFiles bounds the file list at the top of the message.
const maxListedFiles = 20

// message is the retry message: what was checked, the diagnostics and
// what to do. It holds nothing that changes between two rounds with the
// same findings (no durations, no round numbers), so the retry budget
// can tell a model that is not making progress.
func (r report) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The turn-end checks (%s) found problems in the files you changed: %s.\n",
		strings.Join(r.checks, ", "), listFiles(r.files, maxListedFiles))
	if len(r.formatted) > 0 {
		fmt.Fprintf(&b, "gofmt reformatted %s in place; read %s again before you edit %s.\n",
			listFiles(r.formatted, maxListedFiles), plural(len(r.formatted), "it", "them"), plural(len(r.formatted), "it", "them"))
	}
	fmt.Fprintf(&b, "\n%s:\n\n", count(len(r.diags), "problem"))
	shown, more := r.capped()
	for _, d := range shown {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	if more > 0 {
		fmt.Fprintf(&b, "… and %d more\n", more)
	}
	b.WriteString("\nFix these problems, then end your turn. Change the code to fix a problem; do not silence the check.")
	return b.String()
}

// reason is the compact list of what is still wrong, for the capped
// outcome: a count, then one line per diagnostic (capped at 10).
func (r report) reason() string {
	var b strings.Builder
	b.WriteString(count(len(r.diags), "problem"))
	const most = 10
	for i, d := range r.diags {
		if i == most {
			fmt.Fprintf(&b, "\n  … and %d more", len(r.diags)-most)
			break
		}
		b.WriteString("\n  " + d.short())
	}
	return b.String()
}

// capped returns the diagnostics to list and how many are left out.
func (r report) capped() ([]Diagnostic, int) {
	if r.max <= 0 || len(r.diags) <= r.max {
		return r.diags, 0
	}
	return r.diags[:r.max], len(r.diags) - r.max
}

// listFiles joins up to most names, then says how many more there are.
func listFiles(files []string, most int) string {
	if len(files) <= most {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:most], ", "), len(files)-most)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
