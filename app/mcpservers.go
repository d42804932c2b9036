package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// mcpServers is the harness's MCP servers: the user config's and the
// trusted .mcp.json's (mcp.Merge: the user's wins for a name both give),
// started in the background by startMCP. Their state changes reach the harness's event
// sink as agent.MCPServerStatus, and failures as warnings too, until the
// harness is done with them (quiet).
type mcpServers struct {
	set *mcp.Set

	mu    sync.Mutex
	quiet bool
}

// startMCP starts the configured MCP servers in the background; their
// tools join the harness's toolbox when each is ready.
func (h *harness) startMCP(env environ, emit func(agent.Event)) error {
	specs, shadowed := mcp.Merge(h.st.User.MCPServers, h.st.Project.mcp)
	for _, name := range shadowed {
		emit(agent.Warning{Message: fmt.Sprintf("the project's .mcp.json names an MCP server %q, as your config does: yours is used (your approval rules were written for it)", name)})
	}
	if len(specs) == 0 {
		return nil
	}
	m := &mcpServers{}
	opts := mcp.Options{
		Guard:    h.guard,
		Registry: h.toolbox, Workdir: h.root, Env: env, EnvAllow: h.st.User.EnvAllow, Version: version,
		Report: func(st mcp.Status) { m.report(st, emit) },
		Warn:   func(msg string) { m.warn(msg, emit) },
	}
	if state, err := config.StateDir(env.get); err == nil {
		opts.LogDir = filepath.Join(state, "mcp")
	}
	set, err := mcp.Start(specs, opts)
	if err != nil {
		return err
	}
	m.set = set
	h.mcp = m
	return nil
}

// report passes a server's new state on, and a failure as a warning.
func (m *mcpServers) report(st mcp.Status, emit func(agent.Event)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.quiet {
		return
	}
	emit(agent.MCPServerStatus{Server: st.Name, State: st.State.String(), Tools: len(st.Tools), Error: st.Err})
	if st.State == mcp.Failed {
		emit(agent.Warning{Message: fmt.Sprintf("MCP server %s failed: %s", st.Name, st.Err)})
	}
}

// warn passes on what a server's Set says the user should know.
func (m *mcpServers) warn(msg string, emit func(agent.Event)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.quiet {
		emit(agent.Warning{Message: msg})
	}
}

// close shuts the servers down. Those that never became ready are
// named in a warning (their tools were never offered); after it nothing
// more is reported.
func (m *mcpServers) close(emit func(agent.Event)) {
	if m == nil {
		return
	}
	m.mu.Lock()
	already := m.quiet
	m.quiet = true
	m.mu.Unlock()
	if already {
		return
	}
	var starting []string
	for _, st := range m.set.Status() {
		if st.State == mcp.Starting {
			starting = append(starting, st.Name)
		}
	}
	if len(starting) > 0 && emit != nil {
		emit(agent.Warning{Message: fmt.Sprintf("MCP server %s never became ready: the model was not offered its tools", strings.Join(starting, ", "))})
	}
	m.set.Close()
}

// waitStarted waits until every server is ready or has failed (each
// within its startup_timeout), or until ctx ends: a piped run offers its
// first request the servers' tools.
func (m *mcpServers) waitStarted(ctx context.Context) {
	if m != nil {
		m.set.WaitStarted(ctx)
	}
}

// instructions are the servers' instructions for the system prompt of
// the next request ("" when none gave any): a server that becomes ready
// while the conversation goes on has its instructions in the requests
// from then on.
func (m *mcpServers) instructions() string {
	if m == nil {
		return ""
	}
	return m.set.Instructions()
}

// kill kills the stdio servers' process groups at once (a second
// interrupt).
func (m *mcpServers) kill() {
	if m != nil {
		m.set.Kill()
	}
}
