package tui

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools/chat"
)

// About is what the welcome block and /status say about the session's
// setup.
type About struct {
	// Version is tackle's version; Endpoint the server's base URL.
	Version, Endpoint string
	// Instructions are the instruction files the system prompt holds
	// (AGENTS.md, CLAUDE.md …).
	Instructions []string
	// Hooks are the hooks by event, in chain order ("pre_tool_call:
	// approval, checks").
	Hooks []string
	// Session returns the current session's id ("" when it is not
	// recorded).
	Session func() string
	// Sandbox is the OS sandbox of the commands in a few words for the
	// status line ("sandbox", "sandbox (landlock)", "no sandbox",
	// "sandbox off"); SandboxFull says it is the whole sandbox (else the
	// status line shows it as a warning); SandboxDetail is the
	// sandbox for /status: what commands may do, what is not covered.
	Sandbox, SandboxDetail string
	SandboxFull            bool
}

// Price is what a model costs, in dollars per million tokens.
type Price struct {
	Input, Output float64
}

// addUsage adds a request's usage to the model that served it.
func (m *Model) addUsage(u chat.Usage) {
	if m.usageBy == nil {
		m.usageBy = map[string]chat.Usage{}
	}
	m.usageBy[m.model] = m.usageBy[m.model].Add(u)
}

// welcome is the block the UI starts with: the model and endpoint, the
// mode, the workspace, the instruction files and hooks loaded.
func (m *Model) welcome() *noteEntry {
	a := m.opts.About
	var b strings.Builder
	fmt.Fprintf(&b, "tackle %s · %s", cmp.Or(a.Version, "dev"), m.model)
	if a.Endpoint != "" {
		fmt.Fprintf(&b, " at %s", a.Endpoint)
	}
	fmt.Fprintf(&b, " · mode %s\nworkspace %s", m.mode, m.displayDir())
	if len(a.Instructions) > 0 {
		fmt.Fprintf(&b, "\ninstructions: %s", strings.Join(a.Instructions, ", "))
	}
	if n := hookCount(a.Hooks); n > 0 {
		fmt.Fprintf(&b, "\nhooks: %d (/status lists them)", n)
	}
	b.WriteString("\n/help for keys and commands, / for the command menu")
	return &noteEntry{kind: noteInfo, text: b.String()}
}

func hookCount(lines []string) int {
	n := 0
	for _, l := range lines {
		if _, names, ok := strings.Cut(l, ": "); ok {
			n += len(strings.Split(names, ", "))
		}
	}
	return n
}

// showStatus opens /status: the welcome's facts, the session and how full
// the context is.
func (m *Model) showStatus() {
	a := m.opts.About
	rows := [][2]string{
		{"model", m.model},
		{"endpoint", cmp.Or(a.Endpoint, "(default)")},
		{"mode", string(m.mode)},
		{"workspace", m.opts.Workdir},
	}
	if a.SandboxDetail != "" {
		rows = append(rows, [2]string{"sandbox", a.SandboxDetail})
	}
	if a.Session != nil {
		rows = append(rows, [2]string{"session", cmp.Or(a.Session(), "(not recorded)")})
	}
	ctx := "not measured yet"
	switch {
	case m.ctxWindow > 0:
		ctx = fmt.Sprintf("%s of %s tokens (%d%%)", tokens(m.ctxUsed), tokens(m.ctxWindow), m.ctxUsed*100/m.ctxWindow)
	case m.ctxSize > 0:
		ctx = fmt.Sprintf("%s tokens in the last request (window not known)", tokens(m.ctxSize))
	}
	rows = append(rows, [2]string{"context", ctx})
	rows = append(rows, [2]string{"tokens", fmt.Sprintf("%s in, %s out this session", tokens(m.usage.PromptTokens), tokens(m.usage.CompletionTokens))})
	rows = append(rows, [2]string{"instructions", cmp.Or(strings.Join(a.Instructions, ", "), "none")})
	hooks := a.Hooks
	if len(hooks) == 0 {
		hooks = []string{"none"}
	}
	for i, h := range hooks {
		label := ""
		if i == 0 {
			label = "hooks"
		}
		rows = append(rows, [2]string{label, h})
	}
	if m.opts.MCP != nil {
		for i, st := range m.opts.MCP.Status() {
			label := ""
			if i == 0 {
				label = "mcp"
			}
			rows = append(rows, [2]string{label, st.Name + ": " + mcpStateLine(st)})
		}
	}
	m.pushDialog(&tableDialog{title: "Status", rows: rows})
}

// showCost opens /cost: tokens in and out per model this session, and
// what they cost where a price is configured.
func (m *Model) showCost() {
	if len(m.usageBy) == 0 {
		m.note(noteInfo, "no model request yet in this session")
		return
	}
	var rows [][2]string
	var total float64
	priced := false
	for _, model := range slices.Sorted(maps.Keys(m.usageBy)) {
		u := m.usageBy[model]
		line := fmt.Sprintf("%s in, %s out", tokens(u.PromptTokens), tokens(u.CompletionTokens))
		if u.ReasoningTokens > 0 {
			line += fmt.Sprintf(" (%s reasoning)", tokens(u.ReasoningTokens))
		}
		if p, ok := m.opts.Prices[model]; ok {
			c := float64(u.PromptTokens)*p.Input/1e6 + float64(u.CompletionTokens)*p.Output/1e6
			total += c
			priced = true
			line += fmt.Sprintf(" · $%.4f", c)
		} else {
			line += " · no price configured"
		}
		rows = append(rows, [2]string{model, line})
	}
	if priced {
		rows = append(rows, [2]string{"total", fmt.Sprintf("$%.4f (models with a price)", total)})
	}
	m.pushDialog(&tableDialog{title: "Cost", hint: "tokens the server counted; prices from the config's \"prices\"", rows: rows})
}

// tableDialog shows rows of a label and a value, scrolling when long.
type tableDialog struct {
	pager
	title, hint string
	rows        [][2]string
}

func (d *tableDialog) layout(st *themes.Styles, width, height int) {
	d.width = width
	inner := max(width-4, 8)
	lines := []string{st.ModalTitle.Render(d.title)}
	if d.hint != "" {
		lines[0] += st.ModalHint.Render(" — " + d.hint)
	}
	kw := 0
	for _, r := range d.rows {
		kw = max(kw, ansi.StringWidth(r[0]))
	}
	kw = min(kw, inner/3)
	for _, r := range d.rows {
		k := st.ModalKey.Render(r[0]) + strings.Repeat(" ", max(kw-ansi.StringWidth(r[0]), 0)) + "  "
		lines = append(lines, prefixed(st.ModalHint.Render, r[1], inner, k, strings.Repeat(" ", kw+2))...)
	}
	d.setLines(lines, height)
}
