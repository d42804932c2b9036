package claude

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// toolNames maps tackle's tools to Claude Code's names; other tools
// (mcp__server__tool) keep theirs.
var toolNames = map[string]string{
	"bash":       "Bash",
	"read_file":  "Read",
	"write_file": "Write",
	"edit_file":  "Edit",
	"glob":       "Glob",
	"grep":       "Grep",
	"list_dir":   "LS",
}

// fieldNames maps a tackle tool's argument names to Claude Code's, for
// the fields whose names differ. A path field becomes absolute.
var fieldNames = map[string]map[string]string{
	"bash":       {"timeout_ms": "timeout"},
	"read_file":  {"path": "file_path"},
	"write_file": {"path": "file_path"},
	"edit_file":  {"path": "file_path"},
	"grep":       {"include": "glob", "ignore_case": "-i", "context": "-C", "before": "-B", "after": "-A"},
}

// claudeTool is the Claude Code name of a tackle tool.
func claudeTool(name string) string {
	if c, ok := toolNames[name]; ok {
		return c
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
	out := make(map[string]any, len(m))
	for k, v := range m {
		if isPath(k) && toolNames[tool] != "" {
			if s, ok := v.(string); ok {
				v = absPath(s, root)
			}
		}
		if c, ok := fieldNames[tool][k]; ok {
			k = c
		}
		out[k] = v
	}
	if _, ok := out["path"]; !ok && tool == "list_dir" {
		out["path"] = root
	}
	b, _ := json.Marshal(out)
	return b
}

// tackleArgs turns a Claude Code tool_input (a hook's updatedInput) back
// into a tackle tool's arguments: tackle's field names, a path inside
// root relative to it. Fields tackle's tool does not have are dropped
// for the built-in tools (the tool would refuse them).
func tackleArgs(tool string, input map[string]any, root string) (string, error) {
	names := fieldNames[tool]
	_, builtin := knownFields[tool]
	back := map[string]string{}
	for t, c := range names {
		back[c] = t
	}
	out := make(map[string]any, len(input))
	for k, v := range input {
		if t, ok := back[k]; ok {
			k = t
		}
		if builtin {
			if !knownField(tool, k) {
				continue
			}
			if isPath(k) {
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

// knownFields are the argument names of tackle's built-in tools.
var knownFields = map[string][]string{
	"bash":       {"command", "timeout_ms"},
	"read_file":  {"path", "offset", "limit"},
	"write_file": {"path", "content"},
	"edit_file":  {"path", "old_string", "new_string", "replace_all"},
	"list_dir":   {"path"},
	"glob":       {"pattern", "path"},
	"grep":       {"pattern", "path", "include", "ignore_case", "context", "before", "after"},
}

func knownField(tool, k string) bool { return slices.Contains(knownFields[tool], k) }

// isPath reports whether a built-in tool's argument (tackle's name)
// holds a path.
func isPath(k string) bool { return k == "path" }

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
