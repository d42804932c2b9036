//go:build unix

package process_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/tools/chat"
)

// What one pre_tool_call costs through the registry, answered "continue"
// by the same Go program: as a request to its running process, and as a
// command hook started for the call; for scale, command hooks that are the
// cheapest program there is (true) and a Python script
// (docs/benchmarks.md).

func benchPreTool(b *testing.B, reg *hooks.Registry) {
	in := hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"go test ./..."}`}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		call := in
		if res, _ := reg.RunPreToolCall(ctx, &call, 0, nil); res.Action != hooks.ToolContinue {
			b.Fatalf("got %+v", res)
		}
	}
}

func BenchmarkProcessHookRoundTrip(b *testing.B) {
	// The server records nothing: the benchmark measures the protocol.
	f := serve(b, process.Spec{Events: []string{"pre_tool_call"}}, map[string]string{"HOOKSERVER_LOG": ""})
	benchPreTool(b, f.reg)
}

func BenchmarkCommandHookSpawn(b *testing.B) {
	for _, bc := range []struct {
		name string
		argv []string
	}{
		{"go-program", []string{serverBin, "once"}},
		{"true", []string{"true"}},
		{"python3", []string{python3(), "-c", "import sys, json; json.load(sys.stdin); print(json.dumps({'action': 'continue'}))"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.argv[0] == "" {
				b.Skip("python3 is not installed")
			}
			reg := hooks.NewRegistry()
			err := command.Register(reg, "pre_tool_call", command.Spec{Name: "cmd", Command: command.Exec(bc.argv...)}, command.Options{Workdir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			benchPreTool(b, reg)
		})
	}
}

// python3 is the Python interpreter itself, not a wrapper in PATH (such as
// pyenv's shim, which costs more than Python); "" if there is none.
func python3() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
