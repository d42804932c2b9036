package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are all the lipgloss styles the terminal UI draws with. They are
// derived from a palette by [Theme.Styles]; with [NoColor] they carry only
// bold, italic, underline, faint and reverse attributes.
type Styles struct {
	// App is the base for everything: the theme's foreground.
	App lipgloss.Style

	Muted, Subtle, Accent, Accent2     lipgloss.Style
	Success, Warning, Error, Info      lipgloss.Style
	Selection, Spinner, ControlChar    lipgloss.Style
	Bold, Italic, Underline, Faint     lipgloss.Style
	UserLabel, UserText, UserBlock     lipgloss.Style
	AssistantLabel, AssistantBlock     lipgloss.Style
	ToolName, ToolArgs, ToolOutput     lipgloss.Style
	ToolBlock                          lipgloss.Style
	StatusRunning, StatusOK            lipgloss.Style
	StatusFailed, StatusSkipped        lipgloss.Style
	StatusDenied, StatusInterrupted    lipgloss.Style
	HookDecision, CheckOK, CheckFailed lipgloss.Style
	Warn                               lipgloss.Style
	ModalBorder, ModalTitle            lipgloss.Style
	ModalKey, ModalReason, ModalHint   lipgloss.Style
	DiffAdd, DiffRemove, DiffContext   lipgloss.Style
	DiffHeader                         lipgloss.Style
	InputBorder, InputPrompt           lipgloss.Style
	InputPlaceholder, InputText        lipgloss.Style
	StatusBar, StatusBarKey            lipgloss.Style
	StatusBarValue                     lipgloss.Style
}

// Styles derives every UI style from the theme's palette.
//
// Block styles (UserBlock, AssistantBlock, ToolBlock) draw a coloured rule on
// the left of a transcript entry; ModalBorder and InputBorder are rounded
// borders. Nothing paints the terminal background.
func (t Theme) Styles() Styles {
	p := t.Palette
	plain := t.IsNoColor()
	base := lipgloss.NewStyle()
	fg := func(c string) lipgloss.Style { return withFg(base, c) }
	leftRule := func(c string) lipgloss.Style {
		return withBorderFg(base.
			Border(lipgloss.ThickBorder(), false, false, false, true).
			PaddingLeft(1), c)
	}
	rounded := func(c string) lipgloss.Style {
		return withBorderFg(base.Border(lipgloss.RoundedBorder()), c)
	}
	// badge is text on a coloured background; without colour it is reversed.
	badge := func(bg string) lipgloss.Style {
		if plain {
			return base.Reverse(true).Padding(0, 1)
		}
		return withBg(withFg(base, p.Background), bg).Padding(0, 1)
	}

	s := Styles{
		App:     fg(p.Foreground),
		Muted:   fg(p.Muted),
		Subtle:  fg(p.Subtle).Faint(plain),
		Accent:  fg(p.Accent).Bold(plain),
		Accent2: fg(p.Accent2),
		Success: fg(p.Success),
		Warning: fg(p.Warning),
		Error:   fg(p.Error).Bold(plain),
		Info:    fg(p.Info),

		Selection:   withBg(base, p.Selection).Reverse(plain),
		Spinner:     fg(p.Accent),
		ControlChar: withFg(base, p.Warning).Reverse(true),

		Bold:      base.Bold(true),
		Italic:    base.Italic(true),
		Underline: base.Underline(true),
		Faint:     base.Faint(true),

		UserLabel:      fg(p.UserBorder).Bold(true),
		UserText:       fg(p.Foreground),
		UserBlock:      leftRule(p.UserBorder),
		AssistantLabel: fg(p.AssistantBorder).Bold(true),
		AssistantBlock: leftRule(p.AssistantBorder),
		ToolName:       fg(p.Accent2).Bold(true),
		ToolArgs:       fg(p.Foreground),
		ToolOutput:     fg(p.Muted),
		ToolBlock:      leftRule(p.ToolBorder),

		StatusRunning:     fg(p.Accent),
		StatusOK:          fg(p.Success),
		StatusFailed:      fg(p.Error).Bold(true),
		StatusSkipped:     fg(p.Subtle).Faint(plain),
		StatusDenied:      fg(p.Warning),
		StatusInterrupted: fg(p.Warning).Italic(true),

		HookDecision: fg(p.Muted).Italic(true),
		CheckOK:      fg(p.Success),
		CheckFailed:  fg(p.Error),
		Warn:         fg(p.Warning),

		ModalBorder: rounded(p.Accent).Padding(0, 1),
		ModalTitle:  fg(p.Accent).Bold(true),
		ModalKey:    fg(p.Accent2).Bold(true),
		ModalReason: fg(p.Muted).Italic(true),
		ModalHint:   fg(p.Subtle).Faint(plain),

		DiffAdd:     fg(p.DiffAdd),
		DiffRemove:  fg(p.DiffRemove),
		DiffContext: fg(p.DiffContext),
		DiffHeader:  fg(p.Info).Bold(true),

		InputBorder:      rounded(p.Subtle),
		InputPrompt:      fg(p.Accent).Bold(true),
		InputPlaceholder: fg(p.Subtle).Faint(plain),
		InputText:        fg(p.Foreground),

		StatusBar:      fg(p.Muted),
		StatusBarKey:   badge(p.Accent),
		StatusBarValue: fg(p.Foreground),
	}
	return s
}

// colour converts a palette entry to a lipgloss colour; "" is nil.
func colour(c string) color.Color {
	if c == "" {
		return nil
	}
	return lipgloss.Color(c)
}

func withFg(s lipgloss.Style, c string) lipgloss.Style {
	if c == "" {
		return s
	}
	return s.Foreground(colour(c))
}

func withBg(s lipgloss.Style, c string) lipgloss.Style {
	if c == "" {
		return s
	}
	return s.Background(colour(c))
}

func withBorderFg(s lipgloss.Style, c string) lipgloss.Style {
	if c == "" {
		return s
	}
	return s.BorderForeground(colour(c))
}
