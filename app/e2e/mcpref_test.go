package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

// referenceServers installs the official reference MCP servers
// (@modelcontextprotocol/server-filesystem and server-everything, the
// TypeScript SDK's) with npm into the user's cache, once, and returns
// their commands. The test is opt-in (TACKLE_MCP_REFERENCE=1: it needs
// the npm registry the first time) and skips when npm cannot install
// them.
func referenceServers(t *testing.T) (fs, everything string) {
	t.Helper()
	if os.Getenv("TACKLE_MCP_REFERENCE") != "1" {
		t.Skip("set TACKLE_MCP_REFERENCE=1 to run the npm reference MCP servers")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(cache, "tackle-test", "mcp-reference")
	bin := filepath.Join(dir, "node_modules", ".bin")
	fs, everything = filepath.Join(bin, "mcp-server-filesystem"), filepath.Join(bin, "mcp-server-everything")
	if _, err := os.Stat(everything); err == nil {
		return fs, everything
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund",
		"@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-everything").CombinedOutput()
	if err != nil {
		t.Skipf("npm could not install the reference servers: %v\n%s", err, out)
	}
	return fs, everything
}

// TestE2EMCPReferenceServers: the official reference servers, as users
// run them, through a piped run's first request: the filesystem server
// takes the workspace from roots/list and a file it reads reaches the
// model once; the everything server's environment lacks
// OPENAI_API_KEY, it sees the workspace as the root, its progress is
// reported, and its image reaches the model as an image.
func TestE2EMCPReferenceServers(t *testing.T) {
	t.Parallel()
	fs, everything := referenceServers(t)
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	root, err := filepath.EvalSymlinks(e.workspace)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "hello.txt"), "hello from the workspace\n")
	e.srv = llmtest.NewServer(t, llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{
			{ID: "call_env", Name: "mcp__everything__get-env", Arguments: `{}`},
			{ID: "call_roots", Name: "mcp__everything__get-roots-list", Arguments: `{}`},
			{ID: "call_long", Name: "mcp__everything__trigger-long-running-operation", Arguments: `{"duration":0.2,"steps":2}`},
			{ID: "call_image", Name: "mcp__everything__get-tiny-image", Arguments: `{}`},
		}},
		// The filesystem server asks for the roots once it is ready, and
		// takes a moment to check them: its calls come a request later.
		{ToolCalls: []llmtest.ToolCall{
			{ID: "call_read", Name: "mcp__fs__read_text_file", Arguments: `{"path":"` + filepath.Join(root, "hello.txt") + `"}`},
			{ID: "call_dirs", Name: "mcp__fs__list_allowed_directories", Arguments: `{}`},
		}},
		{Content: "Done."},
	}})
	e.config(mcpConfig(map[string]any{
		"fs":         map[string]any{"command": fs},
		"everything": map[string]any{"command": everything},
	}))
	r := e.run("-p", "use the reference servers", "--yes", "--output", "stream-json")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := e.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests\n%s", len(reqs), r.stderr)
	}
	if !slices.Contains(reqs[0].Tools, "mcp__fs__read_text_file") || !slices.Contains(reqs[0].Tools, "mcp__everything__echo") {
		t.Errorf("the first request's tools: %v", reqs[0].Tools)
	}
	if got := e.toolResult(2, "call_read"); got != "hello from the workspace\n" {
		t.Errorf("the file reached the model as %q", got)
	}
	if got := e.toolResult(2, "call_dirs"); !strings.Contains(got, root) {
		t.Errorf("the filesystem server's directories: %q", got)
	}
	if got := e.toolResult(1, "call_env"); strings.Contains(got, "OPENAI_API_KEY") || !strings.Contains(got, "PATH") {
		t.Errorf("the everything server's environment: %.500q", got)
	}
	if got := e.toolResult(1, "call_roots"); !strings.Contains(got, "file://"+root) {
		t.Errorf("roots: %q", got)
	}
	if !strings.Contains(r.stdout, `"type":"tool_call_progress","call":{"id":"call_long"`) {
		t.Errorf("no progress of the long operation in stream-json:\n%s", r.stdout)
	}
	if got := e.toolResult(1, "call_image"); strings.Contains(got, "iVBOR") {
		t.Errorf("base64 reached the model: %.300q", got)
	}
	msgs := reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleUser || len(last.Images) != 1 || last.Images[0].MIMEType != "image/png" {
		t.Errorf("the message after the results: %q with %d images", last.Content, len(last.Images))
	}
}
