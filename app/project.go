package app

// The project layer: a project's .tackle/config.json, its MCP servers
// (.mcp.json), its custom agents (.tackle/agents/*.md, .claude/agents/*.md),
// its custom slash commands (.tackle/commands/, .claude/commands/)
// and the hooks and permissions of its Claude Code settings
// (.claude/settings.json, .claude/settings.local.json) can run code or
// change what runs without asking, so each is used only after the user trusted its current
// contents (config.Trust, hash-pinned in the state directory): the
// interactive UI asks once before it starts, showing what the file would
// run; a piped run leaves an untrusted file out, saying so, unless
// --trust-project is given.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/agent/slash"
	"github.com/tackle-dev/tackle/agent/subagent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// projectLayer is what the project layer contributes, only from trusted files.
type projectLayer struct {
	// cfg is the trusted .tackle/config.json (zero when there is none, or
	// it is not trusted).
	cfg config.Config
	// claude are the hooks and permissions of the trusted Claude Code
	// settings files.
	claude []claude.Source
	// mcp are the MCP servers of the trusted .mcp.json.
	mcp map[string]mcp.Spec
	// agents are the custom agents of the trusted .tackle/agents/*.md
	// and .claude/agents/*.md files, the latter's first.
	agents []subagent.Def
	// commands are the custom slash commands of the trusted
	// .claude/commands/ and .tackle/commands/ files, in that order;
	// commandErrs why the others were left out.
	commands    []slash.Command
	commandErrs []error
}

// projectFile is one file of the project that can run code.
type projectFile struct {
	path     string
	contents []byte
	// shows is what the trust question shows: what the file would run.
	shows string
	// cmd is set for a custom slash command's file.
	cmd *projectCommand
}

// projectCommand is what a command file's path says: its command's name
// and the file's format, and where Claude Code's path rules start.
type projectCommand struct {
	name       string
	format     slash.Format
	root, home string
}

