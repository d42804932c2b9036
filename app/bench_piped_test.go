package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

// BenchmarkPipedTask runs the piped one-tool-call task of
// BenchmarkSideBySide in process (run, as main calls it): everything a run
// does after start-up, from parsing the command line to the exit code.
// Profile it with
//
//	go test -run '^$' -bench PipedTask -benchtime 200x -cpuprofile cpu.out ./app
func BenchmarkPipedTask(b *testing.B) {
	var rs []llmtest.Response
	for range b.N {
		rs = append(rs,
			llmtest.ToolCalls(llmtest.Call("call_echo", "bash", `{"command": "echo hello-from-tool"}`)),
			llmtest.Text("The command printed its greeting."))
	}
	srv := llmtest.NewServer(b, llmtest.NewScript(rs...))
	home, ws := b.TempDir(), b.TempDir()
	env := environ{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_STATE_HOME=" + home + "/state",
		"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-bench", "TACKLE_MODEL=bench", "PATH=/usr/bin:/bin"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var out, errOut bytes.Buffer
		code := Main([]string{"--yes", "-w", ws, "-p", "say hello"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: env})
		if code != 0 || !strings.Contains(out.String(), "greeting") {
			b.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
	}
}
