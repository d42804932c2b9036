package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/mcp"
	"github.com/tackle-dev/tackle/tui/acp"
)

// acpCmd is `tackle acp`: tackle as an editor's agent, speaking the Agent
// Client Protocol on stdin and stdout (nothing else goes to stdout;
// tackle's warnings go to stderr, the editor's log of the agent).
type acpCmd struct{}

// Run checks the settings once (a broken config or a missing key fails
// at start, where the editor shows the agent's stderr), then serves the
// editor until it closes stdin or tackle is interrupted. Each session the
// editor opens is a run in its working directory: that directory's
// trusted project files, settings, sandbox and hooks, as `tackle -p`
// there would have (project files not yet trusted are left out, as in a
// piped run; --trust-project trusts them).
func (acpCmd) Run(kctx *kong.Context, c *cli, stdio Streams, user config.Config) error {
	if _, err := resolve(kctx, c, nil, user, projectLayer{}, stdio.Env); err != nil {
		return err
	}
	ctx, stop, atExit := interruptContext(stdio.Err)
	defer stop()
	b := &acpBackend{kctx: kctx, c: c, user: user, atExit: atExit, stdio: stdio}
	// Nothing a session wires may write to the protocol's stream, nor
	// read the editor's.
	b.stdio.Out, b.stdio.In = stdio.Err, nil
	return acp.Serve(ctx, stdio.In, stdio.Out, stdio.Err, acp.Info{Name: "tackle", Version: version}, b.open)
}

// acpBackend opens the editor's sessions.
type acpBackend struct {
	kctx   *kong.Context
	c      *cli
	user   config.Config
	stdio  Streams
	atExit func(func())
}

// open wires a session in dir, with the editor's MCP servers beside the
// configured ones (for a name both give, the config's is used: its
// approval rules were written for it).
func (b *acpBackend) open(ctx context.Context, o acp.Open) (*acp.Session, error) {
	if !filepath.IsAbs(o.Dir) {
		return nil, fmt.Errorf("cwd %q is not an absolute path", o.Dir)
	}
	c := *b.c
	c.Workspace = o.Dir
	env := b.stdio.Env
	project, err := openProject(o.Dir, c.TrustProject, env, nil, b.stdio.Err)
	if err != nil {
		return nil, err
	}
	st, err := resolve(b.kctx, &c, nil, b.user, project, env)
	if err != nil {
		return nil, err
	}
	if len(o.MCPServers) > 0 {
		servers := maps.Clone(st.User.MCPServers)
		if servers == nil {
			servers = map[string]mcp.Spec{}
		}
		for name, spec := range o.MCPServers {
			if _, ok := servers[name]; ok {
				o.Emit(agent.Warning{Message: fmt.Sprintf("the editor passes an MCP server %q, as your config names one: yours is used", name)})
				continue
			}
			servers[name] = spec
		}
		st.User.MCPServers = servers
	}
	h, err := newHarness(ctx, st, b.stdio, o.Emit)
	if err != nil {
		return nil, err
	}
	b.atExit(h.kill)
	warn := func(err error) { o.Emit(agent.Warning{Message: err.Error()}) }
	cv := h.newConversation(sessionStore(env), warn)
	w := h.worker(cv, o.Emit)
	return &acp.Session{
		ID:     newACPSessionID(),
		Root:   h.root,
		Worker: w,
		Tools:  h.toolbox,
		Policy: h.policy,
		Attach: func(path string) (tools.Mention, error) { return h.ws.ReadMention(path, h.refuseMention) },
		// The first request offers the MCP servers' tools, as a piped
		// run's does.
		Ready: h.mcp.waitStarted,
		Close: func() error {
			return errors.Join(cv.close(), h.Close())
		},
	}, nil
}

// newACPSessionID names a session for the editor.
func newACPSessionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return "tackle-" + hex.EncodeToString(b[:])
}
