package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

// BenchmarkStartupWithMCP measures the time from starting the built
// binary to its first model request, with no MCP server configured and
// with a stdio server that takes 2 s to start (the test server with
// MCPSERVER_DELAY): configured servers must not slow the start, so the
// first request goes out long before that server is ready (it fails the
// benchmark if the request offers the server's tools).
//
//	go test -run '^$' -bench StartupWithMCP -benchtime 10x ./app/e2e
func BenchmarkStartupWithMCP(b *testing.B) {
	for _, c := range []struct {
		name   string
		config string
	}{
		{"none", `{}`},
		{"slow-server-2s", mcpConfig(map[string]any{"slow": stdioServer(map[string]string{"MCPSERVER_DELAY": "2s"})})},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += firstRequest(b, c.config)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-request")
		})
	}
}

// firstRequest starts tackle with config and returns how long its first
// model request took to arrive; it then lets the run finish.
func firstRequest(b *testing.B, config string) time.Duration {
	b.Helper()
	srv := llmtest.NewServer(b, llmtest.Script{Responses: []llmtest.Response{{Hold: true, Content: "Fine."}}})
	e := &e2e{srv: srv, workspace: b.TempDir(), home: b.TempDir()}
	e.writeConfig(b, config)
	cmd := e.command("-p", "hi")
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := srv.WaitRequests(ctx, 1); err != nil {
		b.Fatalf("no request: %v", err)
	}
	took := time.Since(begin)
	for _, tool := range srv.Requests()[0].Tools {
		if strings.HasPrefix(tool, "mcp__") {
			b.Fatalf("the first request waited for the MCP server: it offers %s", tool)
		}
	}
	srv.Release()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("tackle: %v", err)
	}
	return took
}
