package tools

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

func TestRegistry(t *testing.T) {
	r, _ := newTestRegistry(t)
	want := []string{"bash", "edit_file", "fetch", "glob", "grep", "list_dir", "read_file", "todo", "write_file"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	specs := r.Specs()
	for i, s := range specs {
		if s.Name != want[i] || s.Description == "" || len(s.Parameters) == 0 {
			t.Errorf("spec %d = %+v", i, s)
		}
	}
	kinds := map[string]Kind{
		ReadFile: KindRead, ListDir: KindRead, Glob: KindRead, Grep: KindRead,
		WriteFile: KindEdit, EditFile: KindEdit, Bash: KindExec, Todo: KindRead, Fetch: KindNetwork,
	}
	for _, name := range want {
		tool, ok := r.Lookup(name)
		if !ok || tool.Kind() != kinds[name] {
			t.Errorf("%s: Kind() = %v, want %v", name, tool.Kind(), kinds[name])
		}
	}

	res := call(t, r, "nope", `{}`)
	if res.Status != chat.StatusError || res.Content != "Unknown tool \"nope\". The available tools are: bash, edit_file, fetch, glob, grep, list_dir, read_file, todo, write_file." {
		t.Errorf("unknown tool: %+v", res)
	}

	extra := New("extra", "Extra.", KindRead, func(ctx context.Context, a struct{}) (Result, error) {
		return OK("done"), nil
	}, nil)
	if err := r.Add(extra); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(extra); !errors.Is(err, ErrDuplicateTool) {
		t.Errorf("Add twice: %v", err)
	}
	if got := wantOK(t, call(t, r, "extra", ``)); got != "done" {
		t.Errorf("extra: %q", got)
	}

	failing := New("broken", "Broken.", KindRead, func(ctx context.Context, a struct{}) (Result, error) {
		return Result{}, errors.New("disk on fire")
	}, nil)
	r.Add(failing)
	if _, err := r.Run(context.Background(), chat.ToolCall{Name: "broken"}); err == nil || err.Error() != "run tool: broken: disk on fire" {
		t.Errorf("harness error = %v", err)
	}
}

func TestInspect(t *testing.T) {
	l := newSecurityLayout(t)
	tests := []struct {
		call chat.ToolCall
		want CallInfo
	}{
		{chat.ToolCall{Name: "read_file", Arguments: `{"path": "alias"}`},
			CallInfo{Tool: "read_file", Kind: KindRead, Access: ReadsFiles, Sent: []string{"alias"}, Paths: []string{"real.txt"}}},
		{chat.ToolCall{Name: "edit_file", Arguments: `{"path": "a/self/real.txt", "old_string": "a", "new_string": "b"}`},
			CallInfo{Tool: "edit_file", Kind: KindEdit, Access: EditsFiles | ReadsFiles, Sent: []string{"a/self/real.txt"}, Paths: []string{"real.txt"}}},
		{chat.ToolCall{Name: "write_file", Arguments: `{"path": "link", "content": ""}`},
			CallInfo{Tool: "write_file", Kind: KindEdit, Access: EditsFiles, Sent: []string{"link"}, Paths: []string{"link"}, Refused: []string{"link"}}},
		{chat.ToolCall{Name: "list_dir"},
			CallInfo{Tool: "list_dir", Kind: KindRead, Access: ListsNames, Sent: []string{"."}, Paths: []string{"."}}},
		{chat.ToolCall{Name: "glob", Arguments: `{"pattern": "*.go", "path": "a/self"}`},
			CallInfo{Tool: "glob", Kind: KindRead, Access: ListsNames, Sent: []string{"a/self"}, Paths: []string{"."}}},
		{chat.ToolCall{Name: "grep", Arguments: `{"pattern": "x", "path": "/etc"}`},
			CallInfo{Tool: "grep", Kind: KindRead, Access: ReadsFiles, Sent: []string{"/etc"}, Paths: []string{"/etc"}, Refused: []string{"/etc"}}},
		{chat.ToolCall{Name: "bash", Arguments: `{"command": "go test ./... && rm -rf x"}`},
			CallInfo{Tool: "bash", Kind: KindExec, Command: "go test ./... && rm -rf x"}},
	}
	for _, tt := range tests {
		got, err := l.r.Inspect(tt.call)
		if err != nil {
			t.Fatalf("Inspect(%s): %v", tt.call.Arguments, err)
		}
		if !sameInfo(got, tt.want) {
			t.Errorf("Inspect(%s %s) = %+v, want %+v", tt.call.Name, tt.call.Arguments, got, tt.want)
		}
	}
	got, _ := l.r.Inspect(chat.ToolCall{Name: "edit_file", Arguments: `{"path": "x", "old_string": "a", "new_string": "b", "replace_all": true}`})
	if a, ok := got.Args.(EditFileArgs); !ok || !a.ReplaceAll {
		t.Errorf("Args = %#v", got.Args)
	}
	// Arguments the tool refuses still give the tool's kind and access,
	// and the paths and command as far as they decode; an unknown tool
	// has none.
	var ae *ArgsError
	for _, tt := range []struct {
		call chat.ToolCall
		want CallInfo
	}{
		{chat.ToolCall{Name: "read_file", Arguments: `{"path": 1}`},
			CallInfo{Tool: "read_file", Kind: KindRead, Access: ReadsFiles, Sent: []string{""}, Paths: []string{""}, Refused: []string{""}}},
		{chat.ToolCall{Name: "write_file", Arguments: `{"path": "alias"}`}, // no content
			CallInfo{Tool: "write_file", Kind: KindEdit, Access: EditsFiles, Sent: []string{"alias"}, Paths: []string{"real.txt"}}},
		{chat.ToolCall{Name: "bash", Arguments: `{"command": "rm -rf x", "bogus": 1}`},
			CallInfo{Tool: "bash", Kind: KindExec, Command: "rm -rf x"}},
	} {
		got, err := l.r.Inspect(tt.call)
		if !errors.As(err, &ae) || got.Args != nil || !sameInfo(got, tt.want) {
			t.Errorf("bad arguments %s %s: %+v, %v; want %+v and an *ArgsError", tt.call.Name, tt.call.Arguments, got, err, tt.want)
		}
	}
	if got, err := l.r.Inspect(chat.ToolCall{Name: "nope"}); err == nil || got.Kind != 0 || got.Tool != "nope" {
		t.Errorf("unknown tool inspected: %+v, %v", got, err)
	}
}

// sameInfo compares what Inspect says of a call but its typed arguments.
func sameInfo(a, b CallInfo) bool {
	return a.Tool == b.Tool && a.Kind == b.Kind && a.Access == b.Access && a.Command == b.Command && a.Server == b.Server &&
		slices.Equal(a.Sent, b.Sent) && slices.Equal(a.Paths, b.Paths) && slices.Equal(a.Refused, b.Refused)
}

func TestSummary(t *testing.T) {
	r, _ := newTestRegistry(t)
	deploy := New("deploy", "Deploy.", KindNetwork, func(ctx context.Context, a struct {
		Env   string `json:"env"`
		Force bool   `json:"force,omitempty"`
		Count int    `json:"count,omitempty"`
	}) (Result, error) {
		return OK(""), nil
	}, nil)
	if err := r.Add(deploy); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, args, want string }{
		{ReadFile, `{"path": "main.go", "offset": 10}`, "main.go"},
		{WriteFile, `{"path": "a/b.txt", "content": "x"}`, "a/b.txt"},
		{EditFile, `{"path": "x.go", "old_string": "a", "new_string": "b"}`, "x.go"},
		{ListDir, `{}`, ""},
		{ListDir, `{"path": "src"}`, "src"},
		{Glob, `{"pattern": "**/*.go"}`, "**/*.go"},
		{Grep, `{"pattern": "TODO", "path": "cmd"}`, "TODO  in cmd"},
		{Bash, `{"command": "go test ./..."}`, "go test ./..."},
		// Arguments the tool refuses are summarised as far as they decode.
		{Bash, `{"command": "ls", "timeout": 5}`, "ls"},
		{Bash, `not json`, "not json"},
		// A tool that gives no summary of its own: its arguments by name.
		{"deploy", `{"env": "prod", "count": 3}`, "env: prod, count: 3"},
		{"nope", `{"x": 1}`, `{"x": 1}`},
	} {
		if got := r.Summary(chat.ToolCall{Name: tt.name, Arguments: tt.args}); got != tt.want {
			t.Errorf("Summary(%s %s) = %q, want %q", tt.name, tt.args, got, tt.want)
		}
	}
}

// TestEveryToolDefinesItself: every tool the registry tackle runs with
// registers declares its kind and previews its calls itself, so that
// approval never guesses its kind and the approval dialog never shows a
// call as bare arguments.
func TestEveryToolDefinesItself(t *testing.T) {
	r, _ := newTestRegistry(t, WithReadFilter(func(string) bool { return true }))
	if len(r.Names()) == 0 {
		t.Fatal("no tools")
	}
	for _, name := range r.Names() {
		tool, _ := r.Lookup(name)
		if tool.Kind() == 0 {
			t.Errorf("%s declares no kind", name)
		}
		// A tool that reads or edits files says how it reaches them
		// (todo touches no file: its plan is in the call).
		if (tool.Kind() == KindRead || tool.Kind() == KindEdit) && tool.Access() == 0 && name != Todo {
			t.Errorf("%s is of kind %s and declares no access to paths (PathArgs)", name, tool.Kind())
		}
		if tool.preview == nil {
			t.Errorf("%s gives no preview of its own", name)
		}
		// The schema is resolved on the first call: it must resolve.
		if _, err := tool.args.resolved(); err != nil {
			t.Errorf("%s: its schema does not resolve: %v", name, err)
		}
	}
}
