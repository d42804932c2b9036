package tui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// MCPServers is what /mcp lists and restarts, what @server:uri attaches
// and what /mcp__server__prompt sends (*mcp.Set is one).
type MCPServers interface {
	Status() []mcp.Status
	// Restart starts a server again now and returns when it is ready or
	// has failed; the UI calls it in a Cmd.
	Restart(name string) error
	// ReadResource reads a resource of a server (named as in its tools'
	// names) for a message; the UI calls it in a Cmd.
	ReadResource(ctx context.Context, server, uri string) (mcp.Resource, error)
	// GetPrompt gets a prompt of a server with its arguments as the text
	// of one message; the UI calls it in a Cmd.
	GetPrompt(ctx context.Context, server, prompt string, args map[string]string) (string, error)
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
		for _, r := range append(slices.Clone(st.Resources), st.Templates...) {
			line := "  resource @" + st.Part + ":" + r.URI
			if r.Template {
				line = "  template " + r.URI
			}
			if about := cmp.Or(r.Title, r.Name); about != "" && about != r.URI {
				line += " — " + about
			}
			rows = append(rows, [2]string{"", line})
		}
		for _, p := range st.Prompts {
			line := "  prompt " + promptUsage(p)
			if about := cmp.Or(p.Title, p.Description); about != "" {
				line += " — " + about
			}
			rows = append(rows, [2]string{"", line})
		}
	}
	return rows
}

// promptUsage is how a prompt's slash command is typed:
// "/mcp__server__review <file> [focus]".
func promptUsage(p mcp.PromptStatus) string {
	s := "/" + p.Command
	for _, a := range p.Arguments {
		if a.Required {
			s += " <" + a.Name + ">"
		} else {
			s += " [" + a.Name + "]"
		}
	}
	return s
}

