package mcp

import (
	"strings"
	"testing"
)

func TestServerNames(t *testing.T) {
	t.Parallel()
	got := serverNames([]string{"github", "my.server", "my_server", "a__b", "__", "überlong-server-name-that-goes-on-and-on"})
	want := map[string]string{
		"github": "github", "my.server": "my_server", "my_server": "my_server2", "a__b": "a_b", "__": "server",
		"überlong-server-name-that-goes-on-and-on": "berlong-server-name-that",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q → %q, want %q", k, got[k], v)
		}
	}
	for _, v := range got {
		if strings.Contains(v, "__") {
			t.Errorf("%q holds __", v)
		}
	}
}

func TestToolNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	got := toolNames("gh", []string{"get.issue", "get_issue", "list issues", long, long + "y", ""})
	if got["get.issue"] != "mcp__gh__get_issue" || got["get_issue"] != "mcp__gh__get_issue_2" || got["list issues"] != "mcp__gh__list_issues" || got[""] != "mcp__gh__tool" {
		t.Errorf("names %v", got)
	}
	seen := map[string]bool{}
	for own, n := range got {
		if len(n) > maxName || !strings.HasPrefix(n, "mcp__gh__") || seen[n] {
			t.Errorf("%q → %q", own, n)
		}
		seen[n] = true
		if server, _, ok := SplitName(n); !ok || server != "gh" {
			t.Errorf("SplitName(%q) = %q, %v", n, server, ok)
		}
	}
	if got[long] == got[long+"y"] {
		t.Error("two long names cut to the same")
	}
	for _, bad := range []string{"bash", "mcp__", "mcp____x", "mcp_x__y"} {
		if _, _, ok := SplitName(bad); ok {
			t.Errorf("SplitName(%q) ok", bad)
		}
	}
}

func TestSpecs(t *testing.T) {
	t.Parallel()
	specs, err := Parse([]byte(`{"mcpServers": {
		"gh": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}},
		"fs": {"command": "npx", "args": ["-y", "server-fs", "${HOME}/src"], "env": {"LEVEL": "${LEVEL:-info}"}, "enabled": false},
		"old": {"type": "sse", "url": "http://localhost:8080/sse"}
	}, "other": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateAll(specs); err != nil {
		t.Fatal(err)
	}
	if specs["gh"].transport() != HTTP || specs["fs"].transport() != Stdio || specs["fs"].IsEnabled() || specs["old"].transport() != SSE {
		t.Errorf("specs %+v", specs)
	}
	env := map[string]string{"GH_TOKEN": "t0k3n", "HOME": "/home/me"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	gh, hide, err := specs["gh"].expanded(lookup)
	if err != nil || gh.Headers["Authorization"] != "Bearer t0k3n" {
		t.Errorf("gh: %+v, %v", gh, err)
	}
	if got := hide.Replace("401 for Bearer t0k3n"); got != "401 for Bearer ${GH_TOKEN}" {
		t.Errorf("hidden: %q", got)
	}
	fs, _, err := specs["fs"].expanded(lookup)
	if err != nil || fs.Args[2] != "/home/me/src" || fs.Env["LEVEL"] != "info" {
		t.Errorf("fs: %+v, %v", fs, err)
	}
	if specs["fs"].Args[2] != "${HOME}/src" {
		t.Error("expanded changed the configured spec")
	}
	delete(env, "GH_TOKEN")
	if _, _, err := specs["gh"].expanded(lookup); err == nil || !strings.Contains(err.Error(), "GH_TOKEN") {
		t.Errorf("a missing variable: %v", err)
	}

	for name, bad := range map[string]string{
		"unknown field": `{"command": "x", "comand": "y"}`,
		"both":          `{"command": "x", "url": "http://h/"}`,
		"neither":       `{}`,
		"bad type":      `{"type": "websocket", "url": "ws://h/"}`,
		"not http":      `{"url": "file:///etc/passwd"}`,
		"stdio headers": `{"command": "x", "headers": {"a": "b"}}`,
		"http env":      `{"url": "http://h/", "env": {"a": "b"}}`,
		"bad timeout":   `{"command": "x", "tool_timeout": "soon"}`,
		"zero timeout":  `{"command": "x", "startup_timeout": "0s"}`,
	} {
		specs, err := Parse([]byte(`{"mcpServers": {"s": ` + bad + `}}`))
		if err == nil {
			err = ValidateAll(specs)
		}
		if err == nil || !strings.Contains(err.Error(), `server "s"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
