package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/themes"
)

// choice is one entry of a picker: its value and what it says of it.
type choice struct {
	value, detail string
}

// picker lets the user pick a value from a list (/model and /mode without
// an argument): ↑↓ select, enter takes it, typing filters the list.
type picker struct {
	title   string
	all     []choice
	current string // marked in the list
	filter  string
	shown   []choice // all, filtered
	nav     listNav
	width   int
	// pick is the action that takes a value.
	pick func(value string) dialogAction
}

func newPicker(title string, all []choice, current string, pick func(string) dialogAction) *picker {
	p := &picker{title: title, all: all, current: current, pick: pick}
	p.refilter()
	if i := slices.IndexFunc(p.shown, func(c choice) bool { return c.value == current }); i >= 0 {
		p.nav.sel = i
	}
	return p
}

// refilter keeps the choices that hold the filter's text.
func (p *picker) refilter() {
	p.shown = p.shown[:0]
	f := strings.ToLower(p.filter)
	for _, c := range p.all {
		if strings.Contains(strings.ToLower(c.value), f) {
			p.shown = append(p.shown, c)
		}
	}
	p.nav.sel = 0
	p.nav.move(0, len(p.shown))
}

func (p *picker) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case k.Text != "" && k.Mod&^tea.ModShift == 0 && unicode.IsPrint([]rune(k.Text)[0]):
			p.filter += k.Text
			p.refilter()
			return dialogAction{}, nil
		case k.Code == tea.KeyBackspace && p.filter != "":
			p.filter = p.filter[:len(p.filter)-len(string([]rune(p.filter)[len([]rune(p.filter))-1]))]
			p.refilter()
			return dialogAction{}, nil
		}
	}
	if p.nav.handle(msg, len(p.shown)) {
		return dialogAction{}, nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch keys := dialogKeys(); {
		case key.Matches(k, keys.take) && len(p.shown) > 0:
			return p.pick(p.shown[p.nav.sel].value), nil
		case key.Matches(k, keys.leave):
			return dialogAction{close: true}, nil
		}
	}
	return dialogAction{}, nil
}

func (p *picker) layout(_ *themes.Styles, width, height int) {
	p.width = width
	// The border, the title, the filter, the count, the keys.
	p.nav.rows = max(height-7, 1)
	p.nav.move(0, len(p.shown))
}

func (p *picker) view(st *themes.Styles) string {
	inner := max(p.width-4, 8)
	lines := []string{st.ModalTitle.Render(p.title)}
	if p.filter != "" {
		lines = append(lines, st.ModalHint.Render("filter: ")+plainText(p.filter, st.ControlChar))
	}
	w := 0
	for _, c := range p.shown {
		w = max(w, ansi.StringWidth(c.value))
	}
	w = min(w, inner/2)
	from, end := p.nav.shown(len(p.shown))
	for i := from; i < end; i++ {
		c := p.shown[i]
		mark := "  "
		if i == p.nav.sel {
			mark = st.ModalKey.Render("▸ ")
		}
		value := plainText(c.value, st.ControlChar)
		if pad := w - ansi.StringWidth(value); pad > 0 {
			value += strings.Repeat(" ", pad)
		}
		line := mark + value
		if c.value == p.current {
			line += st.ModalKey.Render("  (now)")
		}
		if c.detail != "" {
			line += "  " + st.ModalHint.Render(c.detail)
		}
		lines = append(lines, ansi.Truncate(line, inner, "…"))
	}
	if len(p.shown) == 0 {
		lines = append(lines, st.ModalHint.Render("  nothing matches"))
	}
	if end < len(p.shown) || from > 0 {
		lines = append(lines, st.ModalHint.Render(fmt.Sprintf("%d–%d of %d", from+1, end, len(p.shown))))
	}
	k := dialogKeys()
	lines = append(lines, flowParts([]string{hint(st, k.selectHint), hintAs(st, k.take, "choose"), hint(st, k.typeHint), hintAs(st, k.leave, "close")}, "   ", inner)...)
	return box(st.ModalBorder, lines, p.width)
}

// pickMode opens the list of approval modes (/mode without an argument).
func (m *Model) pickMode() {
	var all []choice
	for _, mode := range []approval.Mode{approval.Default, approval.AcceptEdits, approval.Plan, approval.Yolo} {
		all = append(all, choice{value: string(mode), detail: modeHelp[mode]})
	}
	m.pushDialog(newPicker("Approval mode", all, string(m.mode), func(v string) dialogAction {
		return dialogAction{close: true, mode: v}
	}))
}

// Models lists the models the endpoint serves, for /model's picker.
type Models func(ctx context.Context) ([]string, error)

// modelsListedMsg carries the endpoint's models.
type modelsListedMsg struct {
	models []string
	err    error
}

// listModels is the Cmd that asks the endpoint for its models.
func listModels(ctx context.Context, list Models) tea.Cmd {
	return func() tea.Msg {
		models, err := list(ctx)
		return modelsListedMsg{models: models, err: err}
	}
}

// pickModel starts /model without an argument: the endpoint's models
// come in a Cmd.
func (m *Model) pickModel() tea.Cmd {
	if m.opts.Models == nil {
		m.note(noteInfo, "model: "+m.model+" (/model <name> switches)")
		return nil
	}
	return listModels(m.ctx, m.opts.Models)
}

// modelsListed opens the list of the endpoint's models.
func (m *Model) modelsListed(msg modelsListedMsg) {
	switch {
	case msg.err != nil:
		m.note(noteInfo, fmt.Sprintf("model: %s (the server does not list its models: %v; /model <name> switches)", m.model, msg.err))
	case len(msg.models) == 0:
		m.note(noteInfo, "model: "+m.model+" (the server lists no models; /model <name> switches)")
	default:
		var all []choice
		for _, id := range msg.models {
			all = append(all, choice{value: id})
		}
		if !slices.Contains(msg.models, m.model) {
			all = append([]choice{{value: m.model, detail: "not in the server's list"}}, all...)
		}
		m.pushDialog(newPicker("Model — from the server's list", all, m.model, func(v string) dialogAction {
			return dialogAction{close: true, model: v}
		}))
	}
}
