package app

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/tackle-dev/tackle/agent/slash"
	"github.com/tackle-dev/tackle/app/config"
)

// customCommands are the custom slash commands of a run: the user's
// (Claude Code's ~/.claude/commands, then $XDG_CONFIG_HOME/tackle/commands)
// and the trusted project's (.claude/commands, then .tackle/commands),
// each later one winning for a name both have, less those that take a
// name reserved (builtin: the UI's own commands). What cannot be read or
// used of a file is a warning.
func customCommands(st Settings, env environ, root string, reserved func(string) bool, warn func(string)) []slash.Command {
	home := env.get("HOME")
	var sets [][]slash.Command
	for _, d := range userCommandDirs(env) {
		cmds, err := slash.LoadDir(d, root, home)
		if err != nil {
			warn("custom commands: " + err.Error())
		}
		sets = append(sets, cmds)
	}
	for _, err := range st.Project.commandErrs {
		warn("custom commands: " + err.Error())
	}
	sets = append(sets, st.Project.commands)
	var out []slash.Command
	for _, c := range slash.Merge(sets...) {
		for _, n := range c.Notes {
			warn("custom command /" + c.Name + ": " + n)
		}
		if reserved != nil && reserved(c.Name) {
			warn(fmt.Sprintf("custom command /%s (%s) is not used: /%s is one of tackle's own commands", c.Name, c.Path, c.Name))
			continue
		}
		out = append(out, c)
	}
	return slices.Clip(out)
}

// userCommandDirs are the user's directories of custom commands: Claude
// Code's, then tackle's (which win for a name both have).
func userCommandDirs(env environ) []slash.Dir {
	var dirs []slash.Dir
	if home := env.get("HOME"); home != "" {
		dirs = append(dirs, slash.Dir{Path: filepath.Join(home, ".claude", "commands"), Format: slash.Claude, Scope: "user"})
	}
	if p, err := config.UserPath(env.get); err == nil {
		dirs = append(dirs, slash.Dir{Path: filepath.Join(filepath.Dir(p), "commands"), Format: slash.Tackle, Scope: "user"})
	}
	return dirs
}
