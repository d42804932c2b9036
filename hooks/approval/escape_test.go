package approval

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// A bash call asking to leave the sandbox (outside_sandbox, or network
// where the sandbox has none) asks in every mode, yolo included, whatever
// allow rules, session rules or an earlier "always" say; plan mode skips
// it; "always" offers no rule for it. Without a sandbox the fields change
// nothing.
func TestEscapesFromTheSandboxAlwaysAsk(t *testing.T) {
	t.Parallel()
	call := func(args string) chat.ToolCall {
		return chat.ToolCall{ID: "c", Name: ShellTool, Arguments: args}
	}
	outside := call(`{"command":"ls -la","outside_sandbox":true}`)
	network := call(`{"command":"go mod download","network":true}`)
	plain := call(`{"command":"ls -la"}`)
	for _, mode := range []Mode{Default, AcceptEdits, Yolo} {
		p := mustPolicy(t, mode, []string{"bash(ls *)", "bash(go mod *)"}, nil, WithSandbox(true))
		p.Remember(outside) // an earlier "always" on the same command
		for _, c := range []chat.ToolCall{outside, network} {
			if got := p.Decide(c); got.Action != hooks.ToolPause || !strings.Contains(got.Reason, "asking in every mode") {
				t.Errorf("%s: %s = %+v, want a pause", mode, c.Arguments, got)
			}
			if rules := p.AlwaysRules(c); rules != nil {
				t.Errorf("%s: always offers %v for a way out of the sandbox", mode, rules)
			}
		}
		if got := p.Decide(plain); got.Action != cont {
			t.Errorf("%s: the same command in the sandbox = %+v, want it to run", mode, got)
		}
	}
	p := mustPolicy(t, Plan, nil, nil, WithSandbox(true))
	if got := p.Decide(outside); got.Action != hooks.ToolSkip {
		t.Errorf("plan mode: %+v, want skipped", got)
	}
	// The sandbox lets every command reach the network: no asking for it.
	p = mustPolicy(t, Default, nil, nil, WithSandbox(true), WithSandboxNetwork(true))
	if got := p.Decide(call(`{"command":"ls","network":true}`)); got.Action != cont {
		t.Errorf("network with sandbox_network on = %+v", got)
	}
	// No sandbox: the fields change nothing (the policy alone holds).
	p = mustPolicy(t, Yolo, nil, nil)
	if got := p.Decide(outside); got.Action != cont {
		t.Errorf("yolo without a sandbox = %+v", got)
	}
}
