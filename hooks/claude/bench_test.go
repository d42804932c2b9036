package claude

import (
	"context"
	"os"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
)

// BenchmarkPreToolUse is what one tool call pays for Claude Code
// PreToolUse hooks: building the input, starting bash per command, and
// reading the answer. One: a hook that exits 0 silently; Three: three
// such commands of one event, run in parallel; Python: a hook in python3
// that parses the input and allows the call.
func BenchmarkPreToolUse(b *testing.B) {
	for _, bm := range []struct {
		name     string
		commands []string
	}{
		{"One", []string{"true"}},
		{"Three", []string{"true", "exit 0", ":"}},
		{"Python", []string{`python3 -c 'import json,sys; json.load(sys.stdin); print(json.dumps({"hookSpecificOutput":{"permissionDecision":"allow"}}))'`}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			set, err := New([]Source{{Path: "bench", Settings: Settings{Hooks: map[string][]Group{PreToolUse: {cmd("Bash", bm.commands...)}}}}},
				Options{Workspace: b.TempDir(), Env: os.Environ()})
			if err != nil {
				b.Fatal(err)
			}
			reg := hooks.NewRegistry()
			set.Register(reg)
			call := bash("go test ./...")
			for b.Loop() {
				in := &hooks.PreToolInput{Call: call}
				reg.RunPreToolCall(context.Background(), in, 0, nil)
			}
		})
	}
}
