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
// the home directory's files, and the scripts the config runs as hooks
// and checks. skip is --dangerously-skip-protection.
func protection(cfg config.Config, root string, getenv func(string) string, skip bool) approval.Protection {
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
	pr.Files = append(pr.Files, hookScripts(cfg, root)...)
	pr.Files = append(pr.Files, mcpScripts(cfg.MCPServers, root)...)
	return pr
}

// mcpScripts returns the files the stdio MCP servers run (see
// hookScripts): a crashed server is started again at the next call of
// one of its tools, so a server script the model rewrote would run
// without a bash call to approve. A relative path is taken from the
// server's directory (cwd, else the workspace).
func mcpScripts(specs map[string]mcp.Spec, root string) []string {
	var out []string
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
		out = append(out, scriptFiles(append([]string{s.Command}, s.Args...), dir)...)
	}
	return out
}

// hookScripts returns the files the config's command hooks, hook servers
// and check commands run, as absolute paths: every word of their commands that is a
// path (it has a /, or names a file in the workspace, where they run). A
// script that does not exist yet is included: the model must not be able
// to create it either.
func hookScripts(cfg config.Config, root string) []string {
	var words []string
	for _, specs := range cfg.Hooks {
		for _, s := range specs {
			words = append(words, s.Command.Argv...)
			words = append(words, strings.Fields(s.Command.Script)...)
		}
	}
	for _, s := range cfg.HookServers {
		words = append(words, s.Command...)
	}
	for _, c := range cfg.Checks.Commands {
		words = append(words, c.Run...)
	}
	return scriptFiles(words, root)
}

// scriptFiles are the words of commands that are paths of files, made
// absolute against root (see hookScripts).
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
