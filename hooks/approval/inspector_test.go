package approval

import (
	"context"
	"fmt"
	"os"
	"strings"
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
// kind, access, typed arguments and paths as sent from the real
// registry, and as resolved paths
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

func (inspector) Lookup(name string) (*tools.Tool, bool) { return builtins.Lookup(name) }

// registryOn is tackle's real tool registry on the workspace dir.
func registryOn(t *testing.T, dir string) *tools.Registry {
	t.Helper()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return tools.NewRegistry(ws)
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
	reg := registryOn(t, t.TempDir())
	for name, kind := range map[string]tools.Kind{
		"lookup": tools.KindRead, "patch": tools.KindEdit, "netget": tools.KindNetwork, "nokind": 0,
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
		Default:     {"lookup": cont, "patch": pause, "netget": pause, "nokind": pause, "mcp__x__y": pause, "read_file": cont},
		AcceptEdits: {"lookup": cont, "patch": cont, "netget": pause, "nokind": pause, "mcp__x__y": pause, "read_file": cont},
		// A network tool changes nothing in the workspace: plan mode asks.
		Plan: {"lookup": cont, "patch": skip, "netget": pause, "nokind": skip, "mcp__x__y": skip, "read_file": cont},
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

// viewArgs, patchArgs and namesArgs are the arguments of the file tools
// TestAccessFromTheTool defines: a path, reached as Access says;
// lookupArgs declare no paths.
type (
	viewArgs struct {
		Path string `json:"path"`
	}
	patchArgs  viewArgs
	namesArgs  viewArgs
	lookupArgs viewArgs
)

func (a viewArgs) Paths() []string     { return []string{a.Path} }
func (viewArgs) Access() tools.Access  { return tools.ReadsFiles }
func (a patchArgs) Paths() []string    { return []string{a.Path} }
func (patchArgs) Access() tools.Access { return tools.EditsFiles }
func (a namesArgs) Paths() []string    { return []string{a.Path} }
func (namesArgs) Access() tools.Access { return tools.ListsNames }

func newFileTool[A any](name string, kind tools.Kind) *tools.Tool {
	return tools.New(name, "A tool.", kind, func(context.Context, A) (tools.Result, error) { return tools.OK(""), nil }, nil)
}

// TestAccessFromTheTool: a file tool the policy has never heard of is
// judged by the access it declares, like the built-in tool reaching paths
// the same way: path rules apply to it and its rules to the built-ins,
// protected paths ask when it edits. A tool that declares no paths
// cannot be held against a path pattern, so such a deny rule makes it
// ask; and with no inspector the policy sees no paths or command, so a
// deny rule with a pattern makes every call ask, in yolo too.
func TestAccessFromTheTool(t *testing.T) {
	dir := t.TempDir()
	reg := registryOn(t, dir)
	for _, tool := range []*tools.Tool{
		newFileTool[viewArgs]("view", tools.KindRead), newFileTool[patchArgs]("patch", tools.KindEdit),
		newFileTool[namesArgs]("names", tools.KindRead), newFileTool[lookupArgs]("lookup", tools.KindRead),
	} {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	policy := func(mode Mode, allow, deny []string) *Policy {
		a, d, err := Rules{Allow: allow, Deny: deny}.Parse()
		if err != nil {
			t.Fatal(err)
		}
		return New(mode, reg, WithRules(a, d), WithWorkspace(dir))
	}
	tests := []decision{
		{Default, nil, []string{"read_file(.env)"}, fileCall("view", ".env"), skip, "denied by the rule read_file(.env): .env"},
		{Default, nil, []string{"view(.env)"}, fileCall("read_file", ".env"), skip, "denied by the rule view(.env)"},
		{Default, nil, []string{"view(.env)"}, fileCall("grep", ".env"), skip, "view(.env)"},
		{Default, nil, []string{"view(.env)"}, fileCall("names", ".env"), cont, ""}, // names only
		{Default, nil, []string{"glob(secret/**)"}, fileCall("names", "secret/x"), skip, "glob(secret/**)"},
		{Default, nil, []string{"names(secret/**)"}, fileCall("list_dir", "secret/a"), skip, "names(secret/**)"},
		{Default, nil, []string{"names(secret/**)"}, fileCall("read_file", "secret/a"), cont, ""},                     // reading is not listing
		{AcceptEdits, nil, []string{"read_file(notes.md)"}, fileCall("patch", "notes.md"), cont, "accept-edits mode"}, // writing is not reading
		{Default, []string{"edit_file(docs/**)"}, nil, fileCall("patch", "docs/a.md"), cont, "allowed by edit_file(docs/**)"},
		{Default, []string{"patch(docs/**)"}, nil, fileCall("write_file", "docs/a.md"), cont, "allowed by patch(docs/**)"},
		{Default, []string{"patch(docs/**)"}, nil, fileCall("read_file", "secret"), cont, ""},
		{Yolo, nil, nil, fileCall("patch", ".git/config"), pause, ".git/config is protected"},
		{Yolo, []string{"write_file(.git/config)"}, nil, fileCall("patch", ".git/config"), cont, "allowed by write_file(.git/config)"},
		{Yolo, nil, []string{"edit_file(.git/**)"}, fileCall("patch", ".git/config"), skip, "edit_file(.git/**)"},
		// lookup names no paths it declares.
		{Yolo, nil, []string{"lookup(secret)"}, fileCall("lookup", "secret"), pause, "cannot tell which paths lookup names, to check it against the deny rule lookup(secret)"},
		{Yolo, nil, []string{"read_file(secret)"}, fileCall("lookup", "secret"), cont, ""},
		{Default, []string{"lookup(secret)"}, nil, fileCall("lookup", "secret"), cont, ""}, // a reader
	}
	checkDecisions(t, tests, policy)
	// "Approve always" of the new file tools names the path.
	for name, want := range map[string]string{"view": "view(notes.md)", "patch": "patch(notes.md)", "lookup": ""} {
		var rules []string
		for _, r := range policy(Default, nil, nil).AlwaysRules(fileCall(name, "notes.md")) {
			rules = append(rules, r.String())
		}
		if got := strings.Join(rules, " "); got != want {
			t.Errorf("AlwaysRules(%s) = %q, want %q", name, got, want)
		}
	}

	// No inspector: nothing is known of any call.
	a, d, err := Rules{Deny: []string{"bash(rm *)", "read_file(.env)"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	blind := New(Yolo, nil, WithRules(a, d))
	for _, c := range []chat.ToolCall{bashCall("rm -rf x"), fileCall("read_file", ".env")} {
		if got := blind.Decide(c); got.Action != pause {
			t.Errorf("no inspector, %s %s: got %s %q, want Pause", c.Name, c.Arguments, actionNames[got.Action], got.Reason)
		}
	}
}
