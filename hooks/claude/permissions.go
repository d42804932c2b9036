package claude

// Claude Code's permission rules, translated to tackle's (package
// approval). Claude's syntax (code.claude.com/docs/en/permissions):
//
//	Bash                   every command          → bash
//	Bash(npm run test:*)   the prefix, then words → bash(npm run test *)
//	Bash(npm run test *)   a final * (optional)   → bash(npm run test *)
//	Bash(git status)       exactly that           → bash(git status)
//	Read(PATTERN)          gitignore-style paths  → read_file(PATTERN')
//	Edit(…), Write(…)                             → edit_file(…), write_file(…)
//	mcp__server__tool, mcp__server, mcp__server__*  as they are
//	Read, Edit, Write, Glob, Grep, LS             → read_file, edit_file, write_file, glob, grep, list_dir
//	WebFetch, WebFetch(domain:go.dev)             → fetch, fetch(domain:go.dev)
//
// A path pattern is gitignore's: //abs is absolute, ~/x is in the home
// directory, /x is in the project (the workspace), ./x or x/y is below
// the workspace, and a name without a slash (.env, *.pem) matches at any
// depth. A rule tackle cannot translate exactly (a * inside a command,
// an operator, a tool tackle does not have) is a note naming it, never
// dropped silently; so are additionalDirectories and a defaultMode tackle
// has no mode for.

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
)

