package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxMenuRows bounds the slash-command menu's height.
const maxMenuRows = 8

// The slash-command menu opens above the editor while the editor holds a
// command being typed ("/" and a name, no space yet): it lists the
// commands whose name or alias starts with what was typed. up/down choose,
// tab completes, enter runs the chosen command (or, for one that takes an
// argument, completes it), esc closes the menu.
type menu struct {
	sel    int
	typed  string // the editor's text the selection belongs to
	hidden string // the editor's text esc closed the menu for
}

// menuItems are the commands the menu offers for the editor's text.
func (m *Model) menuItems() []slashCommand {
	v := m.input.value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \t\n") || v == m.menu.hidden || len(m.dialogs) > 0 {
		return nil
	}
	typed := strings.ToLower(v[1:])
	var out []slashCommand
	for _, c := range slashCommands() {
		if strings.HasPrefix(c.name, typed) {
			out = append(out, c)
			continue
		}
		for _, a := range c.aliases {
			if strings.HasPrefix(a, typed) {
				out = append(out, c)
				break
			}
		}
	}
	if v != m.menu.typed {
		m.menu.sel, m.menu.typed = 0, v
	}
	m.menu.sel = min(m.menu.sel, max(len(out)-1, 0))
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

// completeCommand puts the chosen command in the editor (with a space
// after a command that takes an argument); it reports whether the menu
// was open.
func (m *Model) completeCommand() bool {
	items := m.menuItems()
	if len(items) == 0 {
		return false
	}
	c := items[m.menu.sel]
	text := "/" + c.name
	if c.args != "" {
		text += " "
	}
	m.input.setValue(text)
	return true
}

// menuAccept is enter in the menu: a command chosen by a prefix is
// completed first; one that takes an argument then waits for it. It
// reports whether enter should not send the editor's text yet.
func (m *Model) menuAccept() bool {
	items := m.menuItems()
	if len(items) == 0 {
		return false
	}
	c := items[m.menu.sel]
	if m.input.value() == "/"+c.name {
		return false
	}
	m.completeCommand()
	return c.args != ""
}

// menuLines draws the menu, the chosen command marked.
func (m *Model) menuLines() []string {
	items := m.menuItems()
	if len(items) == 0 {
		return nil
	}
	st := &m.styles
	from := max(0, min(m.menu.sel-maxMenuRows+1, len(items)-maxMenuRows))
	to := min(from+maxMenuRows, len(items))
	nameW := 0
	for _, c := range items {
		nameW = max(nameW, ansi.StringWidth(strings.TrimSpace("/"+c.name+" "+c.args)))
	}
	var out []string
	for i := from; i < to; i++ {
		c := items[i]
		name := strings.TrimSpace("/" + c.name + " " + c.args)
		row := "›" + name + strings.Repeat(" ", nameW-ansi.StringWidth(name)) + "  " + c.help
		if i == m.menu.sel {
			out = append(out, truncate(st.Selection.Render(padRight(row, m.width)), m.width))
			continue
		}
		out = append(out, truncate(st.ModalKey.Render(" "+name)+strings.Repeat(" ", nameW-ansi.StringWidth(name))+"  "+st.Muted.Render(c.help), m.width))
	}
	return out
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}
