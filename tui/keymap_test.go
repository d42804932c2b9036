package tui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestHelpListsTheKeymap: /help's key section is exactly the keymap's
// bindings, each with its keys and what it does, and no key is bound
// twice: handleKey dispatches through the same keymap, so the two cannot
// drift.
func TestHelpListsTheKeymap(t *testing.T) {
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 200, Height: 80})
	h.typeText("/help").keys("enter")
	d, ok := h.m.dialogs[len(h.m.dialogs)-1].(*helpDialog)
	if !ok {
		t.Fatal("/help opened no help dialog")
	}
	if !slices.Equal(d.keys, helpKeyRows(h.m.keys)) {
		t.Errorf("help rows %q\nkeymap %q", d.keys, helpKeyRows(h.m.keys))
	}
	text := ansi.Strip(strings.Join(d.lines, "\n"))
	seen := map[string]string{}
	for _, b := range h.m.keys {
		hk := b.key.Help()
		if hk.Key == "" || hk.Desc == "" || len(b.key.Keys()) == 0 {
			t.Errorf("binding %s has no keys or help", b.action)
		}
		if !strings.Contains(text, hk.Key) || !strings.Contains(strings.Join(strings.Fields(text), " "), strings.Fields(hk.Desc)[0]) {
			t.Errorf("/help lacks %s (%q)", b.action, hk.Key)
		}
		for _, k := range b.key.Keys() {
			if o, dup := seen[k]; dup {
				t.Errorf("%q is bound to %s and %s", k, o, b.action)
			}
			seen[k] = b.action
		}
	}
}

// TestKeymapDispatch: every key of every binding that acts, pressed as
// Bubble Tea delivers it, reaches that binding's action through
// handleKey (no key is shadowed by another binding or handled elsewhere).
func TestKeymapDispatch(t *testing.T) {
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	var got string
	for i := range h.m.keys {
		action := h.m.keys[i].action
		if h.m.keys[i].run != nil {
			h.m.keys[i].run = func(*Model) (bool, tea.Cmd) { got = action; return true, nil }
		}
	}
	for _, b := range defaultKeymap() {
		if b.run == nil {
			continue // the editor's own key
		}
		for _, k := range b.key.Keys() {
			got = ""
			h.keys(k)
			if got != b.action {
				t.Errorf("%q reached %q, want %q", k, got, b.action)
			}
		}
	}
}

// TestUserKeymap: a config's keys replace an action's keys (and its help);
// an unknown action, an action without keys or a key bound twice is an
// error naming it.
func TestUserKeymap(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Keys = map[string][]string{"expand": {"ctrl+e"}} })
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.keys("ctrl+e")
	if !h.m.expanded {
		t.Error("the rebound key did not expand")
	}
	h.keys("ctrl+o")
	if !h.m.expanded {
		t.Error("the default key still works after the rebinding")
	}
	if rows := helpKeyRows(h.m.keys); !slices.Contains(rows, [2]string{"ctrl+e", "expand / collapse the focused item, or all tool output and reasoning"}) {
		t.Errorf("/help does not show the user's key: %q", rows)
	}
	for _, tc := range []struct {
		keys map[string][]string
		want string
	}{
		{map[string][]string{"explode": {"ctrl+x"}}, `unknown action "explode"`},
		{map[string][]string{"expand": {}}, "expand has no key"},
		{map[string][]string{"expand": {"ctrl+r"}}, `"ctrl+r" is bound to both`},
	} {
		if err := CheckKeys(tc.keys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckKeys(%v) = %v, want %q", tc.keys, err, tc.want)
		}
	}
}

// TestSlashMenu: typing "/" opens the menu of commands, typing filters it,
// up/down choose, tab completes, enter runs (or completes a command that
// takes an argument), esc closes it.
func TestSlashMenu(t *testing.T) {
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.typeText("/")
	if n := len(h.m.menuItems()); n != len(slashCommands()) {
		t.Fatalf("the menu offers %d commands for /, want all %d", n, len(slashCommands()))
	}
	h.typeText("mo")
	var names []string
	for _, c := range h.m.menuItems() {
		names = append(names, c.label)
	}
	if !slices.Equal(names, []string{"/mode [mode]", "/model [name]"}) {
		t.Fatalf("menu for /mo = %q", names)
	}
	if screen := h.screen(); !strings.Contains(screen, "/model [name]") || !strings.Contains(screen, "switch the model") {
		t.Errorf("the menu does not show:\n%s", screen)
	}
	h.keys("down", "tab")
	if v := h.m.input.value(); v != "/model " {
		t.Errorf("tab completed to %q, want %q", v, "/model ")
	}
	if len(h.m.menuItems()) != 0 {
		t.Error("the menu stays open once an argument is being typed")
	}
	h.m.input.setValue("")
	h.typeText("/he").keys("enter")
	if _, ok := h.m.dialogs[len(h.m.dialogs)-1].(*helpDialog); !ok {
		t.Error("enter on /he did not run /help")
	}
	h.keys("esc")
	h.m.input.setValue("")
	h.typeText("/th").keys("enter")
	if v := h.m.input.value(); v != "/theme " {
		t.Errorf("enter on /th = %q, want it completed to wait for the argument", v)
	}
	h.m.input.setValue("")
	h.typeText("/q").keys("esc")
	if len(h.m.menuItems()) != 0 || h.m.input.value() != "/q" {
		t.Errorf("esc did not close the menu (text %q)", h.m.input.value())
	}
}

func TestGoldenSlashMenu(t *testing.T) {
	for _, w := range []int{80, 60} {
		h := newHarness(t)
		h.send(tea.WindowSizeMsg{Width: w, Height: 16})
		h.typeText("/c")
		golden(t, "slash_menu_"+itoa(w)+"x16", h.screen())
	}
}
