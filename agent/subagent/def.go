// Package subagent is the task tool: the model starts a subagent (a child
// Worker, agent.RunSubagent) with a prompt it writes, and reads back its
// final answer. A subagent has its own conversation, system prompt, model
// and request budget and a subset of the tools — read-only unless the
// config or a custom agent names others — and every call it makes goes
// through the same hooks, approval policy and sandbox as its parent's.
//
// Custom agents are markdown files with YAML front matter (name,
// description, tools, model; the body is the agent's prompt): tackle's
// own in .tackle/agents/ and $XDG_CONFIG_HOME/tackle/agents/, and Claude
// Code's in .claude/agents/ and ~/.claude/agents/ (its tool names read as
// tackle's). A project's files are the app's to trust; this package only
// reads them.
package subagent

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tackle-dev/tackle/agent/project"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/tools"
)

// General is the agent a task runs as when its call names none: the
// default tools and model, no prompt of its own.
const General = "general"

// Format is the format of an agent file: tackle's, or Claude Code's (whose
// tool names are Claude Code's).
type Format uint8

// The agent file formats.
const (
	Tackle Format = iota
	Claude
)

// Def is a custom agent.
type Def struct {
	// Name is what a task call names it by: lowercase letters, digits
	// and hyphens.
	Name string
	// Description says when to use it; the task tool's description
	// lists it for the model.
	Description string
	// Tools are its tools by tackle's names; nil gives the default
	// tools (Config.Tools).
	Tools []string
	// Model is its model; "" is the default.
	Model string
	// Prompt is its instructions, the file's body.
	Prompt string
	// Path is the file it was read from.
	Path string
	// Notes say what of the file tackle does not use (a Claude Code tool
	// it does not have, a model alias of Anthropic's).
	Notes []string
}

// validName reports whether name is 1 to 64 lowercase letters, digits,
// - and _, not starting with - or _.
func validName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' || name[0] == '_' {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// front is the front matter tackle reads; the rest (color, hooks …) is
// ignored.
type front struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Tools       toolList `yaml:"tools"`
	Model       string   `yaml:"model"`
}

// toolList is a tools field: a list, or one string of names apart by
// commas (Claude Code's usual form).
type toolList struct {
	names []string
	set   bool
}

func (l *toolList) UnmarshalYAML(n *yaml.Node) error {
	l.set = true
	switch n.Kind {
	case yaml.ScalarNode:
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				l.names = append(l.names, s)
			}
		}
		return nil
	case yaml.SequenceNode:
		return n.Decode(&l.names)
	}
	return errors.New("tools: want a list of names, or names apart by commas")
}

// claudeModels are Anthropic's model aliases, which no OpenAI-compatible
// server knows: the agent uses the default model.
var claudeModels = []string{"sonnet", "opus", "haiku", "inherit"}

// Parse reads an agent file of format f. Its name defaults to the file's
// name without .md.
func Parse(path string, data []byte, f Format) (Def, error) {
	fm, body, err := splitFront(data)
	if err != nil {
		return Def{}, fmt.Errorf("%s: %w", path, err)
	}
	var fr front
	if err := yaml.Unmarshal(fm, &fr); err != nil {
		return Def{}, fmt.Errorf("%s: front matter: %w", path, err)
	}
	d := Def{
		Name:        strings.TrimSpace(fr.Name),
		Description: strings.TrimSpace(fr.Description),
		Model:       strings.TrimSpace(fr.Model),
		Prompt:      strings.TrimSpace(string(body)),
		Path:        path,
	}
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	switch {
	case !validName(d.Name):
		return Def{}, fmt.Errorf("%s: name %q: use lowercase letters, digits, - and _", path, d.Name)
	case d.Name == General:
		return Def{}, fmt.Errorf("%s: name %q is the built-in agent's", path, d.Name)
	case d.Description == "":
		return Def{}, fmt.Errorf("%s: description is empty: it tells the model when to use the agent", path)
	}
	if f == Claude && slices.Contains(claudeModels, strings.ToLower(d.Model)) {
		if d.Model != "" && !strings.EqualFold(d.Model, "inherit") {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: model %q is an alias of Anthropic's: the agent uses the default model", path, d.Model))
		}
		d.Model = ""
	}
	if fr.Tools.set {
		d.Tools = []string{}
		for _, name := range fr.Tools.names {
			t, note := toolName(name, f)
			if note != "" {
				d.Notes = append(d.Notes, fmt.Sprintf("%s: %s", path, note))
			}
			if t != "" && !slices.Contains(d.Tools, t) {
				d.Tools = append(d.Tools, t)
			}
		}
	}
	return d, nil
}

// toolName is tackle's name of a tool an agent file names, or why it has
// none.
func toolName(name string, f Format) (string, string) {
	if f == Claude {
		if i := strings.IndexByte(name, '('); i > 0 {
			name = name[:i] // Task(agent) limits which agents: a subagent starts none
		}
		t, ok := claude.TackleName(name)
		if !ok {
			return "", fmt.Sprintf("tool %q is not one of tackle's: left out", name)
		}
		name = t
	}
	if name == tools.Task {
		return "", "a subagent cannot start subagents: task left out"
	}
	return name, ""
}

// splitFront splits a file into its front matter and its body
// (project.SplitFrontMatter). A file without front matter is an error:
// the description is required.
func splitFront(data []byte) (front, body []byte, err error) {
	front, body, ok, err := project.SplitFrontMatter(data)
	if err == nil && !ok {
		err = errors.New("no front matter: the file must start with a line ---, then name, description, tools and model, then ---")
	}
	return front, body, err
}

// MaxFile bounds an agent file.
const MaxFile = 256 << 10

// Dir is a directory of agent files and their format.
type Dir struct {
	Path   string
	Format Format
}

// LoadDir reads the agent files (*.md) of a directory, sorted by name; a
// missing directory has none.
func LoadDir(d Dir) ([]Def, error) {
	paths, err := filepath.Glob(filepath.Join(d.Path, "*.md"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var defs []Def
	var errs []error
	for _, p := range paths {
		b, err := tools.ReadRegular(p, MaxFile+1)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(b) > MaxFile {
			errs = append(errs, fmt.Errorf("%s is larger than %d KiB, the most an agent file may be", p, MaxFile>>10))
			continue
		}
		def, err := Parse(p, b, d.Format)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		defs = append(defs, def)
	}
	return defs, errors.Join(errs...)
}

// Merge joins sets of agents, the later sets winning for a name both
// have (a project's over the user's).
func Merge(sets ...[]Def) []Def {
	return project.MergeByName(func(d Def) string { return d.Name }, sets...)
}
