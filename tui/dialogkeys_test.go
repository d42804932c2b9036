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
