package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/tools/mcp"
)

// TestEscapeShowsHiddenCharacters: what the editor shows of a call
// cannot hide what runs — control characters, escape sequences, bidi
// overrides, zero-width and other spaces become escapes; a command block
// keeps its lines but cannot close its fence.
func TestEscapeShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"rm -rf x\u202e":   `rm -rf x\u202e`,
		"a\x1b[2Kb":        `a\u001b[2Kb`,
		"a\rb\nc\td":       `a\u000db\u000ac\u0009d`,
		"zero\u200bwidth":  `zero\u200bwidth`,
		"nb\u00a0sp":       `nb\u00a0sp`,
		"plain text, é 漢字": "plain text, é 漢字",
		"bad\xffutf8":      `bad\ufffdutf8`,
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escapeBlock("echo a\n\techo b\u202e"); got != "echo a\n\techo b\\u202e" {
		t.Errorf("escapeBlock kept %q", got)
	}
	if got := escapeBlock("echo ```\n# heading"); strings.Contains(got, "```") {
		t.Errorf("escapeBlock(%q) = %q: a command can close the fence it is shown in", "echo ```", got)
	}
}

// TestMCPSpecs: the editor's servers become tackle's specs by transport;
// a nameless, doubled or unknown one is refused with why.
func TestMCPSpecs(t *testing.T) {
	t.Parallel()
	got, err := mcpSpecs([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"/x"}, Env: []sdk.EnvVariable{{Name: "K", Value: "v"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "web", Type: "http", Url: "https://example.com/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
		{Sse: &sdk.McpServerSseInline{Name: "old", Type: "sse", Url: "https://example.com/sse"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if fs := got["fs"]; fs.Type != mcp.Stdio || fs.Command != "mcp-fs" || fs.Args[0] != "/x" || fs.Env["K"] != "v" {
		t.Errorf("fs = %+v", fs)
	}
	if web := got["web"]; web.Type != mcp.HTTP || web.URL != "https://example.com/mcp" || web.Headers["Authorization"] != "Bearer t" {
		t.Errorf("web = %+v", web)
	}
	if old := got["old"]; old.Type != mcp.SSE {
		t.Errorf("old = %+v", old)
	}
	for name, bad := range map[string][]sdk.McpServer{
		"no name":   {{Stdio: &sdk.McpServerStdio{Command: "x"}}},
		"twice":     {{Stdio: &sdk.McpServerStdio{Name: "a", Command: "x"}}, {Stdio: &sdk.McpServerStdio{Name: "a", Command: "y"}}},
		"transport": {{}},
	} {
		if _, err := mcpSpecs(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestTitle: a session's title in session/list is the first line of its
// first prompt as the user typed it — tackle's notes and the attached
// files left out, hidden characters as escapes, bounded.
func TestTitle(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"fix the test": "fix the test",
		"[Note from tackle: a.go was restored]\nfix it": "fix it",
		"see @a.go\n\n<file path=\"a.go\">\nx\n</file>": "see @a.go",
		"  spaced\tout  ":           "spaced out",
		"rm\u202e me":               `rm\u202e me`,
		strings.Repeat("long ", 40): strings.Repeat("long ", 20) + "…",
		"":                          "",
	} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
	if n := len(title(strings.Repeat("é", 500))); n > maxSessionTitle+len("…") {
		t.Errorf("a long prompt's title has %d bytes", n)
	}
}
