package approval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Where the commands the bash tool runs are inside an OS sandbox (the
// workspace's protected paths read-only, no network, no user secrets), a
// mistake of this reading costs little; so a program the policy reads as
// read-only runs without asking in the default and accept-edits modes,
// and runs in plan mode (in a read-only sandbox) instead of being
// skipped. Without a sandbox nothing changes: the policy is the whole
// defence.
//
// A program is read-only when every command of it, in substitutions and
// subshells too, is in the command table as only reading (commands.go)
// and uses none of its risky options or scripts, names no path outside
// the workspace and no word known only at run time where a file goes,
// sets no variable but the program's own (lower-case names), and the
// program writes no file (a redirect to anything but /dev/null and the
// like), reads none outside the workspace through a redirect, changes
// directory only to directories of the workspace, hides nothing from deny
// rules and runs nothing through a wrapper, an interpreter or sh -c.
// ls -la, git status --short, cat README and grep -rn foo . are.

// WithSandbox says whether the commands the bash tool runs are inside an
// OS sandbox (see ReadOnly): the caller sets it from what the sandbox
// probe found.
func WithSandbox(on bool) Option {
	return func(p *Policy) { p.sandboxed = on }
}

// WithSandboxNetwork says the sandbox lets every command reach the
// network (sandbox_network): a call asking for it then needs no asking.
func WithSandboxNetwork(on bool) Option {
	return func(p *Policy) { p.sandboxNet = on }
}

func (p *Policy) networkOn() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sandboxNet
}

// SetSandbox changes whether bash commands run in a sandbox, for the
// calls that follow.
func (p *Policy) SetSandbox(on bool) {
	p.mu.Lock()
	p.sandboxed = on
	p.mu.Unlock()
}

// ReadOnly reports whether call is a bash program the policy reads as
// read-only, and if not, why (see WithSandbox). The caller runs such a
// program in a read-only sandbox in plan mode.
func (p *Policy) ReadOnly(call chat.ToolCall) (bool, string) {
	s := p.subject(call)
	why := s.notReadOnly()
	return why == "", why
}

// envOnly are the variables a read-only command may be given in front of
// it: they change only how it formats its output.
func envOnly(name string) bool {
	return name == "LANG" || name == "LANGUAGE" || name == "TZ" || name == "NO_COLOR" || name == "COLUMNS" || strings.HasPrefix(name, "LC_")
}

// notReadOnly says why the call is not a read-only bash program, or "".
func (s *subject) notReadOnly() string {
	if s.call.Name != ShellTool || !s.hasCmd {
		return "it is not a bash command"
	}
	prog := s.program()
	switch {
	case prog.err != nil:
		return "it does not parse"
	case prog.opaqueOther:
		return prog.opaque[0]
	case len(prog.unsure) > 0:
		return prog.unsure[0]
	case len(prog.guesses) > 0:
		return "it runs commands through a wrapper"
	case len(prog.cmds) == 0:
		return "it runs no command"
	}
	if away := s.movesAway(); away != "" {
		return away
	}
	if why := s.readRedirects(); why != "" {
		return why
	}
	for _, rd := range prog.redirs {
		if rd.write {
			return fmt.Sprintf("it writes to %s", rd.w.src)
		}
	}
	for _, c := range prog.cmds {
		if why := s.commandNotReadOnly(c); why != "" {
			return why
		}
	}
	return ""
}

// commandNotReadOnly says why one command of a program is not read-only,
// or "".
func (s *subject) commandNotReadOnly(c *command) string {
	name := chat.OneLine(c.String(), maxQuoted)
	for i, w := range c.words[:c.assigns] {
		k, _, _ := strings.Cut(w.text, "=")
		if !w.static || !envOnly(k) && !(len(c.args()) == 0 && ownVarName(k)) {
			return fmt.Sprintf("%s sets %s", name, c.words[i].src)
		}
	}
	if len(c.args()) == 0 {
		return "" // the program's own variables
	}
	a := s.assessed(c)
	switch {
	case !a.known:
		return fmt.Sprintf("%s is not a command known to only read", c.name())
	case a.effect != readsOnly:
		return fmt.Sprintf("%s %s", name, a.effect)
	case a.outside != "":
		return fmt.Sprintf("%s names %s, outside the workspace", name, a.outside)
	case a.dynamic:
		return fmt.Sprintf("%s names a path known only at run time", name)
	case a.stop != "":
		return a.stop
	case a.config != "":
		return a.config
	case len(a.writes) > 0:
		return fmt.Sprintf("%s writes files", name)
	}
	if i := slices.IndexFunc(a.guard, func(g string) bool { return g != "" }); i >= 0 {
		return a.guard[i]
	}
	return ""
}
