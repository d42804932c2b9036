package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// fakeMCP is a fixed list of servers; Restart records its argument.
type fakeMCP struct {
	status    []mcp.Status
	restarted []string
	err       error
}

func (f *fakeMCP) Status() []mcp.Status { return f.status }
func (f *fakeMCP) Restart(name string) error {
	f.restarted = append(f.restarted, name)
	return f.err
}

func TestMCPCommand(t *testing.T) {
	t.Parallel()
	f := &fakeMCP{status: []mcp.Status{
		{Name: "github", Transport: "http", Target: "https://api.example.com/mcp", State: mcp.Ready, Implementation: "gh 2.0",
			Tools: []mcp.ToolStatus{{Name: "mcp__github__get_issue", Tool: "get_issue", Title: "Get an issue", ReadOnly: true}, {Name: "mcp__github__close", Tool: "close"}}},
		{Name: "db", Transport: "stdio", Target: "db-server --ro", State: mcp.Failed, Err: "it exited (exit status 1); its stderr ends: no DSN",
			LeftOut: []string{"dump: the input schema is not an object schema (type string)"}},
	}}
	h := newHarness(t, func(o *Options) { o.MCP = f })
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("/mcp").keys("enter")
	screen := h.screen()
	for _, want := range []string{"MCP servers", "github", "ready · 2 tools · gh 2.0", "http: https://api.example.com/mcp",
		"get_issue (read-only) — Get an issue", "close", "db", "failed", "stdio: db-server --ro", "no DSN",
		"left out: dump: the input schema is not an object schema"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, screen)
		}
	}
	h.keys("esc")

	// An open /mcp follows the servers' state.
	h.typeText("/mcp").keys("enter")
	if screen := h.screen(); !strings.Contains(screen, "no DSN") {
		t.Fatalf("/mcp:\n%s", screen)
	}
	f.status[1].State, f.status[1].Err = mcp.Ready, ""
	f.status[1].Tools = []mcp.ToolStatus{{Name: "mcp__db__query", Tool: "query"}}
	h.events(agent.MCPServerStatus{Server: "db", State: "ready", Tools: 1})
	if screen := h.screen(); !strings.Contains(screen, "ready · 1 tool ") && !strings.Contains(screen, "ready · 1 tool\n") || strings.Contains(screen, "no DSN") {
		t.Errorf("an open /mcp after db became ready:\n%s", screen)
	}
	h.keys("esc")
	f.status[1].State, f.status[1].Err, f.status[1].Tools = mcp.Failed, "it exited (exit status 1); its stderr ends: no DSN", nil
	h.typeText("/status").keys("enter")
	if screen := h.screen(); !strings.Contains(screen, "mcp") || !strings.Contains(screen, "github: ready · 2 tools") || !strings.Contains(screen, "db: failed") {
		t.Errorf("/status does not list the MCP servers:\n%s", screen)
	}
	h.keys("esc")

	h.typeText("/mcp restart db").keys("enter")
	if len(f.restarted) != 1 || f.restarted[0] != "db" {
		t.Fatalf("restarted %v", f.restarted)
	}
	if !strings.Contains(h.screen(), "the MCP server db is ready") {
		t.Errorf("after the restart:\n%s", h.screen())
	}
	f.err = errors.New("it exited (exit status 1)")
	h.typeText("/mcp restart db").keys("enter")
	if !strings.Contains(h.screen(), "the MCP server db did not start: it exited (exit status 1)") {
		t.Errorf("after a failed restart:\n%s", h.screen())
	}
	h.typeText("/mcp nonsense").keys("enter")
	if !strings.Contains(h.screen(), "/mcp takes no argument but restart NAME") {
		t.Errorf("a bad argument:\n%s", h.screen())
	}
}

func TestMCPCommandWithoutServers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("/mcp").keys("enter")
	if !strings.Contains(h.screen(), "no MCP server is configured") {
		t.Errorf("/mcp without servers:\n%s", h.screen())
	}
}

// TestStatusLineMarksFailedMCPServer: a failed server shows in the
// status line until it is ready again; a narrow terminal shortens it.
func TestStatusLineMarksFailedMCPServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.events(agent.MCPServerStatus{Server: "db", State: "starting"}, agent.MCPServerStatus{Server: "db", State: "failed", Error: "no DSN"},
		agent.MCPServerStatus{Server: "gh", State: "ready", Tools: 3})
	if line := lastLine(h.screen()); !strings.Contains(line, "mcp: db failed") || strings.Contains(line, "gh") {
		t.Errorf("status line %q", line)
	}
	h.send(tea.WindowSizeMsg{Width: 40, Height: 30})
	if line := lastLine(h.screen()); !strings.Contains(line, "mcp ✗") {
		t.Errorf("narrow status line %q", line)
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.events(agent.MCPServerStatus{Server: "db", State: "ready", Tools: 1})
	if line := lastLine(h.screen()); strings.Contains(line, "mcp") {
		t.Errorf("status line after the server came back %q", line)
	}
}

func TestToolLabel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"mcp__github__get_issue": "github › get_issue", "bash": "bash", "mcp__x": "mcp__x"} {
		if got := toolLabel(in); got != want {
			t.Errorf("toolLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
