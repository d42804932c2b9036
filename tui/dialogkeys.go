package tui

import (
	"sync"

	"charm.land/bubbles/v2/key"

	"github.com/tackle-dev/tackle/themes"
)

// dialogKeyMap is every key the dialogs answer to, as data: a dialog
// matches its keys with key.Matches, and its hint line and /help's rows
// for the approval dialog are made from the same bindings, so that what a
// hint says is what the key does. (The global keys are the keymap of
// keymap.go, which a config's "keys" can rebind; these are fixed.)
type dialogKeyMap struct {
	// Moving through the approval dialog's body, a list or a pager.
	up, down, pageUp, pageDown, top, bottom key.Binding

	// The approval dialog (approvalHelp lists them in /help).
	approve, approveAll, always, deny, denyWhy, abort key.Binding
	// Its editor of a denial's reason.
	sendReason, back key.Binding
	// Where an "always" rule goes: this session, the user's config file,
	// the project's (also /permissions' keys that save a rule).
	forSession, saveUser, saveProject key.Binding

	// The question of a run an on_turn_end hook paused.
	goOn, stop key.Binding
	// The question before an undo overwrites files changed since.
	undoAnyway, keep key.Binding

	// A list (sessions, rules): open the entry, revoke it, close.
	open, revoke, close key.Binding
	// An overlay ("any key to close": /help, /status, /cost, /context):
	// these close it; any other key but its scrolling closes it and goes
	// on to the editor.
	dismiss key.Binding

	// The search of earlier prompts.
	older, newer, take, erase, clear, leave key.Binding

	// Hints that stand for several bindings at once.
	selectHint, olderNewerHint, typeHint key.Binding
}

// dialogKeys returns the dialogs' keys, made on first use.
var dialogKeys = sync.OnceValue(func() *dialogKeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &dialogKeyMap{
		up:       b("↑/k", "up", "up", "k"),
		down:     b("↓/j", "down", "down", "j"),
		pageUp:   b("pgup", "a page up", "pgup", "ctrl+b"),
		pageDown: b("pgdn", "a page down", "pgdown", "ctrl+f", "space"),
		top:      b("home/g", "top", "home", "g"),
		bottom:   b("end/G", "bottom", "end", "G"),

		approve:    b("y", "approve the call", "y"),
		approveAll: b("Y", "approve every call waiting, but those writing a protected path (asked on their own)", "Y"),
		always:     b("a", "approve, and allow calls like it: this session, or in a config file", "a", "A"),
		deny:       b("n, esc", "deny", "n", "N", "esc"),
		denyWhy:    b("d", "deny and tell the model why", "d", "D"),
		abort:      b("ctrl+c", "stop the run", "ctrl+c"),
		sendReason: b("enter", "deny with this reason", "enter"),
		back:       b("esc", "back", "esc"),

		forSession:  b("a, enter", "for this session (and when it is continued)", "a", "A", "enter"),
		saveUser:    b("u", "save it in your config file", "u", "U"),
		saveProject: b("p", "save it in the project's config file", "p", "P"),

		goOn:       b("y", "go on", "y", "enter"),
		stop:       b("n", "stop the run", "n", "esc", "ctrl+c"),
		undoAnyway: b("y", "undo anyway", "y"),
		keep:       b("n", "keep everything as it is", "n", "esc"),

		open:   b("enter", "resume", "enter"),
		revoke: b("d", "revoke for this session", "d", "x", "delete", "backspace"),
		close:  b("esc", "close", "esc", "q", "ctrl+c"),

		dismiss: b("esc/enter/q", "close", "esc", "enter", "q", "ctrl+c"),

		older: b("↑", "older", "up", "ctrl+r", "ctrl+p"),
		newer: b("↓", "newer", "down", "ctrl+s", "ctrl+n"),
		take:  b("enter", "edit it", "enter", "tab"),
		erase: b("backspace", "delete a character", "backspace"),
		clear: b("ctrl+u", "clear", "ctrl+u"),
		leave: b("esc", "cancel", "esc", "ctrl+c", "ctrl+g"),

		selectHint:     key.NewBinding(key.WithHelp("↑↓", "select")),
		olderNewerHint: key.NewBinding(key.WithHelp("↑↓ ctrl+r", "older/newer")),
		typeHint:       key.NewBinding(key.WithHelp("type", "filter")),
	}
})

// approvalHelp are /help's rows for the approval dialog.
func approvalHelp() [][2]string {
	k := dialogKeys()
	var rows [][2]string
	for _, b := range []key.Binding{k.approve, k.approveAll, k.always, k.deny, k.denyWhy, k.abort} {
		rows = append(rows, [2]string{b.Help().Key, b.Help().Desc})
	}
	return rows
}

// hint is a dialog's hint for b: its key, then what it does.
func hint(st *themes.Styles, b key.Binding) string {
	return hintAs(st, b, b.Help().Desc)
}

// hintAs is hint with what the key does said as desc (what it does to
// the call at hand: "approve once").
func hintAs(st *themes.Styles, b key.Binding, desc string) string {
	return st.ModalKey.Render(b.Help().Key) + " " + st.ModalHint.Render(desc)
}
