package agent_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
)

// EventTypes lists every event type of the package once: each type with
// an EventType method (found in the source) is in it, but SubagentEvent,
// which carries another event and has its type.
func TestEventTypesListsEveryEvent(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var methods int
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "EventType" {
				if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok && id.Name == "SubagentEvent" {
					continue
				}
				methods++
			}
		}
	}
	types := agent.EventTypes()
	if len(types) != methods {
		t.Errorf("EventTypes lists %d types, the package has %d EventType methods: add the new event to EventTypes", len(types), methods)
	}
	if s := slices.Compact(slices.Sorted(slices.Values(types))); len(s) != len(types) {
		t.Errorf("EventTypes has duplicates: %v", types)
	}
}
