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
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
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
	return acp.Serve(ctx, stdio.In, stdio.Out, stdio.Err, acp.Info{Name: "tackle", Version: version}, acp.Backend{Open: b.open, List: b.list})
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
// approval rules were written for it): a new one, whose id is chosen now
// and whose file is created with its first prompt, or the saved session
// o.Load names, which goes on as `tackle --resume ID` would.
func (b *acpBackend) open(ctx context.Context, o acp.Open) (_ *acp.Session, err error) {
	if !filepath.IsAbs(o.Dir) {
		return nil, fmt.Errorf("%w: cwd %q is not an absolute path", acp.ErrRefused, o.Dir)
	}
	c := *b.c
	c.Workspace = o.Dir
	env := b.stdio.Env
	store := sessionStore(env)
	var res *resumed
	if o.Load != "" {
		if res, err = b.reopen(store, o.Dir, o.Load); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				res.close()
			}
		}()
	}
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
	var cv *conversation
	var id string
	switch {
	case res != nil:
		// The id the editor asked for: the file's name (Locate).
		cv, id = h.continueConversation(res, warn), o.Load
		for _, w := range cv.warnings {
			warn(errors.New(w))
		}
	case store != nil:
		// The editor knows the session by the id `tackle sessions` shows.
		id = store.NewID(h.root)
		cv = h.newConversationAs(store, id, warn)
	default:
		// No state directory: the session is not kept, nor loadable.
		id = newACPSessionID()
		cv = h.newConversation(nil, warn)
	}
	w := h.worker(cv, o.Emit)
	var paused *agent.Outcome
	if cv.pause != nil {
		out, err := cv.restore(w)
		if err != nil {
			cv.close()
			h.Close()
			return nil, err
		}
		paused = &out
	}
	return &acp.Session{
		ID:      id,
		History: cv.records,
		Paused:  paused,
		Root:    h.root,
		Worker:  w,
		Tools:   h.toolbox,
		Policy:  h.policy,
		Attach:  func(path string) (tools.Mention, error) { return h.ws.ReadMention(path, h.refuseMention) },
		SaveImage: func(data []byte) (chat.Image, error) {
			// Kept in tackle's state, where sessions refer to it (the
			// sandbox hides the state directory from commands).
			state, err := config.StateDir(b.stdio.Env.get)
			if err != nil {
				return chat.Image{}, fmt.Errorf("no state directory to keep it in (set HOME or XDG_STATE_HOME): %w", err)
			}
			return tools.SaveImage(filepath.Join(state, "images"), data)
		},
		// The first request offers the MCP servers' tools, as a piped
		// run's does.
		Ready: h.mcp.waitStarted,
		Close: func() error {
			return errors.Join(cv.close(), h.Close())
		},
	}, nil
}

// reopen locks and loads the saved session id for the editor, whose
// working directory dir must be the session's workspace.
func (b *acpBackend) reopen(store *session.Store, dir, id string) (*resumed, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: no state directory to find sessions in (set HOME or XDG_STATE_HOME)", acp.ErrNoSession)
	}
	root, err := workspaceRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", acp.ErrRefused, err)
	}
	info, ok, err := store.Locate(id)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("%w: tackle has no session %q (`tackle sessions` lists a workspace's)", acp.ErrNoSession, id)
	case info.Workspace != root:
		return nil, fmt.Errorf("%w: session %s is of the workspace %s, not of %s: load it with that directory as cwd", acp.ErrRefused, id, info.Workspace, root)
	}
	return reopen(store, info.Path)
}

// list lists the saved sessions of dir's workspace, of every workspace
// when dir is "".
func (b *acpBackend) list(dir string) ([]session.Info, error) {
	store := sessionStore(b.stdio.Env)
	if store == nil {
		return nil, nil
	}
	if dir == "" {
		return store.ListAll()
	}
	root, err := workspaceRoot(dir)
	if err != nil {
		// A directory that does not exist has no sessions.
		return nil, nil
	}
	return store.List(root)
}

// newACPSessionID names a session for the editor.
func newACPSessionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return "tackle-" + hex.EncodeToString(b[:])
}
