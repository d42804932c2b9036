package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// MCPServers is what /mcp lists and restarts (*mcp.Set is one).
type MCPServers interface {
	Status() []mcp.Status
	// Restart starts a server again now and returns when it is ready or
	// has failed; the UI calls it in a Cmd.
	Restart(name string) error
}

// toolLabel is how the transcript and the approval dialog name a tool:
// an MCP server's tool as "server › tool", tackle's own by its name.
func toolLabel(name string) string {
	if server, tool, ok := mcp.SplitName(name); ok {
		return server + " › " + tool
	}
	return name
}

// mcpEvent keeps each MCP server's latest state, for the status line,
// and brings an open /mcp up to date: a server the user watches start
// shows as ready (or failed) without opening /mcp again.
func (m *Model) mcpEvent(e agent.MCPServerStatus) {
	if m.mcpStates == nil {
		m.mcpStates = map[string]string{}
	}
	m.mcpStates[e.Server] = e.State
	if m.opts.MCP == nil {
		return
	}
	for _, d := range m.dialogs {
		if t, ok := d.(*tableDialog); ok && t.title == mcpTitle {
			t.rows = mcpRows(m.opts.MCP.Status())
			t.layout(&m.styles, m.dialogWidth(), m.dialogHeight())
		}
	}
}

// mcpTitle is the title of the /mcp dialog.
const mcpTitle = "MCP servers"

// mcpFailed lists the MCP servers whose latest state is failed, sorted.
func (m *Model) mcpFailed() []string {
	var out []string
	for name, state := range m.mcpStates {
		if state == mcp.Failed.String() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// mcpRestarted is the end of a /mcp restart.
type mcpRestarted struct {
	name string
	err  error
}

// showMCP runs /mcp: with no argument it lists the servers, their state
// and tools; "restart NAME" starts a server again.
func (m *Model) showMCP(arg string) tea.Cmd {
	if m.opts.MCP == nil {
		m.note(noteInfo, "no MCP server is configured (mcpServers in the config, or a trusted .mcp.json; see README)")
		return nil
	}
	if name, ok := strings.CutPrefix(strings.TrimSpace(arg), "restart"); ok && arg != "" {
		name = strings.TrimSpace(name)
		if name == "" {
			m.note(noteWarn, "/mcp restart NAME: name the server")
			return nil
		}
		m.note(noteInfo, fmt.Sprintf("restarting the MCP server %s…", name))
		srv := m.opts.MCP
		return func() tea.Msg { return mcpRestarted{name: name, err: srv.Restart(name)} }
	}
	if strings.TrimSpace(arg) != "" {
		m.note(noteWarn, fmt.Sprintf("/mcp takes no argument but restart NAME (got %q)", arg))
		return nil
	}
	m.pushDialog(&tableDialog{title: mcpTitle, hint: "/mcp restart NAME starts one again", rows: mcpRows(m.opts.MCP.Status())})
	return nil
}

// mcpRows are the lines of /mcp: each server's state, transport and
// target, why it failed, the tools left out and its tools.
func mcpRows(servers []mcp.Status) [][2]string {
	var rows [][2]string
	for _, st := range servers {
		rows = append(rows, [2]string{st.Name, mcpStateLine(st)})
		rows = append(rows, [2]string{"", st.Transport + ": " + st.Target})
		if st.Err != "" {
			rows = append(rows, [2]string{"", st.Err})
		}
		for _, why := range st.LeftOut {
			rows = append(rows, [2]string{"", "  left out: " + why})
		}
		for _, t := range st.Tools {
			line := "  " + t.Tool
			if t.ReadOnly {
				line += " (read-only)"
			}
			if t.Title != "" && t.Title != t.Tool {
				line += " — " + t.Title
			}
			rows = append(rows, [2]string{"", line})
		}
	}
	return rows
}

// mcpStateLine says a server's state in a few words.
func mcpStateLine(st mcp.Status) string {
	switch st.State {
	case mcp.Ready:
		s := fmt.Sprintf("ready · %d %s", len(st.Tools), plural(len(st.Tools), "tool", "tools"))
		if st.Implementation != "" {
			s += " · " + st.Implementation
		}
		return s
	case mcp.Failed:
		if len(st.Tools) > 0 {
			return fmt.Sprintf("failed · %d %s (a call starts it again)", len(st.Tools), plural(len(st.Tools), "tool", "tools"))
		}
		return "failed"
	}
	return st.State.String()
}

// mcpRestartDone reports a /mcp restart.
func (m *Model) mcpRestartDone(msg mcpRestarted) {
	if msg.err != nil {
		m.note(noteWarn, fmt.Sprintf("the MCP server %s did not start: %v", msg.name, msg.err))
		return
	}
	m.note(noteInfo, fmt.Sprintf("the MCP server %s is ready", msg.name))
}
