package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// slashCommand is one slash command: the table below is the one place a
// command is defined, for running it, for /help and for the list an
// unknown command is answered with.
type slashCommand struct {
	name    string
	aliases []string
	args    string // as /help shows them, e.g. "<mode>"
	help    string
	run     func(m *Model, arg string) tea.Cmd
}

// slashCommands are the slash commands in the order /help lists them.
// (A function, not a variable: the entries refer to Model methods that
// use the table.)
func slashCommands() []slashCommand {
	return []slashCommand{
		{name: "help", aliases: []string{"?"}, help: "this help", run: func(m *Model, _ string) tea.Cmd {
			m.pushDialog(newHelpDialog(helpKeyRows(m.keys)))
			return nil
		}},
		{name: "new", aliases: []string{"clear"}, help: "start a new conversation (a new session)", run: func(m *Model, _ string) tea.Cmd { return m.clearSession() }},
		{name: "resume", help: "go on with an earlier session of this workspace", run: func(m *Model, _ string) tea.Cmd { return m.pickSession() }},
		{name: "mode", args: "[mode]", help: "approval mode: default, accept-edits, yolo, plan; without one, pick from the list (shift+tab cycles them)", run: func(m *Model, arg string) tea.Cmd {
			if arg == "" && m.opts.Policy != nil {
				m.pickMode()
				return nil
			}
			m.setMode(arg)
			return nil
		}},
		{name: "model", args: "[name]", help: "switch the model; without a name, pick from the server's list", run: func(m *Model, arg string) tea.Cmd {
			if arg == "" {
				return m.pickModel()
			}
			m.setModel(arg)
			return nil
		}},
		{name: "context", help: "what the system prompt and tool definitions hold, and their size", run: func(m *Model, _ string) tea.Cmd {
			m.showContext()
			return nil
		}},
		{name: "init", help: "ask the model to survey the project and write a starter AGENTS.md", run: func(m *Model, arg string) tea.Cmd {
			return m.sendPrompt(initPrompt(arg))
		}},
		{name: "compact", args: "[focus]", help: "summarize the older part of the conversation to free context; the focus says what to keep", run: func(m *Model, arg string) tea.Cmd {
			return m.compact(arg)
		}},
		{name: "permissions", help: "list the approval rules; revoke one for this session, or save one in a config file", run: func(m *Model, _ string) tea.Cmd {
			m.showPermissions()
			return nil
		}},
		{name: "undo", args: "[N]", help: "revert the file changes of the last turn (or the last N); asks before overwriting a file changed since", run: func(m *Model, arg string) tea.Cmd {
			m.undo(arg)
			return nil
		}},
		{name: "diff", help: "every file tackle changed in this session, as diffs", run: func(m *Model, _ string) tea.Cmd {
			m.showDiff()
			return nil
		}},
		{name: "mcp", args: "[restart NAME]", help: "the MCP servers: state, tools, why one failed; restart one", run: func(m *Model, arg string) tea.Cmd {
			return m.showMCP(arg)
		}},
		{name: "status", help: "model, endpoint, mode, workspace, session, context use, instruction files, hooks and MCP servers", run: func(m *Model, _ string) tea.Cmd {
			m.showStatus()
			return nil
		}},
		{name: "cost", help: "tokens in and out per model this session, and their cost where a price is configured", run: func(m *Model, _ string) tea.Cmd {
			m.showCost()
			return nil
		}},
		{name: "theme", args: "<name>", help: "switch the theme", run: func(m *Model, arg string) tea.Cmd {
			m.setThemeByName(arg)
			return nil
		}},
		{name: "quit", aliases: []string{"exit", "q"}, help: "quit", run: func(m *Model, _ string) tea.Cmd { return m.quit() }},
	}
}

// Builtin reports whether /name is one of the UI's own commands (or an
// alias, or an MCP server's prompt): a custom command of that name is
// not used.
func Builtin(name string) bool {
	if strings.HasPrefix(name, mcp.Prefix) {
		return true
	}
	for _, c := range slashCommands() {
		if c.name == name || slices.Contains(c.aliases, name) {
			return true
		}
	}
	return false
}

// parseCommand reads "/name arg". A first word with another slash in it
// ("/etc/hosts is broken") is a message, not a command.
func parseCommand(text string) (name, arg string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	word, rest, _ := strings.Cut(text[1:], " ")
	if word == "" || strings.ContainsAny(word, "/\n") {
		return "", "", false
	}
	return strings.ToLower(word), strings.TrimSpace(rest), true
}

// command runs a slash command.
func (m *Model) command(name, arg string) tea.Cmd {
	cmds := slashCommands()
	for _, c := range cmds {
		if c.name == name || slices.Contains(c.aliases, name) {
			return c.run(m, arg)
		}
	}
	if c, ok := m.findCustom(name); ok {
		return m.runCustom(c, arg)
	}
	if server, p, ok := m.findPrompt(name); ok {
		return m.runPrompt(server, p, arg)
	}
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	m.note(noteError, fmt.Sprintf("unknown command /%s — the commands are /%s (/help lists the keys too)", name, strings.Join(names, ", /")))
	return nil
}

