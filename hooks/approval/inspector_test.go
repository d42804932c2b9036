package approval

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// builtins is tackle's real tool registry, on an empty workspace: the
// policy learns the tools' kinds from it, as it does in tackle.
var builtins *tools.Registry

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "approval-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ws.Close()
	builtins = tools.NewRegistry(ws)
	return m.Run()
}

// inspector is what the policy learns about calls in these tests: the
// kind and typed arguments from the real registry, and as resolved paths
// what resolve gives (none when it is nil), standing in for a
// workspace's symbolic links. The calls of these tests give only the
// arguments the policy reads (a path, a command), so resolve applies to
// calls the tool would refuse too.
type inspector struct {
	resolve func(chat.ToolCall) []string
}

func (in inspector) Inspect(call chat.ToolCall) (tools.CallInfo, error) {
	info, err := builtins.Inspect(call)
	info.Paths, info.Refused = nil, nil
	if in.resolve != nil {
		info.Paths = in.resolve(call)
	}
	return info, err
}

// withLinks makes the policy take the resolved paths of a call from
// resolve.
func withLinks(resolve func(chat.ToolCall) []string) Option {
	return func(p *Policy) { p.inspector = inspector{resolve: resolve} }
}

// TestKindFromTheTool: the policy treats a call by the kind its tool
// declares, whatever its name; a tool with no kind, an unknown tool and a
// policy with no inspector are treated as running commands.
func TestKindFromTheTool(t *testing.T) {
	dir := t.TempDir()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tools.NewRegistry(ws)
	for name, kind := range map[string]tools.Kind{
		"lookup": tools.KindRead, "patch": tools.KindEdit, "fetch": tools.KindNetwork, "nokind": 0,
	} {
		err := reg.Add(tools.New(name, "A tool.", kind, func(context.Context, struct {
			Path string `json:"path,omitempty"`
		}) (tools.Result, error) {
			return tools.OK(""), nil
		}, nil))
		if err != nil {
			t.Fatal(err)
		}
	}
	call := func(name string) chat.ToolCall {
		return chat.ToolCall{ID: "c", Name: name, Arguments: `{"path":"notes.txt"}`}
	}
	want := map[Mode]map[string]hooks.PreToolAction{
		Default:     {"lookup": cont, "patch": pause, "fetch": pause, "nokind": pause, "mcp__x__y": pause, "read_file": cont},
		AcceptEdits: {"lookup": cont, "patch": cont, "fetch": pause, "nokind": pause, "mcp__x__y": pause, "read_file": cont},
		Plan:        {"lookup": cont, "patch": skip, "fetch": skip, "nokind": skip, "mcp__x__y": skip, "read_file": cont},
	}
	for mode, byTool := range want {
		p := New(mode, reg)
		for name, action := range byTool {
			if got := p.Decide(call(name)); got.Action != action {
				t.Errorf("mode %s, %s: got %s (%q), want %s", mode, name, actionNames[got.Action], got.Reason, actionNames[action])
			}
		}
	}
	// Without an inspector nothing is known to only read.
	if got := New(Default, nil).Decide(call("read_file")); got.Action != pause {
		t.Errorf("no inspector, read_file: got %s, want Pause", actionNames[got.Action])
	}
	// Arguments the tool refuses do not change its kind.
	bad := chat.ToolCall{ID: "c", Name: "read_file", Arguments: `{"path":"x","bogus":1}`}
	if got := New(Default, reg).Decide(bad); got.Action != cont {
		t.Errorf("read_file with bad arguments: got %s (%q), want Continue", actionNames[got.Action], got.Reason)
	}
}