// mcpStateLine says a server's state in a few words.
func mcpStateLine(st mcp.Status) string {
	switch st.State {
	case mcp.Ready:
		s := fmt.Sprintf("ready · %d %s", len(st.Tools), plural(len(st.Tools), "tool", "tools"))
		if n := len(st.Resources) + len(st.Templates); n > 0 {
			s += fmt.Sprintf(" · %d %s", n, plural(n, "resource", "resources"))
		}
		if n := len(st.Prompts); n > 0 {
			s += fmt.Sprintf(" · %d %s", n, plural(n, "prompt", "prompts"))
		}
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

// ---- prompts as slash commands ----

// findPrompt returns the MCP prompt whose slash command is name (without
// the slash, in any case) and its server's name in its tools' names.
func (m *Model) findPrompt(name string) (server string, p mcp.PromptStatus, ok bool) {
	if m.opts.MCP == nil {
		return "", p, false
	}
	for _, st := range m.opts.MCP.Status() {
		for _, p := range st.Prompts {
			if strings.EqualFold(p.Command, name) {
				return st.Part, p, true
			}
		}
	}
	return "", p, false
}

// promptArgs reads a prompt's arguments from what follows its command:
// one word each, in the prompt's order, the last taking the rest of the
// line. It says which required argument is missing.
func promptArgs(p mcp.PromptStatus, arg string) (map[string]string, error) {
	words := strings.Fields(arg)
	args := map[string]string{}
	for i, a := range p.Arguments {
		switch {
		case i < len(words) && i == len(p.Arguments)-1:
			args[a.Name] = strings.Join(words[i:], " ")
		case i < len(words):
			args[a.Name] = words[i]
		case a.Required:
			return nil, fmt.Errorf("%s: the argument %s is missing (usage: %s)", "/"+p.Command, a.Name, promptUsage(p))
		}
	}
	if len(p.Arguments) == 0 && len(words) > 0 {
		return nil, fmt.Errorf("/%s takes no argument", p.Command)
	}
	return args, nil
}

// promptGot is the end of getting an MCP prompt.
type promptGot struct {
	command, text string
	err           error
}

// runPrompt runs /mcp__server__prompt: it gets the prompt from its server
// in a Cmd and sends it as the user's message (promptDone).
func (m *Model) runPrompt(server string, p mcp.PromptStatus, arg string) tea.Cmd {
	args, err := promptArgs(p, arg)
	if err != nil {
		m.note(noteWarn, err.Error())
		return nil
	}
	m.note(noteInfo, fmt.Sprintf("getting the prompt %s of the MCP server %s…", p.Name, server))
	srv, ctx, name := m.opts.MCP, m.ctx, p.Name
	return func() tea.Msg {
		text, err := srv.GetPrompt(ctx, server, name, args)
		return promptGot{command: "/" + p.Command, text: text, err: err}
	}
}

// promptDone sends the prompt got as the user's message, as the server
// wrote it: its words are not read as @mentions or a !command (a
// server's text must not make tackle read files or resources into the
// conversation, or run anything).
func (m *Model) promptDone(msg promptGot) tea.Cmd {
	if msg.err != nil {
		m.note(noteWarn, fmt.Sprintf("%s: %v", msg.command, msg.err))
		return nil
	}
	if m.running || m.quitting {
		m.note(noteWarn, fmt.Sprintf("%s: not sent, a turn is running; run it again when the turn ends", msg.command))
		return nil
	}
	m.showPrompt(msg.text)
	return runAgent(m.beginRun(), m.agent, m.bridge, m.runs, msg.text, nil)
}

// promptEntries are the MCP prompts whose slash command starts with
// typed, for the slash menu.
func (m *Model) promptEntries(typed string) []menuEntry {
	if m.opts.MCP == nil || !strings.HasPrefix(mcp.Prefix, typed) && !strings.HasPrefix(typed, mcp.Prefix) {
		return nil
	}
	var out []menuEntry
	for _, st := range m.opts.MCP.Status() {
		for _, p := range st.Prompts {
			if !strings.HasPrefix(strings.ToLower(p.Command), typed) {
				continue
			}
			help := cmp.Or(p.Title, p.Description, "a prompt") + " (MCP server " + st.Name + ")"
			e := menuEntry{label: promptUsage(p), help: help, text: "/" + p.Command}
			if len(p.Arguments) > 0 {
				e.text += " "
				e.wait = true
			}
			out = append(out, e)
		}
	}
	return out
}

// ---- @server:uri: resources attached to a message ----

// resourceRef is a resource a message mentions.
type resourceRef struct{ server, uri string }

// resourceRef reads a mention ("server:uri", without the @) as a
// resource of a configured MCP server.
func (m *Model) resourceRef(word string) (resourceRef, bool) {
	server, uri, ok := strings.Cut(word, ":")
	if !ok || uri == "" || m.opts.MCP == nil {
		return resourceRef{}, false
	}
	for _, st := range m.opts.MCP.Status() {
		if st.Part == server || st.Name == server {
			return resourceRef{server: st.Part, uri: uri}, true
		}
	}
	return resourceRef{}, false
}

// resourceMentions are the resources text mentions, each once.
func (m *Model) resourceMentions(text string) []resourceRef {
	var refs []resourceRef
	for _, match := range mentionRE().FindAllStringSubmatch(text, -1) {
		if r, ok := m.resourceRef(strings.TrimRight(match[1], ".,;!?)")); ok && !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	return refs
}

// resourcesRead is the end of reading the resources a message mentions:
// the message to send with them, and what to say of each.
type resourcesRead struct {
	ctx     context.Context
	message string
	images  []chat.Image
	notes   []resourceNote
}

type resourceNote struct {
	kind noteKind
	text string
}

// readResources reads the resources refs for message in a Cmd, within
// the turn's context ctx (Esc cancels it).
func readResources(ctx context.Context, srv MCPServers, runs *sync.WaitGroup, refs []resourceRef, message string, images []chat.Image) tea.Cmd {
	runs.Add(1)
	return func() tea.Msg {
		defer runs.Done()
		var b strings.Builder
		var notes []resourceNote
		for _, r := range refs {
			res, err := srv.ReadResource(ctx, r.server, r.uri)
			if err != nil {
				notes = append(notes, resourceNote{noteWarn, fmt.Sprintf("@%s:%s not attached: %v", r.server, r.uri, err)})
				continue
			}
			fmt.Fprintf(&b, "\n\n<resource server=%q uri=%q>\n%s", r.server, res.URI, res.Text)
			if !strings.HasSuffix(res.Text, "\n") {
				b.WriteByte('\n')
			}
			note := fmt.Sprintf("attached %s:%s (%s)", r.server, res.URI, byteSize(int64(len(res.Text))))
			if res.Cut > 0 {
				fmt.Fprintf(&b, "[the rest of the resource, %d bytes, was left out]\n", res.Cut)
				note += fmt.Sprintf(", its first %s only", byteSize(mcp.MaxResource))
			}
			b.WriteString("</resource>")
			notes = append(notes, resourceNote{noteInfo, note})
		}
		return resourcesRead{ctx: ctx, message: message + b.String(), images: images, notes: notes}
	}
}

// resourcesDone starts the turn once the resources are read, or ends it
// when the user interrupted the reading.
func (m *Model) resourcesDone(msg resourcesRead) tea.Cmd {
	for _, n := range msg.notes {
		m.note(n.kind, n.text)
	}
	if err := msg.ctx.Err(); err != nil {
		return m.runDone(runDoneMsg{err: err, events: m.bridge.count()})
	}
	return runAgent(msg.ctx, m.agent, m.bridge, m.runs, msg.message, msg.images)
}

// resourceEntries are the resources of the MCP servers for the @ menu:
// each as server:uri with its score against query.
func (m *Model) resourceEntries() []mentionCandidate {
	if m.opts.MCP == nil {
		return nil
	}
	var out []mentionCandidate
	for _, st := range m.opts.MCP.Status() {
		for _, r := range st.Resources {
			out = append(out, mentionCandidate{text: st.Part + ":" + r.URI, help: "attach the resource " + cmp.Or(r.Title, r.Name, r.URI) + " (MCP server " + st.Name + ")"})
		}
	}
	return out
}
