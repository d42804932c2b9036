package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxMenuRows bounds the slash-command menu's height.
const maxMenuRows = 8

// The menu above the editor completes what is being typed. For a slash
// command ("/" and a name, no space yet) it lists the commands whose name
// or alias starts with it; for a file mention (a word starting with "@")
// the workspace's files that match it, best first. up/down choose, tab
// completes, enter completes a mention or runs the chosen command (or
// completes one that takes an argument), esc closes the menu.
type menu struct {
	sel    int
	typed  string // the editor's text the selection belongs to
	hidden string // the editor's text esc closed the menu for
}

// menuEntry is one line of the menu: what it shows and the editor's text
// choosing it gives.
type menuEntry struct {
	label, help string
	text        string // the editor's text once completed
	// wait: enter completes without sending (a mention, or a command that
	// takes an argument).
	wait bool
}

// menuItems are the entries the menu offers for the editor's text.
func (m *Model) menuItems() []menuEntry {
	v := m.input.value()
	if v == m.menu.hidden || len(m.dialogs) > 0 {
		return nil
	}
	var out []menuEntry
	switch {
	case strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \t\n"):
		out = append(commandEntries(strings.ToLower(v[1:])), m.customEntries(strings.ToLower(v[1:]))...)
		out = append(out, m.promptEntries(strings.ToLower(v[1:]))...)
	default:
		out = m.mentionEntries(v)
	}
	if v != m.menu.typed {
		m.menu.sel, m.menu.typed = 0, v
	}
	m.menu.sel = min(m.menu.sel, max(len(out)-1, 0))
	return out
}

// commandEntries are the slash commands whose name or alias starts with
// typed.
func commandEntries(typed string) []menuEntry {
	var out []menuEntry
	for _, c := range slashCommands() {
		match := strings.HasPrefix(c.name, typed)
		for _, a := range c.aliases {
			match = match || strings.HasPrefix(a, typed)
		}
		if !match {
			continue
		}
		e := menuEntry{label: strings.TrimSpace("/" + c.name + " " + c.args), help: c.help, text: "/" + c.name}
		if c.args != "" {
			e.text += " "
			e.wait = true
		}
		out = append(out, e)
	}
	return out
}

// menuMove moves the menu's selection; it reports whether the menu is open.
func (m *Model) menuMove(d int) bool {
	items := m.menuItems()
	if len(items) == 0 {
		return false
	}
	m.menu.sel = (m.menu.sel + d + len(items)) % len(items)
	return true
}

// closeMenu hides the menu for the text typed so far; it reports whether
// it was open.
func (m *Model) closeMenu() bool {
	if len(m.menuItems()) == 0 {
		return false
	}
	m.menu.hidden = m.input.value()
	return true
}

// completeCommand puts the chosen entry's text in the editor; it reports
// whether the menu was open.
func (m *Model) completeCommand() bool {
	items := m.menuItems()
	if len(items) == 0 {
		return false
	}
	m.input.setValue(items[m.menu.sel].text)
	return true
}

// menuAccept is enter in the menu: the chosen entry is completed first;
// a mention or a command that takes an argument then waits. It reports
// whether enter should not send the editor's text yet.
func (m *Model) menuAccept() bool {
	items := m.menuItems()
	if len(items) == 0 {
		return false
	}
	e := items[m.menu.sel]
	if m.input.value() == strings.TrimSpace(e.text) || m.input.value() == e.text {
		return false // typed whole: enter runs (or sends) it
	}
	m.input.setValue(e.text)
	return e.wait
}

// menuLines draws the menu, the chosen entry marked.
func (m *Model) menuLines() []string {
	items := m.menuItems()
	if len(items) == 0 {
		return nil
	}
	st := &m.styles
	from := max(0, min(m.menu.sel-maxMenuRows+1, len(items)-maxMenuRows))
	to := min(from+maxMenuRows, len(items))
	nameW := 0
	for _, e := range items[from:to] {
		nameW = max(nameW, ansi.StringWidth(e.label))
	}
	var out []string
	for i := from; i < to; i++ {
		e := items[i]
		pad := strings.Repeat(" ", nameW-ansi.StringWidth(e.label))
		if i == m.menu.sel {
			out = append(out, truncate(st.Selection.Render(padRight("›"+e.label+pad+"  "+e.help, m.width)), m.width))
			continue
		}
		out = append(out, truncate(st.ModalKey.Render(" "+e.label)+pad+"  "+st.Muted.Render(e.help), m.width))
	}
	return out
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}
