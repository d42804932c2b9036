package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/themes"
)

// permissionsDialog lists the approval rules in force, each with where it
// came from, and revokes one for the rest of the session by keypress: a
// session rule ("approve always") is forgotten; a rule from a flag or the
// config file stops applying (the file is not changed).
type permissionsDialog struct {
	policy Policy
	files  RuleFiles // nil: rules cannot be saved to a config file
	home   string    // shown as ~ in config file paths
	perms  []approval.Permission
	nav    listNav
	width  int // laid out by layout
}

func newPermissionsDialog(p Policy, files RuleFiles, home string) *permissionsDialog {
	return &permissionsDialog{policy: p, files: files, home: home, perms: p.Permissions()}
}

func (d *permissionsDialog) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	if d.nav.handle(msg, len(d.perms)) {
		return dialogAction{}, nil
	}
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch k := dialogKeys(); {
		case key.Matches(msg, k.revoke):
			return d.revoke(), nil
		case key.Matches(msg, k.saveUser):
			return d.save(false), nil
		case key.Matches(msg, k.saveProject):
			return d.save(true), nil
		case key.Matches(msg, k.close, k.open): // nothing to open: enter closes
			return dialogAction{close: true}, nil
		}
	}
	return dialogAction{}, nil
}

// revoke drops the selected rule and says what happened in the
// transcript.
func (d *permissionsDialog) revoke() dialogAction {
	if len(d.perms) == 0 {
		return dialogAction{}
	}
	p := d.perms[d.nav.sel]
	if !d.policy.Revoke(p) {
		return dialogAction{notice: fmt.Sprintf("%s %s was already gone", p.Effect(), p.Rule)}
	}
	d.perms = d.policy.Permissions()
	d.nav.move(0, len(d.perms))
	var what string
	switch p.Source {
	case approval.FromSession:
		what = fmt.Sprintf("revoked the session rule %s", p.Rule)
	case approval.FromConfig:
		what = fmt.Sprintf("dropped the %s rule %s for this session; the config file still has it (tackle permissions revoke removes it there)", p.Effect(), p.Rule)
	case approval.FromClaude:
		what = fmt.Sprintf("dropped the %s rule %s for this session; the Claude Code settings file still has it", p.Effect(), p.Rule)
	default:
		what = fmt.Sprintf("dropped the %s rule %s (%s) for this session", p.Effect(), p.Rule, p.Origin)
	}
	if still := d.stillApplies(p); still != "" {
		what += "; it still applies from " + still
	}
	return dialogAction{notice: what}
}

// savable reports whether the selected rule can be saved to a config
// file: an allow rule of this session or of a flag.
func (d *permissionsDialog) savable() bool {
	if d.files == nil || len(d.perms) == 0 {
		return false
	}
	p := d.perms[d.nav.sel]
	return !p.Deny && !p.Ask && (p.Source == approval.FromSession || p.Source == approval.FromFlag)
}

// save saves the selected rule to the user's or the project's config
// file, where it applies from now on and in later sessions.
func (d *permissionsDialog) save(project bool) dialogAction {
	if !d.savable() {
		return dialogAction{}
	}
	if where, ok := ruleTarget(d.files, project, d.home); !ok {
		return dialogAction{notice: "cannot save a rule in the project's config: " + where}
	}
	return dialogAction{close: true, save: &ruleSave{project: project, rules: []string{d.perms[d.nav.sel].Rule.String()}}}
}

// stillApplies names another source of the same rule, if one is left.
func (d *permissionsDialog) stillApplies(p approval.Permission) string {
	for _, q := range d.perms {
		if q.Rule == p.Rule && q.Deny == p.Deny && q.Ask == p.Ask {
			return d.origin(q)
		}
	}
	return ""
}

// origin says where a rule came from, in a few words.
func (d *permissionsDialog) origin(p approval.Permission) string {
	switch p.Source {
	case approval.FromSession:
		return "this session (approve always)"
	case approval.FromConfig:
		return "config " + tildePath(p.Origin, d.home)
	case approval.FromFlag:
		return "flag " + p.Origin
	case approval.FromClaude:
		return "Claude Code " + tildePath(p.Origin, d.home)
	}
	return p.Source.String()
}

func (d *permissionsDialog) layout(_ *themes.Styles, width, height int) {
	d.width = width
	// The box's border, the title, a blank line, the help and the keys.
	d.nav.rows = max(height-8, 1)
	d.nav.move(0, len(d.perms))
}

func (d *permissionsDialog) view(st *themes.Styles) string {
	inner := max(d.width-4, 8)
	lines := []string{st.ModalTitle.Render("Permissions") + st.ModalHint.Render(" — deny wins over ask, ask over allow")}
	if len(d.perms) == 0 {
		lines = append(lines, prefixed(st.ModalReason.Render,
			"No allow or deny rules. a in an approval dialog adds a session rule; --allow, --deny and the config file's allow and deny add others.",
			inner, "", "")...)
	}
	ruleWidth := 0
	for _, p := range d.perms {
		ruleWidth = max(ruleWidth, ansi.StringWidth(p.Rule.String()))
	}
	ruleWidth = min(ruleWidth, inner/2)
	from, end := d.nav.shown(len(d.perms))
	for i := from; i < end; i++ {
		p := d.perms[i]
		mark, effect := "  ", p.Effect()
		if i == d.nav.sel {
			mark = st.ModalKey.Render("▸ ")
		}
		effect += strings.Repeat(" ", 6-len(effect))
		rule := plainText(p.Rule.String(), st.ControlChar)
		if w := ansi.StringWidth(rule); w < ruleWidth {
			rule += strings.Repeat(" ", ruleWidth-w)
		} else {
			rule = ansi.Truncate(rule, ruleWidth, "…")
		}
		effectStyle := st.ModalHint
		if p.Deny {
			effectStyle = st.Warn
		}
		line := mark + effectStyle.Render(effect) + rule + "  " + st.ModalReason.Render(plainText(d.origin(p), st.ControlChar))
		lines = append(lines, ansi.Truncate(line, inner, "…"))
	}
	if end < len(d.perms) || from > 0 {
		lines = append(lines, st.ModalHint.Render(fmt.Sprintf("rules %d–%d of %d", from+1, end, len(d.perms))))
	}
	lines = append(lines, "")
	lines = append(lines, prefixed(st.ModalHint.Render,
		"Session rules last for this session, also when it is continued (-c, --resume). Dropping a flag or config rule lasts for this session; tackle permissions revoke removes a rule from the config file.",
		inner, "", "")...)
	k := dialogKeys()
	var parts []string
	if len(d.perms) > 0 {
		parts = append(parts, hint(st, k.selectHint), hint(st, k.revoke))
	}
	if d.savable() {
		for _, t := range []struct {
			b       key.Binding
			project bool
		}{{k.saveUser, false}, {k.saveProject, true}} {
			if where, ok := ruleTarget(d.files, t.project, d.home); ok {
				parts = append(parts, hintAs(st, t.b, "save in "+where))
			}
		}
	}
	parts = append(parts, hint(st, k.close))
	lines = append(lines, flowParts(parts, "   ", inner)...)
	return box(st.ModalBorder, lines, d.width)
}

// tildePath shows a path under home with ~.
func tildePath(p, home string) string {
	if home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && rel != "." {
		return "~/" + rel
	}
	return p
}
