package approval

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// mcpInspector knows two MCP servers' tools besides the built-ins:
// github's get_issue (read-only, as the server says) and delete_repo,
// and github_evil's get_issue.
type mcpInspector struct{}

func (mcpInspector) Inspect(call chat.ToolCall) (tools.CallInfo, error) {
	switch call.Name {
	case "mcp__github__get_issue":
		return tools.CallInfo{Tool: call.Name, Kind: tools.KindRead, Server: "github"}, nil
	case "mcp__github__delete_repo":
		return tools.CallInfo{Tool: call.Name, Kind: tools.KindExec, Server: "github"}, nil
	case "mcp__github_evil__get_issue":
		return tools.CallInfo{Tool: call.Name, Kind: tools.KindRead, Server: "github_evil"}, nil
	}
	return inspector{}.Inspect(call)
}

func (mcpInspector) Lookup(name string) (*tools.Tool, bool) { return builtins.Lookup(name) }

func mcpPolicy(t *testing.T, mode Mode, allow, deny []string) *Policy {
	t.Helper()
	a, d, err := Rules{Allow: allow, Deny: deny}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	return New(mode, mcpInspector{}, WithRules(a, d))
}

var (
	getIssue   = chat.ToolCall{ID: "1", Name: "mcp__github__get_issue", Arguments: `{"number":7,"path":".env"}`}
	deleteRepo = chat.ToolCall{ID: "2", Name: "mcp__github__delete_repo", Arguments: `{"repo":"tackle"}`}
	evilIssue  = chat.ToolCall{ID: "3", Name: "mcp__github_evil__get_issue", Arguments: `{}`}
)

// TestMCPToolsAskByDefault: an MCP tool asks in the default and
// accept-edits modes even when its server calls it read-only (an
// annotation is a hint from the server, not a fact tackle checked).
func TestMCPToolsAskByDefault(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{Default, AcceptEdits} {
		p := mcpPolicy(t, mode, nil, nil)
		for _, c := range []chat.ToolCall{getIssue, deleteRepo} {
			if got := p.Decide(c); got.Action != pause {
				t.Errorf("%s, %s: %s %q", mode, c.Name, actionNames[got.Action], got.Reason)
			}
		}
	}
	got := mcpPolicy(t, Default, nil, nil).Decide(deleteRepo)
	if want := `the MCP server github's tool mcp__github__delete_repo wants to run with {"repo":"tackle"}`; got.Reason != want {
		t.Errorf("reason %q, want %q", got.Reason, want)
	}
	if got := mcpPolicy(t, Default, nil, nil).Decide(getIssue); !strings.Contains(got.Reason, "(read-only, the server says)") {
		t.Errorf("reason %q", got.Reason)
	}
	if got := mcpPolicy(t, Yolo, nil, nil).Decide(deleteRepo); got.Action != cont {
		t.Errorf("yolo: %s", actionNames[got.Action])
	}
}

// TestMCPPlanMode: plan mode runs the tools the server marks read-only
// (they still ask) and skips the others.
func TestMCPPlanMode(t *testing.T) {
	t.Parallel()
	p := mcpPolicy(t, Plan, []string{"mcp__github__*"}, nil)
	if got := p.Decide(deleteRepo); got.Action != skip || !strings.Contains(got.Reason, "plan mode is read-only") {
		t.Errorf("delete_repo in plan mode: %s %q", actionNames[got.Action], got.Reason)
	}
	if got := p.Decide(getIssue); got.Action != cont {
		t.Errorf("an allowed read-only tool in plan mode: %s %q", actionNames[got.Action], got.Reason)
	}
	if got := mcpPolicy(t, Plan, nil, nil).Decide(getIssue); got.Action != pause {
		t.Errorf("a read-only tool in plan mode without a rule: %s", actionNames[got.Action])
	}
}

// TestMCPRules: rules name a tool, a server's tools by glob, or a whole
// server, and never reach another server whose name starts the same.
func TestMCPRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		allow, deny []string
		call        chat.ToolCall
		want        string
	}{
		{[]string{"mcp__github__get_issue"}, nil, getIssue, "Continue"},
		{[]string{"mcp__github__get_issue"}, nil, deleteRepo, "Pause"},
		{[]string{"mcp__github__*"}, nil, deleteRepo, "Continue"},
		{[]string{"mcp__github__get_*"}, nil, getIssue, "Continue"},
		{[]string{"mcp__github__get_*"}, nil, deleteRepo, "Pause"},
		{[]string{"mcp__github"}, nil, deleteRepo, "Continue"},
		// Another server whose name starts with github: not covered.
		{[]string{"mcp__github", "mcp__github__*"}, nil, evilIssue, "Pause"},
		{nil, []string{"mcp__github__delete_repo"}, deleteRepo, "Skip"},
		{[]string{"mcp__github__*"}, []string{"mcp__github__delete_*"}, deleteRepo, "Skip"},
		{[]string{"mcp__github__*"}, []string{"mcp__github"}, getIssue, "Skip"},
		{nil, []string{"mcp__*"}, evilIssue, "Skip"},
		{nil, []string{"mcp__github"}, evilIssue, "Pause"},
		// Rules about built-in tools do not reach MCP tools, and the
		// other way round: a path argument is not a workspace path.
		{[]string{"bash", "read_file", "edit_file"}, nil, getIssue, "Pause"},
		{nil, []string{"read_file(.env)"}, getIssue, "Pause"},
		{[]string{"mcp__github__*"}, nil, fileCall("read_file", ".env"), "Continue"},
		{[]string{"mcp__*"}, nil, bashCall("rm -rf x"), "Pause"},
	}
	for _, c := range cases {
		got := mcpPolicy(t, Default, c.allow, c.deny).Decide(c.call)
		if actionNames[got.Action] != c.want {
			t.Errorf("allow %v deny %v, %s: %s (%q), want %s", c.allow, c.deny, c.call.Name, actionNames[got.Action], got.Reason, c.want)
		}
	}
}

// TestMCPRuleSyntax: MCP rules take no pattern, and a malformed name is
// an error.
func TestMCPRuleSyntax(t *testing.T) {
	t.Parallel()
	for _, good := range []string{"mcp__github", "mcp__github__get_issue", "mcp__github__*", "mcp__*", "mcp__GitHub__getIssue"} {
		if _, err := ParseRule(good); err != nil {
			t.Errorf("ParseRule(%q): %v", good, err)
		}
	}
	for _, bad := range []string{"mcp__", "mcp__github__get_issue(42)", "mcp__git hub", "mcp__a/b", "mcp__x__[a]"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
}

// TestMCPAlwaysNeverWiderThanTheCall: approving an MCP call "always"
// gives a rule only for a call without arguments (tackle cannot scope
// them), and never a glob or the whole server.
func TestMCPAlwaysNeverWiderThanTheCall(t *testing.T) {
	t.Parallel()
	p := mcpPolicy(t, Default, nil, nil)
	if got := p.AlwaysRules(getIssue); len(got) != 0 {
		t.Errorf("always for a call with arguments: %v", got)
	}
	if got := p.AlwaysRules(chat.ToolCall{Name: "mcp__github__get_issue", Arguments: "{}"}); len(got) != 1 || got[0].String() != "mcp__github__get_issue" {
		t.Errorf("always for a call without arguments: %v", got)
	}
}
