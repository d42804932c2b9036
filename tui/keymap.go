package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// binding is one global key of the UI: its action's name (what a user's
// keymap in the config file calls it), its keys and help, and what it
// does. run reports whether it handled the key; a key it leaves goes on to
// the transcript's scroll keys and then the editor. A binding without run
// is the editor's own (listed so that /help and README cover it).
type binding struct {
	action string
	key    key.Binding
	run    func(m *Model) (handled bool, cmd tea.Cmd)
}

// defaultKeymap is every key the UI handles outside dialogs, in the order
// /help and README list them. handleKey dispatches through it and nothing
// else, so the help cannot drift from what the keys do.
func defaultKeymap() []binding {
	bind := func(action, help string, run func(m *Model) (bool, tea.Cmd), keys ...string) binding {
		return binding{action: action, run: run, key: key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, ", "), help))}
	}
	return []binding{
		bind("send", "send the message (queued while a turn runs); after a \\ at the end, a new line; in the slash menu, run the chosen command", func(m *Model) (bool, tea.Cmd) {
			if m.menuAccept() || m.input.continueLine() {
				return true, nil
			}
			return true, m.submit()
		}, "enter"),
		bind("newline", "new line (so does shift+enter where the terminal reports it)", nil, "alt+enter", "ctrl+j"),
		bind("complete", "complete the command or file chosen in the menu", func(m *Model) (bool, tea.Cmd) { return m.completeCommand(), nil }, "tab"),
		bind("cycle-mode", "next approval mode: default → accept-edits → plan → default (yolo only with /mode)", func(m *Model) (bool, tea.Cmd) {
			return m.cycleMode(), nil
		}, "shift+tab"),
		bind("history-prev", "previous prompt (on the first line); in the slash menu, the entry above", func(m *Model) (bool, tea.Cmd) {
			return m.menuMove(-1) || (m.input.atFirstLine() && m.input.historyPrev()), nil
		}, "up", "ctrl+p"),
		bind("history-next", "next prompt (on the last line); in the slash menu, the entry below", func(m *Model) (bool, tea.Cmd) {
			return m.menuMove(1) || (m.input.atLastLine() && m.input.historyNext()), nil
		}, "down", "ctrl+n"),
		bind("history-search", "search earlier prompts, of this session and before", func(m *Model) (bool, tea.Cmd) {
			m.searchHistory()
			return true, nil
		}, "ctrl+r"),
		bind("interrupt", "leave the item cursor; else interrupt the turn; else close the menu or go back to the bottom of the transcript", func(m *Model) (bool, tea.Cmd) {
			switch {
			case m.focus >= 0: // the item cursor first, then the turn
				m.setFocus(-1)
			case m.running:
				m.interrupt()
			case m.closeMenu():
			case !m.transcript.atBottom():
				m.transcript.toBottom()
			}
			return true, nil
		}, "esc"),
		bind("cancel", "interrupt the turn; clear the editor; twice to quit", func(m *Model) (bool, tea.Cmd) { return true, m.ctrlC() }, "ctrl+c"),
		bind("quit", "quit (on an empty prompt)", func(m *Model) (bool, tea.Cmd) {
			if !m.input.empty() {
				return false, nil
			}
			return true, m.quit()
		}, "ctrl+d"),
		bind("expand", "expand / collapse the focused item, or all tool output and reasoning", func(m *Model) (bool, tea.Cmd) {
			if !m.toggleFocused() {
				m.toggleExpanded()
			}
			return true, nil
		}, "ctrl+o"),
		bind("focus-prev", "move the item cursor to the tool call or reasoning above; ctrl+o then expands only that one", func(m *Model) (bool, tea.Cmd) {
			return m.moveFocus(-1), nil
		}, "alt+up"),
		bind("focus-next", "move the item cursor down; esc leaves it", func(m *Model) (bool, tea.Cmd) {
			return m.moveFocus(1), nil
		}, "alt+down"),
		bind("page-up", "scroll the transcript up a page", scroller((*transcript).pageUp), "pgup"),
		bind("page-down", "scroll the transcript down a page", scroller((*transcript).pageDown), "pgdown"),
		bind("line-up", "scroll up a line (and the mouse wheel)", scroller(func(t *transcript) { t.scroll(-1) }), "ctrl+up", "shift+up"),
		bind("line-down", "scroll down a line", scroller(func(t *transcript) { t.scroll(1) }), "ctrl+down", "shift+down"),
		bind("top", "top of the transcript (empty prompt)", emptyScroller((*transcript).toTop), "home"),
		bind("bottom", "bottom of the transcript (empty prompt)", emptyScroller((*transcript).toBottom), "end"),
	}
}

