package claude

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/tools"
)

// claudeTools are tackle's own tools as Claude Code knows them, made on
// first use from the tools' argument structs (tools.BashArgs …), whose
// json tags are tackle's names of the arguments: Claude Code's name of
// each tool, and its names of the arguments whose names differ, by the
// argument's Go field. Other tools (mcp__server__tool) keep their names
// and arguments.
var claudeTools = sync.OnceValue(func() map[string]claudeTool {
	filePath := map[string]string{"Path": "file_path"}
	return map[string]claudeTool{
		tools.Bash:      describe[tools.BashArgs]("Bash", map[string]string{"TimeoutMS": "timeout"}),
		tools.ReadFile:  describe[tools.ReadFileArgs]("Read", filePath),
		tools.WriteFile: describe[tools.WriteFileArgs]("Write", filePath),
		tools.EditFile:  describe[tools.EditFileArgs]("Edit", filePath),
		tools.Glob:      describe[tools.GlobArgs]("Glob", nil),
		tools.Grep:      describe[tools.GrepArgs]("Grep", map[string]string{"Include": "glob", "IgnoreCase": "-i", "Context": "-C", "Before": "-B", "After": "-A"}),
		tools.ListDir:   describe[tools.ListDirArgs]("LS", nil),
		tools.Todo:      describe[tools.TodoArgs]("TodoWrite", nil),
		tools.Task:      describe[tools.TaskArgs]("Task", map[string]string{"Agent": "subagent_type"}),
		tools.Fetch:     describe[tools.FetchArgs]("WebFetch", nil),
	}
})

// otherNames are Claude Code's other names of tackle's tools: an older
// one (Task's new name), or a tool tackle does as one of its own.
var otherNames = map[string]string{"Agent": tools.Task, "MultiEdit": tools.EditFile}

// TackleName is tackle's name of the tool Claude Code calls name (Read
// is read_file; Claude Code's names for MCP tools are tackle's), as a
// custom agent's tools list names them; false for a Claude Code tool
// tackle does not have (WebSearch, NotebookEdit).
func TackleName(name string) (string, bool) {
	if strings.HasPrefix(name, "mcp__") {
		return name, true
	}
	if t, ok := otherNames[name]; ok {
		return t, true
	}
	for tackle, t := range claudeTools() {
		if t.name == name {
			return tackle, true
		}
	}
	return "", false
}

// claudeTool is one of tackle's tools as Claude Code knows it.
type claudeTool struct {
	name string // Claude Code's name
	// fields are tackle's names of the arguments; rename maps those
	// whose names differ to Claude Code's.
	fields []string
	rename map[string]string
	// path is tackle's name of the argument that is a path, made absolute
	// for Claude Code ("" when the tool has none).
	path string
}

// describe is the tool whose arguments are A, called name by Claude Code,
// which names the arguments of the Go fields in rename otherwise. A's
// field Path is a path. It panics when rename names a field A lacks (the
// tests make them all).
func describe[A any](name string, rename map[string]string) claudeTool {
	t := claudeTool{name: name, rename: map[string]string{}}
	at := reflect.TypeFor[A]()
	for goName, claudeName := range rename {
		f, ok := at.FieldByName(goName)
		if !ok {
			panic(fmt.Sprintf("claude: %s has no field %s", at, goName))
		}
		t.rename[jsonName(f)] = claudeName
	}
	for i := range at.NumField() {
		f := at.Field(i)
		t.fields = append(t.fields, jsonName(f))
		if f.Name == "Path" {
			t.path = jsonName(f)
		}
	}
	return t
}

// jsonName is the name of f in JSON: its json tag's.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// claudeName is the Claude Code name of a tackle tool.
func claudeName(name string) string {
	if t, ok := claudeTools()[name]; ok {
		return t.name
	}
	return name
}

// claudeInput is a call's arguments as Claude Code's tool_input: its
// field names, paths absolute (relative to root). Arguments that are not
// a JSON object are passed as they are (a string if they are not JSON).
func claudeInput(tool, args, root string) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		if json.Valid([]byte(args)) {
			return json.RawMessage(args)
		}
		b, _ := json.Marshal(args)
		return b
	}
	t, builtin := claudeTools()[tool]
	out := make(map[string]any, len(m))
	for k, v := range m {
		if builtin && k == t.path {
			if s, ok := v.(string); ok {
				v = absPath(s, root)
			}
		}
		if c, ok := t.rename[k]; ok {
			k = c
		}
		out[k] = v
	}
	if tool == tools.ListDir {
		if _, ok := out[t.path]; !ok {
			out[t.path] = root // the workspace, where list_dir lists by default
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// tackleArgs turns a Claude Code tool_input (a hook's updatedInput) back
// into a tackle tool's arguments: tackle's field names, a path inside
// root relative to it. Fields tackle's tool does not have are dropped
// for the built-in tools (the tool would refuse them).
func tackleArgs(tool string, input map[string]any, root string) (string, error) {
	t, builtin := claudeTools()[tool]
	back := map[string]string{}
	for tk, c := range t.rename {
		back[c] = tk
	}
	out := make(map[string]any, len(input))
	for k, v := range input {
		if tk, ok := back[k]; ok {
			k = tk
		}
		if builtin {
			if !slices.Contains(t.fields, k) {
				continue
			}
			if k == t.path {
				if s, ok := v.(string); ok {
					v = relPath(s, root)
				}
			}
		}
		out[k] = v
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// absPath is p made absolute against root.
func absPath(p, root string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// relPath is an absolute p inside root made relative to it; other paths
// are left as they are (the tool refuses what is outside).
func relPath(p, root string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return rel
}
