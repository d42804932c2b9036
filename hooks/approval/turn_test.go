package approval

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// A custom command's allowed-tools (turn rules), attacked: they allow
// what they cover while the turn runs and nothing past what an allow
// rule may never open by being wide — a protected path, a way out of the
// sandbox, a private address — and deny rules, ask rules and plan mode
// hold over them.
func TestTurnRules(t *testing.T) {
	root := protectedTree(t)
	turn := mustRules(t, "edit_file(.git/config)", "write_file(notes.md)", "bash(git status *)", "bash(curl *)", "bash(rm *)", "fetch(domain:localhost)")
	p := mustPolicy(t, Default, nil, []string{"bash(rm *)"}, WithWorkspace(root), WithSandbox(true))
	before := p.Decide(fileCall("write_file", "notes.md"))
	p.SetTurnRules("/ship", turn)
	for _, tc := range []struct {
		call   chat.ToolCall
		want   string
		reason string
	}{
		{fileCall("write_file", "notes.md"), "Continue", "allowed by write_file(notes.md) (allowed-tools of /ship)"},
		{bashCall("git status --short"), "Continue", "allowed-tools of /ship"},
		// Each command of the program must be covered.
		{bashCall("git status && touch x"), "Pause", ""},
		// A protected path asks though a turn rule names it exactly (an
		// allow rule naming it would let it through).
		{fileCall("edit_file", ".git/config"), "Pause", "protected"},
		// A way out of the sandbox asks.
		{chat.ToolCall{ID: "c", Name: "bash", Arguments: `{"command":"curl https://x.example","network":true}`}, "Pause", "reach the network"},
		// A deny rule wins.
		{bashCall("rm -rf build"), "Skip", "denied by the rule bash(rm *)"},
	} {
		got := p.Decide(tc.call)
		if actionNames[got.Action] != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s %s: %s %q, want %s %q", tc.call.Name, tc.call.Arguments, actionNames[got.Action], got.Reason, tc.want, tc.reason)
		}
	}
	if p.NamesHost("localhost") {
		t.Error("a turn rule opens localhost's address to fetch")
	}
	if rules := p.SessionRules(); len(rules) != 0 {
		t.Errorf("turn rules became session rules: %v", rules)
	}
	p.SetMode(Plan)
	if got := p.Decide(fileCall("write_file", "notes.md")); got.Action != skip {
		t.Errorf("plan mode: %s %q", actionNames[got.Action], got.Reason)
	}
	p.SetMode(Default)
	p.ClearTurnRules()
	if got := p.Decide(fileCall("write_file", "notes.md")); got.Action != before.Action || got.Action != pause {
		t.Errorf("after the turn: %s %q", actionNames[got.Action], got.Reason)
	}
	// The same exact rule configured does open the protected path: the
	// turn rule's refusal is its own.
	q := mustPolicy(t, Default, []string{"edit_file(.git/config)"}, nil, WithWorkspace(root))
	if got := q.Decide(fileCall("edit_file", ".git/config")); got.Action != cont {
		t.Errorf("a configured exact rule: %s %q", actionNames[got.Action], got.Reason)
	}
}
