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
	want := []string{"bash", "edit_file", "glob", "grep", "list_dir", "read_file", "write_file"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	specs := r.Specs()
	for i, s := range specs {
		if s.Name != want[i] || s.Description == "" || len(s.Parameters) == 0 {
			t.Errorf("spec %d = %+v", i, s)
		}
	}
	readOnly := map[string]bool{"read_file": true, "list_dir": true, "glob": true, "grep": true}
	for _, name := range want {
		tool, ok := r.Lookup(name)
		if !ok || tool.ReadOnly() != readOnly[name] {
			t.Errorf("%s: ReadOnly() = %v, want %v", name, tool.ReadOnly(), readOnly[name])
		}
	}

	res := call(t, r, "nope", `{}`)
	if res.Status != chat.StatusError || res.Content != "Unknown tool \"nope\". The available tools are: bash, edit_file, glob, grep, list_dir, read_file, write_file." {
		t.Errorf("unknown tool: %+v", res)
	}

	extra := New("extra", "Extra.", true, func(ctx context.Context, a struct{}) (Result, error) {
		return OK("done"), nil
	})
	if err := r.Add(extra); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(extra); !errors.Is(err, ErrDuplicateTool) {
		t.Errorf("Add twice: %v", err)
	}
	if got := wantOK(t, call(t, r, "extra", ``)); got != "done" {
		t.Errorf("extra: %q", got)
	}

	failing := New("broken", "Broken.", true, func(ctx context.Context, a struct{}) (Result, error) {
		return Result{}, errors.New("disk on fire")
	})
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
			CallInfo{Tool: "read_file", ReadOnly: true, Paths: []string{"real.txt"}}},
		{chat.ToolCall{Name: "edit_file", Arguments: `{"path": "a/self/real.txt", "old_string": "a", "new_string": "b"}`},
			CallInfo{Tool: "edit_file", Paths: []string{"real.txt"}}},
		{chat.ToolCall{Name: "write_file", Arguments: `{"path": "link", "content": ""}`},
			CallInfo{Tool: "write_file", Paths: []string{"link"}, Refused: []string{"link"}}},
		{chat.ToolCall{Name: "list_dir"},
			CallInfo{Tool: "list_dir", ReadOnly: true, Paths: []string{"."}}},
		{chat.ToolCall{Name: "grep", Arguments: `{"pattern": "x", "path": "/etc"}`},
			CallInfo{Tool: "grep", ReadOnly: true, Paths: []string{"/etc"}, Refused: []string{"/etc"}}},
		{chat.ToolCall{Name: "bash", Arguments: `{"command": "go test ./... && rm -rf x"}`},
			CallInfo{Tool: "bash", Command: "go test ./... && rm -rf x"}},
	}
	for _, tt := range tests {
		got, err := l.r.Inspect(tt.call)
		if err != nil {
			t.Fatalf("Inspect(%s): %v", tt.call.Arguments, err)
		}
		if got.Tool != tt.want.Tool || got.ReadOnly != tt.want.ReadOnly || got.Command != tt.want.Command ||
			!slices.Equal(got.Paths, tt.want.Paths) || !slices.Equal(got.Refused, tt.want.Refused) {
			t.Errorf("Inspect(%s %s) = %+v, want %+v", tt.call.Name, tt.call.Arguments, got, tt.want)
		}
	}
	got, _ := l.r.Inspect(chat.ToolCall{Name: "edit_file", Arguments: `{"path": "x", "old_string": "a", "new_string": "b", "replace_all": true}`})
	if a, ok := got.Args.(EditFileArgs); !ok || !a.ReplaceAll {
		t.Errorf("Args = %#v", got.Args)
	}
	var ae *ArgsError
	if _, err := l.r.Inspect(chat.ToolCall{Name: "read_file", Arguments: `{"path": 1}`}); !errors.As(err, &ae) {
		t.Errorf("bad arguments: %v", err)
	}
	if _, err := l.r.Inspect(chat.ToolCall{Name: "nope"}); err == nil {
		t.Error("unknown tool inspected")
	}
}
