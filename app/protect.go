package app

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// protection is what the approval policy protects beyond the names it
// knows (.git, .env, .bashrc …): tackle's config and state directories,
// the home directory's files, and what the commands the config runs as
// hooks, hook servers, checks and MCP servers execute or import. skip is
// --dangerously-skip-protection.
func protection(cfg config.Config, root string, getenv func(string) string, skip bool) (approval.Protection, configured) {
	home := getenv("HOME")
	pr := approval.Protection{Home: home, Off: skip}
	if p, err := config.UserPath(getenv); err == nil {
		pr.ConfigDir = filepath.Dir(p)
	}
	if dir, err := config.StateDir(getenv); err == nil {
		pr.StateDir = dir
	}
	if cfg.Path != "" {
		pr.Files = append(pr.Files, cfg.Path)
	}
	var c configured
	c.hooks(cfg, root)
	c.mcp(cfg.MCPServers, root)
	return c.into(pr), c
}

// configured collects the files and directories configured commands
// execute or import: a model that rewrote one would have its code run
// outside any approval (the next hook call, a check at turn end, an MCP
// server started again after a crash).
type configured struct {
	files, dirs []string
	// runs and imports are what the commands execute or import
	// (approval.CommandFiles), a part of files and dirs: what tackle pins
	// at start (pinConfigured). files also has every other path the
	// commands name (a log a hook appends to), which the model must not
	// write unasked but the commands themselves may.
	runs, imports []string
}

// argv adds what the command argv, run in dir, executes or imports
// (approval.CommandFiles: interpreter scripts, python -m's package, go
// run's package, make's files …), and every word of it that names a file
// (a path, or a file in dir).
func (c *configured) argv(argv []string, dir string) {
	f, d := approval.CommandFiles(argv, dir)
	rf, rd := approval.CommandCode(argv, dir)
	c.runs, c.imports = append(c.runs, rf...), append(c.imports, rd...)
	c.files = append(c.files, f...)
	c.files = append(c.files, scriptFiles(argv, dir)...)
	c.dirs = append(c.dirs, d...)
}

// script adds what a shell program run in dir executes or imports.
func (c *configured) script(script, dir string) {
	f, d := approval.ScriptFiles(script, dir)
	rf, rd := approval.ScriptCode(script, dir)
	c.runs, c.imports = append(c.runs, rf...), append(c.imports, rd...)
	c.files = append(c.files, f...)
	c.files = append(c.files, scriptFiles(strings.Fields(script), dir)...)
	c.dirs = append(c.dirs, d...)
}

func (c *configured) into(pr approval.Protection) approval.Protection {
	pr.Files = append(pr.Files, c.files...)
	pr.Dirs = append(pr.Dirs, c.dirs...)
	return pr
}

// add adds what o collected.
func (c *configured) add(o configured) {
	c.files, c.dirs = append(c.files, o.files...), append(c.dirs, o.dirs...)
	c.runs, c.imports = append(c.runs, o.runs...), append(c.imports, o.imports...)
}

// mcp adds what the stdio MCP servers run: a crashed server is started
// again at the next call of one of its tools, so a server script the
// model rewrote would run without a bash call to approve. A relative path
// is taken from the server's directory (cwd, else the workspace).
func (c *configured) mcp(specs map[string]mcp.Spec, root string) {
	for _, s := range specs {
		if s.Command == "" {
			continue
		}
		dir := root
		if s.Cwd != "" {
			dir = s.Cwd
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
		}
		c.argv(append([]string{s.Command}, s.Args...), dir)
	}
}

// hooks adds what the config's command hooks, hook servers, check
// commands and linters run, in the workspace. What does not exist yet
// is included: the model must not be able to create it either.
func (c *configured) hooks(cfg config.Config, root string) {
	for _, specs := range cfg.Hooks {
		for _, s := range specs {
			if len(s.Command.Argv) > 0 {
				c.argv(s.Command.Argv, root)
			}
			if s.Command.Script != "" {
				c.script(s.Command.Script, root)
			}
		}
	}
	for _, s := range cfg.HookServers {
		c.argv(s.Command, root)
	}
	argvs, dirs := cfg.PicoclawHooks.Commands()
	for i, argv := range argvs {
		dir := root
		if d := dirs[i]; d != "" {
			dir = d
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
		}
		c.argv(argv, dir)
	}
	for _, cmd := range cfg.Checks.Commands {
		c.argv(cmd.Run, root)
	}
	for _, l := range cfg.Checks.Linters {
		c.argv([]string{l}, root)
	}
}

// scriptFiles are the words of commands that are paths of files, made
// absolute against root: every word that has a /, or names a file in
// root.
func scriptFiles(words []string, root string) []string {
	var out []string
	for _, w := range words {
		w = strings.Trim(w, `'"`)
		if w == "" || strings.HasPrefix(w, "-") {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if !strings.Contains(w, "/") {
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				continue // a program found in PATH, or not a file at all
			}
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}
