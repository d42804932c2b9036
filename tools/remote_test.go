package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// remote returns a remote tool of server that echoes its arguments.
func remote(t *testing.T, server, name string, kind Kind) *Tool {
	t.Helper()
	tool, err := NewRemote(Remote{
		Name: "mcp__" + server + "__" + name, Server: server, Tool: name, Kind: kind,
		Description: "Echo.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["zeta"]}`),
		Call: func(ctx context.Context, args json.RawMessage) (Result, error) {
			return OK("got " + string(args)), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestNewRemote(t *testing.T) {
	t.Parallel()
	r, _ := newTestRegistry(t)
	tool := remote(t, "srv", "echo", 0)
	if tool.Kind() != KindExec || tool.Server() != "srv" || tool.RemoteName() != "echo" {
		t.Errorf("kind %v, server %q, remote name %q", tool.Kind(), tool.Server(), tool.RemoteName())
	}
	if !strings.Contains(string(tool.Parameters()), `"zeta"`) {
		t.Errorf("schema not passed through: %s", tool.Parameters())
	}
	if err := r.Replace("srv", []*Tool{tool}); err != nil {
		t.Fatal(err)
	}
	// Arguments go to the server as sent, unknown fields too: the server
	// validates against its own schema.
	if got := wantOK(t, call(t, r, "mcp__srv__echo", `{"zeta":"z","other":[1]}`)); got != `got {"zeta":"z","other":[1]}` {
		t.Errorf("result %q", got)
	}
	wantError(t, call(t, r, "mcp__srv__echo", `[1,2]`), "not a JSON object")
	info, err := r.Inspect(chat.ToolCall{Name: "mcp__srv__echo", Arguments: `{"alpha":2,"zeta":"a\nb","b":true}`})
	if err != nil || info.Server != "srv" || info.Kind != KindExec {
		t.Errorf("Inspect = %+v, %v", info, err)
	}
	// The schema's order first, then the others by name.
	if got := r.Summary(chat.ToolCall{Name: "mcp__srv__echo", Arguments: `{"b":true,"alpha":2,"zeta":"a\nb"}`}); got != "zeta: a⏎b, alpha: 2, b: true" {
		t.Errorf("Summary = %q", got)
	}
	p := r.Preview(chat.ToolCall{Name: "mcp__srv__echo", Arguments: `{"zeta":"x"}`})
	if len(p.Args) != 1 || p.Args[0] != (Arg{Name: "zeta", Value: "x"}) || p.Problem != "" {
		t.Errorf("Preview = %+v", p)
	}

	for _, bad := range []Remote{
		{Name: "has space", Server: "s"},
		{Name: "ok", Server: "s", Kind: KindEdit},
		{Name: "ok", Server: "s", Schema: json.RawMessage(`[1]`)},
		{Name: "ok", Server: "s", Schema: json.RawMessage(`{"type":"string"}`)},
		{Name: "ok", Server: "s", Schema: json.RawMessage(`{"type":["object","null"]}`)},
	} {
		if _, err := NewRemote(bad); err == nil {
			t.Errorf("NewRemote(%+v) accepted", bad)
		}
	}
}

// TestRemoteResultsAreCappedAndSafe: a server's answer is cut like bash
// output and cannot drive the terminal.
func TestRemoteResultsAreCappedAndSafe(t *testing.T) {
	t.Parallel()
	r, _ := newTestRegistry(t)
	tool, err := NewRemote(Remote{Name: "mcp__s__big", Server: "s", Call: func(ctx context.Context, args json.RawMessage) (Result, error) {
		return OK("\x1b]0;pwned\x07start" + strings.Repeat("x", 100_000) + "end"), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	r.Replace("s", []*Tool{tool})
	got := wantOK(t, call(t, r, "mcp__s__big", `{}`))
	if len(got) > remoteHeadBytes+remoteTailBytes+100 || !strings.Contains(got, "bytes omitted") {
		t.Errorf("result of %d bytes, not cut", len(got))
	}
	if strings.Contains(got, "\x1b") || !strings.HasPrefix(got, "start") || !strings.HasSuffix(got, "end") {
		t.Errorf("result starts %q, ends %q", got[:20], got[len(got)-10:])
	}
}

func TestReplaceSwapsAServersTools(t *testing.T) {
	t.Parallel()
	r, _ := newTestRegistry(t)
	before := r.Specs()
	if again := r.Specs(); &again[0] != &before[0] {
		t.Error("Specs made a new slice with no change")
	}
	if err := r.Replace("a", []*Tool{remote(t, "a", "one", KindRead), remote(t, "a", "two", 0)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Replace("b", []*Tool{remote(t, "b", "one", 0)}); err != nil {
		t.Fatal(err)
	}
	after := r.Specs()
	if len(after) != len(before)+3 {
		t.Fatalf("%d specs after adding 3 to %d", len(after), len(before))
	}
	if err := r.Replace("a", []*Tool{remote(t, "a", "three", 0)}); err != nil {
		t.Fatal(err)
	}
	names := r.Names()
	if slices.Contains(names, "mcp__a__one") || slices.Contains(names, "mcp__a__two") || !slices.Contains(names, "mcp__a__three") || !slices.Contains(names, "mcp__b__one") {
		t.Errorf("names after the swap: %v", names)
	}
	if !slices.IsSorted(names) {
		t.Errorf("names not sorted: %v", names)
	}
	// A tool of another server, a built-in's name, a tool given twice or
	// one that is not the server's: refused, nothing changes.
	bash, _ := NewRemote(Remote{Name: Bash, Server: "a", Call: nil})
	for _, ts := range [][]*Tool{
		{remote(t, "b", "one", 0)},
		{bash},
		{remote(t, "a", "x", 0), remote(t, "a", "x", 0)},
	} {
		if err := r.Replace("a", ts); err == nil {
			t.Errorf("Replace(a, %v) accepted", ts[0].Name())
		}
	}
	fake := remote(t, "b", "evil", 0)
	fake.name = "mcp__b__one"
	if err := r.Replace("a", []*Tool{fake}); err == nil {
		t.Error("a tool of b given as a's replaced b's tool")
	}
	if got := r.Names(); !slices.Equal(got, names) {
		t.Errorf("a refused Replace changed the tools: %v", got)
	}
	if err := r.Replace("a", nil); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(r.Names(), "mcp__a__three") {
		t.Error("Replace(a, nil) left a's tools")
	}
	if _, ok := r.Lookup(Bash); !ok {
		t.Error("bash went away")
	}
}

// TestReplaceWhileCalling: tools join and leave while calls run (-race
// checks the locking).
func TestReplaceWhileCalling(t *testing.T) {
	t.Parallel()
	r, _ := newTestRegistry(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 50 {
				if i%2 == 0 {
					r.Replace("s", []*Tool{remote(t, "s", "echo", 0)})
					r.Replace("s", nil)
				} else {
					r.Specs()
					res, err := r.Run(context.Background(), chat.ToolCall{Name: "mcp__s__echo", Arguments: `{"zeta":"z"}`})
					if err != nil {
						t.Error(err)
					}
					if res.Status == chat.StatusError && !strings.Contains(res.Content, "Unknown tool") {
						t.Errorf("result %+v", res)
					}
					r.Inspect(chat.ToolCall{Name: "mcp__s__echo"})
				}
			}
		})
	}
	wg.Wait()
	if _, err := r.Run(context.Background(), chat.ToolCall{Name: "nope"}); err != nil && !errors.Is(err, context.Canceled) {
		t.Error(err)
	}
}