// projectFiles are the workspace's files that can run code or change what
// runs without asking, with their contents. A Claude Code settings file
// without hooks or permissions does neither and is left out, and so is
// the user's own ~/.claude/settings.json when the workspace is the home
// directory (claude_hooks.user is its switch).
func projectFiles(root, home string) ([]projectFile, error) {
	var files []projectFile
	tackle := filepath.Join(root, ".tackle", "config.json")
	b, err := readIfExists(tackle)
	if err != nil {
		return nil, err
	}
	if b != nil {
		files = append(files, projectFile{path: tackle, contents: b, shows: string(b)})
	}
	dotMCP := filepath.Join(root, ".mcp.json")
	if b, err := readIfExists(dotMCP); err != nil {
		return nil, err
	} else if b != nil {
		files = append(files, projectFile{path: dotMCP, contents: b, shows: string(b)})
	}
	for _, name := range []string{"settings.json", "settings.local.json"} {
		p := filepath.Join(root, ".claude", name)
		if home != "" && p == filepath.Join(home, ".claude", "settings.json") {
			continue
		}
		b, err := readIfExists(p)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		var s struct {
			Hooks       json.RawMessage `json:"hooks"`
			Permissions json.RawMessage `json:"permissions"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			// Shown whole; trusting it then fails with the JSON error.
			files = append(files, projectFile{path: p, contents: b, shows: string(b)})
			continue
		}
		// What the file does: its hooks run code, its permissions change
		// what runs without asking.
		var parts []string
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"hooks", s.Hooks}, {"permissions", s.Permissions}} {
			if raw := bytes.TrimSpace(f.raw); len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte("{}")) {
				continue
			}
			var shown bytes.Buffer
			json.Indent(&shown, f.raw, "  ", "  ")
			parts = append(parts, fmt.Sprintf("  %q: %s", f.name, shown.String()))
		}
		if len(parts) == 0 {
			continue
		}
		files = append(files, projectFile{path: p, contents: b, shows: "{\n" + strings.Join(parts, ",\n") + "\n}\n"})
	}
	for _, d := range projectCommandDirs(root, home) {
		cmds, _ := slash.Files(d.Path)
		for _, c := range cmds {
			b, err := slash.Read(c.Path)
			if err != nil {
				return nil, fmt.Errorf("project config: %w", err)
			}
			files = append(files, projectFile{path: c.Path, contents: b, shows: string(b),
				cmd: &projectCommand{name: c.Name, format: d.Format, root: root, home: home}})
		}
	}
	for _, d := range projectAgentDirs(root, home) {
		paths, _ := filepath.Glob(filepath.Join(d.Path, "*.md"))
		slices.Sort(paths)
		for _, p := range paths {
			b, err := readIfExists(p)
			if err != nil {
				return nil, err
			}
			if b != nil {
				files = append(files, projectFile{path: p, contents: b, shows: string(b)})
			}
		}
	}
	return files, nil
}

// projectAgentDirs are the project's directories of custom agents:
// Claude Code's, then tackle's (which win for a name both have). A
// subagent's prompt and tools change what runs, so each file is trusted
// like a config. The user's own ~/.claude/agents is not the project's,
// even when the workspace is the home directory.
func projectAgentDirs(root, home string) []subagent.Dir {
	dirs := []subagent.Dir{{Path: filepath.Join(root, ".claude", "agents"), Format: subagent.Claude}}
	if home != "" && dirs[0].Path == filepath.Join(home, ".claude", "agents") {
		dirs = nil
	}
	return append(dirs, subagent.Dir{Path: filepath.Join(root, ".tackle", "agents"), Format: subagent.Tackle})
}

// projectCommandDirs are the project's directories of custom slash
// commands: Claude Code's, then tackle's (which win for a name both
// have). A command's prompt and allowed-tools change what runs, so each
// file is trusted like a config. The user's own ~/.claude/commands is
// not the project's, even when the workspace is the home directory.
func projectCommandDirs(root, home string) []slash.Dir {
	dirs := []slash.Dir{{Path: filepath.Join(root, ".claude", "commands"), Format: slash.Claude, Scope: "project"}}
	if home != "" && dirs[0].Path == filepath.Join(home, ".claude", "commands") {
		dirs = nil
	}
	return append(dirs, slash.Dir{Path: filepath.Join(root, ".tackle", "commands"), Format: slash.Tackle, Scope: "project"})
}

// agentFormat is the format of a project's agent file, and whether path
// is one.
func agentFormat(path string) (subagent.Format, bool) {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "agents" || filepath.Ext(path) != ".md" {
		return 0, false
	}
	switch filepath.Base(filepath.Dir(dir)) {
	case ".claude":
		return subagent.Claude, true
	case ".tackle":
		return subagent.Tackle, true
	}
	return 0, false
}

// maxProjectFile bounds a project file tackle reads for itself (its
// config, .mcp.json, Claude Code settings, agent files).
const maxProjectFile = 4 << 20

// readIfExists reads a project file, nil when there is none. A repository
// decides what its files are: a link to a FIFO or to /dev/zero must not
// hang or fill tackle's start, before any trust (tools.ReadRegular).
func readIfExists(path string) ([]byte, error) {
	b, err := tools.ReadRegular(path, maxProjectFile+1)
	if err == nil && len(b) > maxProjectFile {
		err = fmt.Errorf("%s is larger than %d MiB", path, maxProjectFile>>20)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("project config: %w", err)
	}
	return b, nil
}

// askTrust asks the user once whether to trust the files; true on "y".
type askTrust func(files []projectFile) (bool, error)

// openProject reads the project files of the workspace and keeps the
// trusted ones: trusted before with these contents, or trusted now, all
// at once, by --trust-project (trustAll) or by the user's answer to ask
// (nil in a piped run). An untrusted file is left out with a note on
// stderr.
func openProject(workspace string, trustAll bool, env environ, ask askTrust, stderr io.Writer) (projectLayer, error) {
	root, err := absWorkspace(workspace)
	if err != nil {
		return projectLayer{}, err
	}
	files, err := projectFiles(root, env.get("HOME"))
	if err != nil || len(files) == 0 {
		return projectLayer{}, usageErr(err)
	}
	trust, err := config.OpenTrust(env.get)
	if err != nil {
		return projectLayer{}, usageErr(err)
	}
	var use, untrusted []projectFile
	for _, f := range files {
		ok, err := trust.Trusted(f.path, f.contents)
		switch {
		case err != nil:
			return projectLayer{}, usageErr(err)
		case ok:
			use = append(use, f)
		default:
			untrusted = append(untrusted, f)
		}
	}
	if len(untrusted) > 0 {
		yes := trustAll
		if !yes && ask != nil {
			if yes, err = ask(untrusted); err != nil {
				return projectLayer{}, usageErr(err)
			}
		}
		for _, f := range untrusted {
			if !yes {
				fmt.Fprintf(stderr, "tackle: not using %s: it can run code or change what runs without asking, and its contents are not trusted (never trusted, or changed since); review it and run with --trust-project, or start tackle interactively to trust it\n", f.path)
				continue
			}
			if err := trust.Pin(f.path, f.contents); err != nil {
				return projectLayer{}, usageErr(err)
			}
			use = append(use, f)
		}
	}
	var p projectLayer
	for _, f := range files {
		if slices.ContainsFunc(use, func(u projectFile) bool { return u.path == f.path }) {
			if err := p.add(f); err != nil {
				return projectLayer{}, usageErr(err)
			}
		}
	}
	return p, nil
}

func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// add takes a trusted file into the project layer.
func (p *projectLayer) add(f projectFile) error {
	if c := f.cmd; c != nil {
		cmd, err := slash.Parse(f.path, c.name, f.contents, c.format, c.root, c.home)
		if err != nil {
			// A command file that does not parse is left out with a
			// warning (customCommands), not a reason to stop.
			p.commandErrs = append(p.commandErrs, err)
			return nil
		}
		cmd.Scope = "project"
		p.commands = append(p.commands, cmd)
		return nil
	}
	if format, ok := agentFormat(f.path); ok {
		def, err := subagent.Parse(f.path, f.contents, format)
		if err != nil {
			return err
		}
		p.agents = append(p.agents, def)
		return nil
	}
	if filepath.Base(f.path) == ".mcp.json" {
		specs, err := mcp.Parse(f.contents)
		if err == nil {
			err = mcp.ValidateAll(specs)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		p.mcp = specs
		return nil
	}
	if filepath.Base(f.path) == "config.json" {
		cfg, err := config.Parse(f.contents)
		if err != nil {
			return config.InFile(f.path, err)
		}
		cfg.Path = f.path
		if err := projectOnly(cfg); err != nil {
			return err
		}
		p.cfg = cfg
		return nil
	}
	src, err := claude.Load(f.path)
	if err != nil {
		return err
	}
	p.claude = append(p.claude, src)
	return nil
}

// protect adds to pr the files the project's hooks and every Claude Code
// hook run (their scripts), so that the model cannot rewrite a trusted
// hook's script without asking.
func (p projectLayer) protect(pr approval.Protection, user config.Config, root string, env environ) (approval.Protection, configured) {
	var c configured
	c.hooks(p.cfg, root)
	c.mcp(p.mcp, root)
	sources, err := claudeSources(user, p, env)
	if err != nil {
		return c.into(pr), c // registering the hooks reports it
	}
	// "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh is the usual form.
	expand := strings.NewReplacer("${CLAUDE_PROJECT_DIR}", root, "$CLAUDE_PROJECT_DIR", root)
	for _, src := range sources {
		for _, groups := range src.Settings.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					c.script(expand.Replace(h.Command), root)
				}
			}
		}
	}
	return c.into(pr), c
}

// projectOnly refuses the fields a project config cannot set yet, so that
// nothing in it is silently ignored.
func projectOnly(cfg config.Config) error {
	var fields []string
	if cfg.ClaudeHooks.User {
		fields = append(fields, "claude_hooks.user (your own ~/.claude/settings.json is yours to switch on)")
	}
	if b, _ := json.Marshal(cfg.Checks); string(b) != "{}" {
		fields = append(fields, "checks")
	}
	if b, _ := json.Marshal(cfg.Redact); string(b) != "{}" {
		fields = append(fields, "redact")
	}
	if len(cfg.HookServers) > 0 {
		fields = append(fields, "hook_servers")
	}
	if len(cfg.MCPServers) > 0 {
		fields = append(fields, "mcpServers (a project's MCP servers go in its .mcp.json)")
	}
	// What loosens the sandbox is the user's to give, never a repository's.
	if cfg.Sandbox != "" || cfg.SandboxNetwork || len(cfg.SandboxWritable) > 0 || len(cfg.SandboxHidden) > 0 {
		fields = append(fields, "sandbox, sandbox_network, sandbox_writable, sandbox_hidden (a repository cannot loosen the sandbox)")
	}
	if len(cfg.EnvAllow) > 0 {
		fields = append(fields, "env_allow")
	}
	// Read from the user's config alone: a project setting them was
	// ignored without a word.
	if len(cfg.Keys) > 0 {
		fields = append(fields, "keys")
	}
	if len(cfg.Prices) > 0 {
		fields = append(fields, "prices")
	}
	if len(cfg.ContextWindow) > 0 || cfg.CompactThreshold != 0 || cfg.CompactKeepTurns != 0 {
		fields = append(fields, "context_window, compact_threshold, compact_keep_turns")
	}
	if len(fields) > 0 {
		return fmt.Errorf("config %s: a project config cannot set %s; set it in your user config", cfg.Path, strings.Join(fields, ", "))
	}
	return nil
}

// terminalTrust asks on the terminal, before the UI starts: it shows each
// file and what it would run and reads one line from in.
func terminalTrust(in io.Reader, out io.Writer) askTrust {
	return func(files []projectFile) (bool, error) {
		for _, f := range files {
			fmt.Fprintf(out, "\nThis project has %s, which can run code on your machine or change what runs without asking:\n\n%s\n", f.path, indent(f.shows))
		}
		q := "Trust it as it is now (tackle asks again if it changes)? [y/N] "
		if len(files) > 1 {
			q = "Trust them as they are now (tackle asks again if one changes)? [y/N] "
		}
		fmt.Fprint(out, q)
		line, err := readLine(in)
		if err != nil && line == "" {
			return false, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}

// readLine reads one line from in, a byte at a time so that nothing
// after it is consumed (the UI reads the rest).
func readLine(in io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := in.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
}

func indent(s string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimRight(s, "\n")) {
		b.WriteString("    " + line)
	}
	return b.String() + "\n"
}
