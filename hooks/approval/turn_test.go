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

// TestTurnRuleNoWiderThanWritten (red team): a custom command's
// bash(git *) covers git's reading subcommands, not the options and
// subcommands that run code or write files; the turn's fetch rule
// covers its host only.
func TestTurnRuleNoWiderThanWritten(t *testing.T) {
	root := protectedTree(t)
	p := mustPolicy(t, Default, nil, nil, WithWorkspace(root))
	p.SetTurnRules("/ship", mustRules(t, "bash(git *)", "fetch(domain:*.go.dev)"))
	for _, cmd := range []string{
		"git -c core.pager='sh -c id' log",
		"git -c core.sshCommand=id fetch",
		"git -c alias.x='!id' x",
		"git --exec-path=. status",
		"git --config-env=core.pager=X log",
		"git -C /tmp status",
		"git --git-dir=/tmp/x status",
		"git --work-tree=/ status",
		"git config core.fsmonitor id",
		"git diff --output=x",
		"git log --output=../x",
		"git ${X} status",
		"GIT_PAGER=id git log",
		"GIT_EXTERNAL_DIFF=id git diff",
		"git status; touch x",
		"git submodule foreach id",
		"git bisect run id",
		"git rebase --exec id HEAD~1",
		"git filter-branch --tree-filter id",
		"git difftool -x id",
		"git grep --open-files-in-pager=id x",
		"git fetch --upload-pack=id origin",
		"git archive --remote=x --exec=id HEAD",
	} {
		if got := p.Decide(bashCall(cmd)); got.Action == cont {
			t.Errorf("bash(git *) as a turn rule allowed %q: %q", cmd, got.Reason)
		}
	}
	if got := p.Decide(bashCall("git log --oneline")); got.Action != cont {
		t.Errorf("bash(git *) did not allow git log: %s %q", actionNames[got.Action], got.Reason)
	}
	for _, u := range []string{"https://go.dev/", "https://evilgo.dev/", "https://go.dev.evil.com/", "https://x.go.dev@evil.com/", "https://evil.com/?x.go.dev", "https://evil.com#.go.dev", "http://127.0.0.1/.go.dev"} {
		c := chat.ToolCall{ID: "f", Name: "fetch", Arguments: `{"url":"` + u + `"}`}
		if got := p.Decide(c); got.Action == cont {
			t.Errorf("fetch(domain:*.go.dev) as a turn rule allowed %s: %q", u, got.Reason)
		}
	}
	c := chat.ToolCall{ID: "f", Name: "fetch", Arguments: `{"url":"https://pkg.go.dev/x"}`}
	if got := p.Decide(c); got.Action != cont {
		t.Errorf("fetch(domain:*.go.dev) did not allow pkg.go.dev: %s %q", actionNames[got.Action], got.Reason)
	}
	if !p.FollowsRedirect("https://pkg.go.dev/y") || p.FollowsRedirect("https://evil.com/") {
		t.Error("redirects under the turn rule")
	}
	p.ClearTurnRules()
	if p.FollowsRedirect("https://pkg.go.dev/y") {
		t.Error("a redirect is followed under a turn rule that ended")
	}
}