// sendPrompt sends a prompt a command wrote, as if typed: it starts a
// turn, or waits in the queue while one runs.
func (m *Model) sendPrompt(text string) tea.Cmd {
	if m.running || m.quitting {
		m.queue = append(m.queue, text)
		return nil
	}
	return m.startTurn(text)
}

// initPrompt asks the model for a starter AGENTS.md. Its write goes
// through approval like any other.
func initPrompt(focus string) string {
	p := `Write a starter AGENTS.md at the workspace root: the instructions a coding agent needs before it changes this project. Survey the repository first (its layout, build files, README, CI configuration, tests) instead of guessing. Cover, briefly and concretely:
- how to build, run the tests (all, and a single one), lint and format;
- the layout: the main directories and what lives where;
- conventions the code follows that are not obvious (error handling, naming, test style, generated files not to edit);
- anything that must never be done (e.g. commands with side effects, files to leave alone).
Keep it short (under 80 lines), in Markdown, with commands in code blocks. If AGENTS.md already exists, read it and improve it rather than start over; keep what is still true.`
	if focus = strings.TrimSpace(focus); focus != "" {
		p += "\n\nThe user adds: " + focus
	}
	return p
}

// clearSession empties the transcript and, when the UI can make a new
// Worker, starts a new conversation.
func (m *Model) clearSession() tea.Cmd {
	if m.running {
		m.note(noteWarn, "a turn is running: interrupt it (esc) before /new")
		return nil
	}
	m.keepPast()
	m.transcript.clear()
	m.focus = -1
	clear(m.tools)
	m.checks, m.streaming, m.thinking = nil, nil, nil
	if m.opts.NewAgent != nil {
		m.plan = nil
		m.agent = m.opts.NewAgent()
		m.usage, m.ctxSize, m.ctxUsed = chat.Usage{}, 0, 0
		m.note(noteInfo, "new conversation")
	} else {
		m.note(noteInfo, "screen cleared; the model still has the conversation")
	}
	if m.opts.Inline {
		return tea.ClearScreen
	}
	return nil
}

func (m *Model) setMode(arg string) {
	if m.opts.Policy == nil {
		m.note(noteError, "approval modes are not available here")
		return
	}
	if arg == "" {
		m.note(noteInfo, fmt.Sprintf("approval mode: %s (modes: default, accept-edits, yolo, plan)", m.mode))
		return
	}
	mode, err := approval.ParseMode(arg)
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	m.opts.Policy.SetMode(mode)
	m.mode = mode
	m.note(noteInfo, "approval mode: "+string(mode)+" — "+modeHelp[mode])
}

// modeCycle is the order shift+tab goes through the approval modes; yolo
// is not in it (a key pressed by mistake never turns every question off),
// and from yolo it goes back to default.
var modeCycle = []approval.Mode{approval.Default, approval.AcceptEdits, approval.Plan}

// cycleMode switches to the next mode of modeCycle and says so in the
// status line; it reports whether there is a policy to change.
func (m *Model) cycleMode() bool {
	if m.opts.Policy == nil {
		return false
	}
	next := modeCycle[(slices.Index(modeCycle, m.mode)+1)%len(modeCycle)]
	m.opts.Policy.SetMode(next)
	m.mode = next
	m.notice = "mode " + string(next) + ": " + modeHelp[next] + " (shift+tab: next)"
	return true
}

var modeHelp = map[approval.Mode]string{
	approval.Default:     "reads run; edits and shell commands ask",
	approval.AcceptEdits: "reads and edits run; shell commands ask",
	approval.Yolo:        "everything runs without asking",
	approval.Plan:        "read-only: edits and shell commands are skipped",
}

// showPermissions opens the list of approval rules.
func (m *Model) showPermissions() {
	if m.opts.Policy == nil {
		m.note(noteError, "approval rules are not available here")
		return
	}
	m.pushDialog(newPermissionsDialog(m.opts.Policy, m.opts.RuleFiles, m.getenv("HOME")))
}

func (m *Model) setModel(arg string) {
	if arg == "" {
		m.note(noteInfo, "model: "+m.model+" (/model <name> switches)")
		return
	}
	m.agent.SetModel(arg)
	m.model = arg
	m.ctxWindow = 0 // the new model's is known after its first request
	m.note(noteInfo, "model: "+arg+" (from the next request)")
}

func (m *Model) setThemeByName(arg string) {
	if arg == "" {
		m.note(noteInfo, fmt.Sprintf("theme: %s (themes: %s)", m.theme.Name, strings.Join(themes.Names(m.opts.UserThemes), ", ")))
		return
	}
	th, err := themes.Resolve(arg, m.darkBG, m.opts.UserThemes)
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	m.themeFixed = arg != themes.Auto
	m.setTheme(th)
	m.note(noteInfo, "theme: "+th.Name)
}
