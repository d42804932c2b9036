// Package slash is custom slash commands: markdown prompt files the user
// runs as /name. A file's body is the prompt; its optional front matter
// says what the menu shows (description, argument-hint), the model the
// command's turn uses (model) and the tools that run without asking
// while that turn runs (allowed-tools). $ARGUMENTS in the body is what
// was typed after the name, $1 … $9 its words; a body with neither gets
// the arguments after it. A file in a subdirectory is a namespaced
// command: frontend/component.md is /frontend:component.
//
// tackle's own files live in $XDG_CONFIG_HOME/tackle/commands/ and a
// project's .tackle/commands/ (allowed-tools in tackle's rule syntax);
// Claude Code's in ~/.claude/commands/ and .claude/commands/
// (allowed-tools in Claude Code's permission syntax, translated). A
// project's files are the app's to trust; this package only reads them.
package slash

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/tackle-dev/tackle/agent/project"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Format is the format of a command file: tackle's, or Claude Code's
// (whose allowed-tools are Claude Code's permission rules).
type Format uint8

// The command file formats.
const (
	Tackle Format = iota
	Claude
)

// MaxFile bounds a command file; MaxDepth how deep namespaces go.
const (
	MaxFile  = 64 << 10
	MaxDepth = 3
)

// Command is one custom slash command.
type Command struct {
	// Name is what follows the slash: lowercase letters, digits, - and
	// _, with : between a namespace's parts (frontend:component).
	Name string
	// Description and ArgumentHint are what the slash menu shows.
	Description  string
	ArgumentHint string
	// Model is the model the command's turn uses; "" is the current one.
	Model string
	// Allowed are the rules of allowed-tools: calls they cover run
	// without asking while the command's turn runs (approval's turn
	// rules, which never cover a protected path, a way out of the
	// sandbox or a private address).
	Allowed []approval.Rule
	// Body is the prompt, before its arguments are put in.
	Body string
	// Path is the file; Scope says whose it is ("user", "project").
	Path  string
	Scope string
	// Notes say what of the file tackle does not use.
	Notes []string
}

// Dir is a directory of command files: its format and whose it is.
type Dir struct {
	Path   string
	Format Format
	Scope  string
}

// front is the front matter tackle reads.
type front struct {
	Description  string   `yaml:"description"`
	ArgumentHint hint     `yaml:"argument-hint"`
	Model        string   `yaml:"model"`
	AllowedTools ruleList `yaml:"allowed-tools"`
}

// hint is an argument-hint: Claude Code's files write it as YAML reads a
// list ([message], [pr-number] [priority]), which is put back as written.
type hint string

func (h *hint) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*h = hint(n.Value)
		return nil
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return errors.New("argument-hint: want text, e.g. [message]")
			}
			parts = append(parts, c.Value)
		}
		*h = hint("[" + strings.Join(parts, ", ") + "]")
		return nil
	}
	return errors.New("argument-hint: want text, e.g. [message]")
}

var hintLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^argument-hint:[ \t]*(\[.*?)[ \t\r]*$`) })

// quoteHint quotes an argument-hint written as Claude Code's docs write
// it ([pr-number] [priority]), which is no YAML value.
func quoteHint(fm []byte) []byte {
	return hintLine().ReplaceAllFunc(fm, func(line []byte) []byte {
		v := hintLine().FindSubmatch(line)[1]
		q, _ := json.Marshal(string(v))
		return append([]byte("argument-hint: "), q...)
	})
}

// ruleList is an allowed-tools field: a list, or one string of rules
// apart by commas (Claude Code's usual form; commas inside parentheses
// belong to the rule).
type ruleList []string

func (l *ruleList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = splitRules(n.Value)
		return nil
	case yaml.SequenceNode:
		var s []string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*l = s
		return nil
	}
	return errors.New("allowed-tools: want a list of rules, or rules apart by commas")
}

// splitRules splits "Bash(git add:*), Read" at the commas outside
// parentheses.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	out = append(out, s[start:])
	var rules []string
	for _, r := range out {
		if r = strings.TrimSpace(r); r != "" {
			rules = append(rules, r)
		}
	}
	return rules
}

// claudeModels are Anthropic's model aliases, which no OpenAI-compatible
// server knows: the command uses the current model.
var claudeModels = []string{"sonnet", "opus", "haiku", "inherit"}

// Parse reads a command file of format f named name. The front matter is
// optional. workspace and home place Claude Code's path rules.
func Parse(path, name string, data []byte, f Format, workspace, home string) (Command, error) {
	c := Command{Name: name, Path: path}
	if len(data) > MaxFile {
		return Command{}, fmt.Errorf("%s is larger than %d KiB, the most a command file may be", path, MaxFile>>10)
	}
	if !validName(name) {
		return Command{}, fmt.Errorf("%s: the command name %q: use lowercase letters, digits, - and _ (a subdirectory is a namespace, name:sub)", path, name)
	}
	fm, body, _, err := project.SplitFrontMatter(data)
	if err != nil {
		return Command{}, fmt.Errorf("%s: %w", path, err)
	}
	var fr front
	if fm != nil {
		if err := yaml.Unmarshal(quoteHint(fm), &fr); err != nil {
			return Command{}, fmt.Errorf("%s: front matter: %w", path, err)
		}
	}
	c.Body = strings.TrimSpace(string(body))
	if c.Body == "" {
		return Command{}, fmt.Errorf("%s: the prompt is empty", path)
	}
	c.Description = chat.OneLine(fr.Description, 0)
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	c.ArgumentHint = chat.OneLine(string(fr.ArgumentHint), 0)
	c.Model = strings.TrimSpace(fr.Model)
	if f == Claude && slices.Contains(claudeModels, strings.ToLower(c.Model)) {
		if c.Model != "" && !strings.EqualFold(c.Model, "inherit") {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: model %q is an alias of Anthropic's: the command uses the current model", path, c.Model))
		}
		c.Model = ""
	}
	for _, s := range fr.AllowedTools {
		rules, err := parseAllowed(s, f, workspace, home)
		if err != nil {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: allowed-tools %s: not applied: %v", path, s, err))
			continue
		}
		for _, r := range rules {
			if !slices.Contains(c.Allowed, r) {
				c.Allowed = append(c.Allowed, r)
			}
		}
	}
	return c, nil
}

// parseAllowed reads one rule of allowed-tools. A rule that would let
// every shell command run unasked (bash, bash(*)) is refused: a command
// names the commands it runs.
func parseAllowed(s string, f Format, workspace, home string) ([]approval.Rule, error) {
	var rules []approval.Rule
	if f == Claude {
		rs, err := claude.TranslateRule(s, workspace, home)
		if err != nil {
			return nil, err
		}
		rules = rs
	} else {
		r, err := approval.ParseRule(s)
		if err != nil {
			return nil, err
		}
		rules = []approval.Rule{r}
	}
	for _, r := range rules {
		if r.Tool == approval.ShellTool && (r.Pattern == "" || r.Pattern == "*") {
			return nil, errors.New("a rule allowing every shell command is not taken from a command file: name the commands (bash(git status *))")
		}
	}
	return rules, nil
}

// validName reports whether name is a command name: parts of 1 to 64
// lowercase letters, digits, - and _ (not starting with - or _), joined
// by ':'.
func validName(name string) bool {
	parts := strings.Split(name, ":")
	if len(parts) > MaxDepth+1 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 64 || p[0] == '-' || p[0] == '_' {
			return false
		}
		for _, c := range p {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

// firstLine is the body's first line of text, for a command without a
// description.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if r := []rune(l); len(r) > 80 {
				l = string(r[:79]) + "…"
			}
			return l
		}
	}
	return ""
}

// Files lists the command files of a directory: *.md, in subdirectories
// down to MaxDepth, regular files only (a symbolic link is skipped), with
// the command name each gives; sorted by name.
func Files(dir string) ([]File, error) {
	var out []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, string(filepath.Separator)) >= MaxDepth) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || filepath.Ext(p) != ".md" {
			return nil
		}
		name := strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".md"), "/", ":"))
		out = append(out, File{Path: p, Name: name})
		return nil
	})
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out, err
}

// File is a command file and the name it gives the command.
type File struct {
	Path, Name string
}

// Read reads a command file: at most MaxFile+1 bytes, so that Parse
// can refuse a larger one; a regular file only (tools.ReadRegular).
func Read(path string) ([]byte, error) { return tools.ReadRegular(path, MaxFile+1) }

// LoadDir reads the command files of d. A missing directory has none;
// a file that cannot be read or parsed is an error in the joined error,
// and the others are kept.
func LoadDir(d Dir, workspace, home string) ([]Command, error) {
	files, err := Files(d.Path)
	errs := []error{err}
	var out []Command
	for _, f := range files {
		b, err := Read(f.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := Parse(f.Path, f.Name, b, d.Format, workspace, home)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.Scope = d.Scope
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// Merge joins sets of commands, the later sets winning for a name both
// have (a project's over the user's, tackle's over Claude Code's).
func Merge(sets ...[]Command) []Command {
	return project.MergeByName(func(c Command) string { return c.Name }, sets...)
}

var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$(ARGUMENTS|[1-9])`) })

// Expand is the prompt for args (what was typed after the command's
// name): $ARGUMENTS becomes args, $1 … $9 its words (split as a shell
// would at blanks, 'single' and "double" quotes keeping a word whole;
// a missing word is empty). Each placeholder is replaced once, in one
// pass: a placeholder inside args stays as typed. A body without
// placeholders gets args after it, on a line "ARGUMENTS: …".
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	re := placeholder()
	if !re.MatchString(c.Body) {
		if args == "" {
			return c.Body
		}
		return c.Body + "\n\nARGUMENTS: " + args
	}
	words := Words(args)
	return re.ReplaceAllStringFunc(c.Body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		i := int(m[1] - '1')
		if i < len(words) {
			return words[i]
		}
		return ""
	})
}

// Words splits args at blanks; quotes keep a word whole and are removed.
func Words(args string) []string {
	var out []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range args {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// Usage is how the command is typed, for the menu: "/name <hint>".
func (c Command) Usage() string {
	return strings.TrimSpace("/" + c.Name + " " + c.ArgumentHint)
}

// Find returns the command a line names ("/name args") and what follows
// its name.
func Find(cmds []Command, line string) (Command, string, bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return Command{}, "", false
	}
	word, args := line[1:], ""
	if i := strings.IndexAny(word, " \t\n"); i >= 0 {
		word, args = word[:i], word[i+1:]
	}
	for _, c := range cmds {
		if strings.EqualFold(c.Name, word) {
			return c, strings.TrimSpace(args), true
		}
	}
	return Command{}, "", false
}
