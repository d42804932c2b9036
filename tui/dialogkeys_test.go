package tui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// TestDialogKeysAreOneEach: within a dialog no key does two things, and
// every binding a dialog matches has a key and a hint.
func TestDialogKeysAreOneEach(t *testing.T) {
	k := dialogKeys()
	nav := []key.Binding{k.up, k.down, k.pageUp, k.pageDown, k.top, k.bottom}
	for name, set := range map[string][]key.Binding{
		"approval":      append([]key.Binding{k.approve, k.approveAll, k.always, k.deny, k.denyWhy, k.abort}, nav...),
		"reason editor": {k.sendReason, k.back, k.abort},
		"turn pause":    {k.goOn, k.stop},
		"undo":          {k.undoAnyway, k.keep},
		"session list":  append([]key.Binding{k.open, k.close}, nav...),
		"rule list":     append([]key.Binding{k.revoke, k.close, k.open}, nav...),
		"prompt search": {k.older, k.newer, k.take, k.erase, k.clear, k.leave},
		"overlay":       append([]key.Binding{k.dismiss}, nav...),
	} {
		owner := map[string]string{}
		for _, b := range set {
			h := b.Help()
			if len(b.Keys()) == 0 || h.Key == "" || h.Desc == "" {
				t.Errorf("%s: a binding without keys or help: %q %+v", name, b.Keys(), h)
			}
			for _, key := range b.Keys() {
				if o, dup := owner[key]; dup {
					t.Errorf("%s: %q both %s and %s", name, key, o, h.Desc)
				}
				owner[key] = h.Desc
			}
		}
	}
}

// TestHelpListsTheApprovalKeys: /help's approval rows are the approval
// dialog's bindings.
func TestHelpListsTheApprovalKeys(t *testing.T) {
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 60})
	h.typeText("/help").keys("enter")
	screen := h.screen()
	for _, row := range approvalHelp() {
		if !strings.Contains(screen, row[0]) || !strings.Contains(screen, row[1]) {
			t.Errorf("/help lacks the approval row %q", row)
		}
	}
}

// TestOverlaysPassTypedKeysOn: an "any key" overlay (/status, /cost,
// /help, /context) closes on esc, enter or q without a trace in the
// editor; any other key closes it and goes on to the editor, so /cost
// typed right after /status is /cost, not cost.
func TestOverlaysPassTypedKeysOn(t *testing.T) {
	for _, open := range []string{"/status", "/help"} {
		for _, closer := range []string{"esc", "enter", "q"} {
			h := newHarness(t)
			h.typeText(open).keys("enter")
			if len(h.m.dialogs) != 1 {
				t.Fatalf("%s opened %d dialogs", open, len(h.m.dialogs))
			}
			h.keys(closer)
			if len(h.m.dialogs) != 0 || h.m.input.value() != "" || len(h.agent.runs) != 0 {
				t.Errorf("%s closed with %s: %d dialogs, editor %q, runs %q", open, closer, len(h.m.dialogs), h.m.input.value(), h.agent.runs)
			}
		}
		h := newHarness(t)
		h.typeText(open).keys("enter")
		h.typeText("/cost")
		if got := h.m.input.value(); len(h.m.dialogs) != 0 || got != "/cost" {
			t.Fatalf("typing /cost after %s left %d dialogs and %q in the editor", open, len(h.m.dialogs), got)
		}
		h.keys("enter")
		if len(h.agent.runs) != 0 || !strings.Contains(h.screen(), "no model request yet") {
			t.Errorf("enter after %s and /cost: runs %q; want /cost's answer:\n%s", open, h.agent.runs, h.screen())
		}
		h = newHarness(t)
		h.typeText(open).keys("enter")
		h.typeText("jk x")
		if len(h.m.dialogs) != 0 || h.m.input.value() != "jk x" {
			t.Errorf("after %s, typing jk x left %d dialogs and %q in the editor", open, len(h.m.dialogs), h.m.input.value())
		}
	}
}
