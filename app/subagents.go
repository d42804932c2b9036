package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/subagent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/tools"
)

// addTask adds the task tool to the harness's tools: subagents with the
// config's settings (the trusted project's over the user's) and the
// custom agents — the user's ($XDG_CONFIG_HOME/tackle/agents,
// ~/.claude/agents) and the trusted project's, which win for a name both
// have. What cannot be read of an agent file, or is left out of it, is a
// warning; a bad setting is an error naming its file and field.
func (h *harness) addTask(env environ, emit func(agent.Event)) error {
	cfg := subagent.Config{Registry: h.toolbox, System: h.system}
	for _, c := range []config.Config{h.st.User, h.st.Project.cfg} {
		s := c.Subagents
		if s.Tools != nil {
			if err := checkSubagentTools(s.Tools, h.toolbox); err != nil {
				return usageError{&config.FieldError{Path: c.Path, Field: "subagents.tools", Err: err}}
			}
			cfg.Tools = s.Tools
		}
		if s.Model != "" {
			cfg.Model = s.Model
		}
		if s.MaxRequests != nil {
			if *s.MaxRequests < 1 {
				return usageError{&config.FieldError{Path: c.Path, Field: "subagents.max_requests", Err: fmt.Errorf("got %d; want 1 or more", *s.MaxRequests)}}
			}
			cfg.MaxRequests = *s.MaxRequests
		}
	}
	var user []subagent.Def
	for _, d := range userAgentDirs(env) {
		defs, err := subagent.LoadDir(d)
		if err != nil {
			emit(agent.Warning{Message: "custom agents: " + err.Error()})
		}
		user = append(user, defs...)
	}
	cfg.Agents = subagent.Merge(user, h.st.Project.agents)
	for _, d := range cfg.Agents {
		for _, n := range d.Notes {
			emit(agent.Warning{Message: "custom agent " + d.Name + ": " + n})
		}
		if err := checkSubagentTools(d.Tools, h.toolbox); err != nil {
			emit(agent.Warning{Message: fmt.Sprintf("custom agent %s (%s): %v", d.Name, d.Path, err)})
		}
	}
	return h.toolbox.Add(subagent.New(cfg).Tool())
}

// userAgentDirs are the user's directories of custom agents: Claude
// Code's, then tackle's (which win for a name both have).
func userAgentDirs(env environ) []subagent.Dir {
	var dirs []subagent.Dir
	if home := env.get("HOME"); home != "" {
		dirs = append(dirs, subagent.Dir{Path: filepath.Join(home, ".claude", "agents"), Format: subagent.Claude})
	}
	if p, err := config.UserPath(env.get); err == nil {
		dirs = append(dirs, subagent.Dir{Path: filepath.Join(filepath.Dir(p), "agents"), Format: subagent.Tackle})
	}
	return dirs
}

// checkSubagentTools checks the names of a subagent's tools: tackle's
// own (not task: subagents do not nest) or an MCP server's, which joins
// when its server is ready.
func checkSubagentTools(names []string, reg *tools.Registry) error {
	var bad []string
	for _, n := range names {
		if _, ok := reg.Lookup(n); (!ok && !strings.HasPrefix(n, "mcp__")) || n == tools.Task {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	have := slices.DeleteFunc(reg.Names(), func(n string) bool { return n == tools.Task || strings.HasPrefix(n, "mcp__") })
	return fmt.Errorf("%s: not a tool a subagent can have (tackle's are %s, and mcp__server__tool)", strings.Join(bad, ", "), strings.Join(have, ", "))
}