// Permissions is the "permissions" of a Claude Code settings file.
type Permissions struct {
	Allow                 []string `json:"allow,omitempty"`
	Deny                  []string `json:"deny,omitempty"`
	Ask                   []string `json:"ask,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	DefaultMode           string   `json:"defaultMode,omitempty"`
}

// Empty reports whether p says nothing.
func (p *Permissions) Empty() bool {
	return p == nil || len(p.Allow)+len(p.Deny)+len(p.Ask)+len(p.AdditionalDirectories) == 0 && p.DefaultMode == ""
}

// Translated is what a settings file's permissions are in tackle.
type Translated struct {
	// Perms are the rules, each from approval.FromClaude with its origin:
	// the file, the field and the rule as written.
	Perms []approval.Permission
	// Mode is tackle's mode for defaultMode ("" when there is none, or
	// tackle has no such mode: a note says so); ModeField names it.
	Mode approval.Mode
	// Notes say what could not be translated, naming it.
	Notes []string
}

// claudeModes are Claude Code's permission modes in tackle's words.
var claudeModes = map[string]approval.Mode{
	"default":           approval.Default,
	"acceptEdits":       approval.AcceptEdits,
	"plan":              approval.Plan,
	"bypassPermissions": approval.Yolo,
}

// TranslatePermissions translates the permissions of the settings file
// src, for the workspace root and the home directory.
func TranslatePermissions(src Source, workspace, home string) Translated {
	var t Translated
	p := src.Settings.Permissions
	if p.Empty() {
		return t
	}
	where := func(field string) string { return src.Path + ": permissions." + field }
	for _, list := range []struct {
		name  string
		rules []string
	}{{"deny", p.Deny}, {"ask", p.Ask}, {"allow", p.Allow}} {
		for i, s := range list.rules {
			field := fmt.Sprintf("%s[%d]", list.name, i)
			rules, err := TranslateRule(s, workspace, home)
			if err != nil {
				t.Notes = append(t.Notes, fmt.Sprintf("%s %s: not applied: %v", where(field), s, err))
				continue
			}
			for _, r := range rules {
				t.Perms = append(t.Perms, approval.Permission{
					Rule: r, Deny: list.name == "deny", Ask: list.name == "ask",
					Source: approval.FromClaude, Origin: where(field) + " " + s,
				})
			}
		}
	}
	for i, d := range p.AdditionalDirectories {
		t.Notes = append(t.Notes, fmt.Sprintf("%s %s: not applied: tackle's file tools reach only the workspace (start tackle in a directory that holds both)", where(fmt.Sprintf("additionalDirectories[%d]", i)), d))
	}
	switch m, ok := claudeModes[p.DefaultMode]; {
	case p.DefaultMode == "":
	case ok:
		t.Mode = m
	case p.DefaultMode == "dontAsk":
		t.Notes = append(t.Notes, where("defaultMode")+" dontAsk: not applied: tackle has no mode that refuses what no rule allows (a piped run without --yes denies what would ask)")
	default:
		t.Notes = append(t.Notes, fmt.Sprintf("%s %s: not applied: tackle's modes are default, acceptEdits (accept-edits), plan and bypassPermissions (yolo)", where("defaultMode"), p.DefaultMode))
	}
	return t
}

// claudeTools are Claude Code's tools that have a tackle tool, by name.
var claudeToolNames = map[string]string{
	"Bash":      tools.Bash,
	"Read":      tools.ReadFile,
	"Edit":      tools.EditFile,
	"MultiEdit": tools.EditFile,
	"Write":     tools.WriteFile,
	"Glob":      tools.Glob,
	"Grep":      tools.Grep,
	"LS":        tools.ListDir,
	"WebFetch":  tools.Fetch,
}

// pathRuleTools are the tools whose rules take a path pattern.
var pathRuleTools = map[string]bool{"Read": true, "Edit": true, "MultiEdit": true, "Write": true}

// TranslateRule translates one Claude Code rule to tackle's (a path
// pattern that reaches into the workspace from outside it gives two), or
// says why it cannot.
func TranslateRule(s, workspace, home string) ([]approval.Rule, error) {
	s = strings.TrimSpace(s)
	name, spec, hasSpec := strings.Cut(s, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return nil, fmt.Errorf(`missing the closing ")"`)
		}
		spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
	}
	if strings.HasPrefix(name, "mcp__") {
		if hasSpec {
			return nil, fmt.Errorf("an MCP tool's rule takes no pattern in tackle: it cannot tell what the arguments reach")
		}
		r, err := approval.ParseRule(name)
		if err != nil {
			return nil, err
		}
		return []approval.Rule{r}, nil
	}
	tool, ok := claudeToolNames[name]
	if !ok {
		return nil, fmt.Errorf("tackle has no %s tool", name)
	}
	if !hasSpec || spec == "" || spec == "*" || (name == "Bash" && spec == ":*") {
		return []approval.Rule{{Tool: tool}}, nil
	}
	var patterns []string
	switch {
	case name == "Bash":
		p, err := bashPattern(spec)
		if err != nil {
			return nil, err
		}
		patterns = []string{p}
	case name == "WebFetch":
		// domain:HOST, as tackle's fetch rules (approval.ParseRule).
		patterns = []string{spec}
	case pathRuleTools[name]:
		var err error
		if patterns, err = pathPatterns(spec, workspace, home); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("a %s rule takes no pattern (Read and Edit rules name paths, WebFetch rules domains)", name)
	}
	var out []approval.Rule
	for _, p := range patterns {
		r, err := approval.ParseRule(tool + "(" + p + ")")
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// bashPattern translates a Bash rule's command pattern: Claude's * matches
// any text, across words, where tackle's patterns match word by word. A *
// that is the last word (or the legacy :* suffix) is tackle's final *; a
// * ending the last word also covers the words after it (rm -rf* → rm
// -rf* *). Any other * cannot be translated.
func bashPattern(spec string) (string, error) {
	if strings.ContainsAny(spec, "|&;<>`$()") {
		return "", fmt.Errorf("tackle matches each simple command of a program on its own: a pattern with shell operators (%s) cannot be translated", spec)
	}
	prefix, legacy := strings.CutSuffix(spec, ":*")
	words := strings.Fields(prefix)
	if len(words) == 0 {
		return "", fmt.Errorf("an empty command pattern")
	}
	if first, _, param := strings.Cut(words[0], ":"); param && !legacy && first != "" && !strings.Contains(first, "*") {
		return "", fmt.Errorf("a parameter rule (%s) cannot be translated", spec)
	}
	var out []string
	for i, w := range words {
		last := i == len(words)-1
		switch {
		case legacy && strings.Contains(w, "*"):
			return "", fmt.Errorf("a * before :* cannot be translated")
		case w == "*" && last:
			out = append(out, "*")
		case last && strings.Count(w, "*") == 1 && strings.HasSuffix(w, "*"):
			out = append(out, escapeGlob(strings.TrimSuffix(w, "*"))+"*", "*")
		case strings.Contains(w, "*"):
			return "", fmt.Errorf("the * in %q matches text across words in Claude Code, which tackle's word-by-word patterns cannot say (only a final * translates)", spec)
		default:
			out = append(out, escapeGlob(w))
		}
	}
	if legacy {
		out = append(out, "*")
	}
	return strings.Join(out, " "), nil
}