// scroller is a transcript scroll key. In inline mode the terminal
// scrolls its own scrollback, so it does nothing there.
func scroller(f func(*transcript)) func(m *Model) (bool, tea.Cmd) {
	return func(m *Model) (bool, tea.Cmd) {
		if m.opts.Inline {
			return false, nil
		}
		f(&m.transcript)
		return true, nil
	}
}

// emptyScroller is a scroll key that moves the editor's cursor instead
// when the editor has text.
func emptyScroller(f func(*transcript)) func(m *Model) (bool, tea.Cmd) {
	s := scroller(f)
	return func(m *Model) (bool, tea.Cmd) {
		if !m.input.empty() {
			return false, nil
		}
		return s(m)
	}
}

// keymap returns the bindings with the user's keys (Options.Keys: action
// → keys) in place of the defaults.
func keymap(user map[string][]string) ([]binding, error) {
	km := defaultKeymap()
	if err := CheckKeys(user); err != nil {
		return nil, err
	}
	for i, b := range km {
		if keys, ok := user[b.action]; ok {
			km[i].key = key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, ", "), b.key.Help().Desc))
		}
	}
	return km, nil
}

// KeyActions are the names a config file's "keys" can rebind.
func KeyActions() []string {
	var out []string
	for _, b := range defaultKeymap() {
		out = append(out, b.action)
	}
	return out
}

// CheckKeys validates a user keymap (action → keys): every action must
// exist, have at least one key, and no key may do two things once the
// user's keys replace the defaults.
func CheckKeys(user map[string][]string) error {
	km := defaultKeymap()
	owner := map[string]string{}
	for _, b := range km {
		keys := b.key.Keys()
		if u, ok := user[b.action]; ok {
			keys = u
		}
		for _, k := range keys {
			if o, dup := owner[k]; dup {
				return fmt.Errorf("%q is bound to both %s and %s", k, o, b.action)
			}
			owner[k] = b.action
		}
	}
	for _, action := range slices.Sorted(maps.Keys(user)) {
		if !slices.ContainsFunc(km, func(b binding) bool { return b.action == action }) {
			return fmt.Errorf("unknown action %q; the actions are %s", action, strings.Join(KeyActions(), ", "))
		}
		if len(user[action]) == 0 {
			return fmt.Errorf("%s has no key", action)
		}
	}
	return nil
}

// helpKeyRows are /help's rows of keys, from the keymap.
func helpKeyRows(km []binding) [][2]string {
	rows := make([][2]string, 0, len(km))
	for _, b := range km {
		h := b.key.Help()
		rows = append(rows, [2]string{h.Key, h.Desc})
	}
	return rows
}

// toggleExpanded shows tool output and reasoning in full, or folds them.
func (m *Model) toggleExpanded() {
	m.expanded = !m.expanded
	for _, e := range m.transcript.entries {
		switch e.(type) {
		case *toolEntry, *thinkingEntry:
			e.base().touch()
		}
	}
}

// KeyHelp is the default keymap as /help lists it: each binding's keys
// and what it does (README's key table is checked against it).
func KeyHelp() [][2]string { return helpKeyRows(defaultKeymap()) }
