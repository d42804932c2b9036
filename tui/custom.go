package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent/slash"
	"github.com/tackle-dev/tackle/hooks/approval"
)

// Custom slash commands (agent/slash): the slash menu lists them after
// the built-in commands, with their description and argument hint;
// /name args sends the command's prompt with the arguments put in, in a
// turn that uses the command's model and lets its allowed-tools run
// without asking (approval's turn rules), both until the turn ends.

// TurnRules applies a custom command's allowed-tools while its turn
// runs; *approval.Policy is one.
type TurnRules interface {
	SetTurnRules(by string, rules []approval.Rule)
	ClearTurnRules()
}

// customTurn is what a custom command's running turn changed: the rules
// it set, the model it replaced.
type customTurn struct {
	active    bool
	rules     bool
	prevModel string
}

// customEntries are the custom commands whose name starts with typed.
func (m *Model) customEntries(typed string) []menuEntry {
	var out []menuEntry
	for _, c := range m.opts.Commands {
		if !strings.HasPrefix(c.Name, typed) {
			continue
		}
		help := c.Description
		if help == "" {
			help = "a custom command"
		}
		help += " (" + c.Scope + ")"
		e := menuEntry{label: c.Usage(), help: help, text: "/" + c.Name}
		if c.ArgumentHint != "" || strings.Contains(c.Body, "$") {
			e.text += " "
			e.wait = true
		}
		out = append(out, e)
	}
	return out
}

// findCustom finds the custom command called name.
func (m *Model) findCustom(name string) (slash.Command, bool) {
	for _, c := range m.opts.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return slash.Command{}, false
}

// runCustom sends a custom command's prompt for arg. It does not queue:
// its model and rules belong to its own turn.
func (m *Model) runCustom(c slash.Command, arg string) tea.Cmd {
	typed := strings.TrimSpace("/" + c.Name + " " + arg)
	if m.running || m.quitting {
		m.note(noteWarn, fmt.Sprintf("%s: not sent, a turn is running; run it again when the turn ends", typed))
		return nil
	}
	m.custom = customTurn{active: true}
	if len(c.Allowed) > 0 {
		if m.opts.TurnRules == nil {
			m.note(noteWarn, fmt.Sprintf("/%s: its allowed-tools are not applied here", c.Name))
		} else {
			m.opts.TurnRules.SetTurnRules("/"+c.Name, c.Allowed)
			m.custom.rules = true
		}
	}
	if c.Model != "" && c.Model != m.model {
		m.custom.prevModel = m.model
		m.agent.SetModel(c.Model)
		m.model = c.Model
	}
	cmd := m.startTurnAs(typed, c.Expand(arg))
	m.note(noteInfo, customNote(c))
	return cmd
}

// customNote says what a custom command's turn runs with.
func customNote(c slash.Command) string {
	s := fmt.Sprintf("/%s: the prompt of %s", c.Name, c.Path)
	if c.Model != "" {
		s += ", model " + c.Model + " for this turn"
	}
	if len(c.Allowed) > 0 {
		rules := make([]string, len(c.Allowed))
		for i, r := range c.Allowed {
			rules[i] = r.String()
		}
		s += "; runs without asking this turn: " + strings.Join(rules, ", ")
	}
	return s
}

// endCustom undoes what a custom command's turn changed, once it ended.
func (m *Model) endCustom() {
	if !m.custom.active {
		return
	}
	if m.custom.rules && m.opts.TurnRules != nil {
		m.opts.TurnRules.ClearTurnRules()
	}
	if m.custom.prevModel != "" {
		m.agent.SetModel(m.custom.prevModel)
		m.model = m.custom.prevModel
	}
	m.custom = customTurn{}
}