// escapeGlob quotes what tackle's word patterns read as globs but Claude
// Code's read literally.
func escapeGlob(w string) string {
	var b strings.Builder
	for _, r := range w {
		if strings.ContainsRune(`?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pathPatterns translates a Read/Edit/Write pattern (gitignore's rules)
// to tackle's path globs: workspace-relative, or absolute outside the
// workspace. An absolute pattern that may reach into the workspace gives
// the workspace-relative pattern too.
func pathPatterns(spec, workspace, home string) ([]string, error) {
	dir := strings.HasSuffix(spec, "/") && spec != "/"
	p := strings.TrimSuffix(spec, "/")
	var abs string
	switch {
	case strings.HasPrefix(p, "//"):
		abs = "/" + strings.TrimLeft(p, "/")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return nil, fmt.Errorf("HOME is not set")
		}
		abs = home + strings.TrimPrefix(p, "~")
	case strings.HasPrefix(p, "/"):
		p = strings.TrimLeft(p, "/") // the project's
	case strings.HasPrefix(p, "./"):
		p = strings.TrimPrefix(p, "./")
	case !strings.Contains(p, "/"):
		p = "**/" + p // a name matches at any depth
	}
	if strings.HasPrefix(p, "../") || p == ".." {
		return nil, fmt.Errorf("a path above the workspace is not translated (write it absolute, //…)")
	}
	var out []string
	if abs != "" {
		abs = path.Clean(abs)
		out = append(out, abs)
		for _, root := range roots(workspace) {
			if rel, ok := inside(abs, root); ok {
				out = append(out, rel)
				break
			}
		}
	} else {
		out = append(out, path.Clean(p))
	}
	if dir {
		for i := range out {
			out[i] += "/**"
		}
	}
	return out, nil
}

// roots are the workspace as given and with its links resolved.
func roots(workspace string) []string {
	if workspace == "" {
		return nil
	}
	out := []string{filepath.ToSlash(filepath.Clean(workspace))}
	if real, err := filepath.EvalSymlinks(workspace); err == nil && filepath.ToSlash(real) != out[0] {
		out = append(out, filepath.ToSlash(real))
	}
	return out
}

// inside reports whether the absolute glob pattern may match paths in
// root, and the workspace-relative pattern for them: each of root's
// segments must be matched by a segment of the pattern; a ** matches the
// rest of root and whatever follows.
func inside(pattern, root string) (string, bool) {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	rs := strings.Split(strings.TrimPrefix(root, "/"), "/")
	for i, r := range rs {
		if i >= len(ps) {
			return "", false // the pattern names something above the workspace
		}
		if ps[i] == "**" {
			return strings.Join(ps[i:], "/"), true
		}
		if ok, err := path.Match(ps[i], r); err != nil || !ok {
			return "", false
		}
	}
	if len(ps) == len(rs) {
		return "**", true // the workspace itself: everything in it
	}
	return strings.Join(ps[len(rs):], "/"), true
}
