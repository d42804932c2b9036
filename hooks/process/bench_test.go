//go:build unix

package process_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// leanServer is the test server doing the least it can, as the command
// hook does: the benchmarks measure the protocol, not the server's work.
func leanServer(b *testing.B) *hooks.Registry {
	return serve(b, process.Spec{Events: []string{"pre_tool_call"}}, map[string]string{"HOOKSERVER_LOG": "", "HOOKSERVER_LEAN": "1"}).reg
}

// commandHook is a registry with one pre_tool_call command hook running
// argv.
func commandHook(b *testing.B, argv ...string) *hooks.Registry {
	reg := hooks.NewRegistry()
	err := command.Register(reg, "pre_tool_call", command.Spec{Name: "cmd", Command: command.Exec(argv...)}, command.Options{Workdir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

func BenchmarkProcessHookRoundTrip(b *testing.B) {
	benchPreTool(b, leanServer(b))
}

// BenchmarkProcessHookVsCommandHook alternates 20 round trips with one
// command hook start of the same program, so that both see the same load
// on a shared machine, and reports each one's time and their ratio.
func BenchmarkProcessHookVsCommandHook(b *testing.B) {
	const trips = 20
	proc, cmd := leanServer(b), commandHook(b, serverBin, "once")
	in := hooks.PreToolInput{Call: chat.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"go test ./..."}`}}
	run := func(reg *hooks.Registry) {
		call := in
		if res, _ := reg.RunPreToolCall(context.Background(), &call, 0, nil); res.Action != hooks.ToolContinue {
			b.Fatalf("got %+v", res)
		}
	}
	var n int
	var inProc, spawned time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range trips {
			run(proc)
		}
		t1 := time.Now()
		run(cmd)
		inProc, spawned, n = inProc+t1.Sub(t0), spawned+time.Since(t1), n+1
	}
	roundTrip := inProc / time.Duration(n*trips)
	spawn := spawned / time.Duration(n)
	b.ReportMetric(float64(roundTrip.Microseconds()), "round-trip-µs")
	b.ReportMetric(float64(spawn.Microseconds()), "spawn-µs")
	b.ReportMetric(float64(spawn)/float64(roundTrip), "x")
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
			benchPreTool(b, commandHook(b, bc.argv...))
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

// BenchmarkPipeFloor is the same request to the same lean server without
// tackle: one goroutine writes the line and reads the answer. The
// difference to BenchmarkProcessHookRoundTrip is tackle's own share.
func BenchmarkPipeFloor(b *testing.B) {
	cmd := exec.Command(serverBin)
	cmd.Env = []string{"HOOKSERVER_LEAN=1"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	r := bufio.NewReader(stdout)
	roundTrip := func(line string) {
		if _, err := io.WriteString(stdin, line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip(`{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"version":1,"events":["pre_tool_call"]}}` + "\n")
	req := `{"jsonrpc":"2.0","id":2,"method":"hook.pre_tool_call","params":{"event":"pre_tool_call","workspace":"/tmp/w","tool_call":{"id":"c1","name":"bash","arguments":{"command":"go test ./..."}}}}` + "\n"
	for b.Loop() {
		roundTrip(req)
	}
}
