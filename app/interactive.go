package app

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tui"
)

// runInteractive runs the terminal UI (tui) on the terminal until the
// user quits: on a new conversation, on the session res, or, with pick,
// on the one the user picks from the list. Its agents' events reach the
// UI through a tui.Bridge.
func runInteractive(ctx context.Context, st Settings, stdio Streams, res *resumed, pick bool, atExit func(func())) error {
	if st.themesErr != nil {
		fmt.Fprintf(stdio.Err, "tackle: warning: %v\n", st.themesErr)
	}
	bridge := tui.NewBridge()
	h, err := newHarness(ctx, st, stdio, bridge.Send)
	if err != nil {
		return err
	}
	atExit(h.kill) // a second interrupt leaves no hook or MCP server running
	defer h.Close()

	u := &uiConversations{h: h, store: sessionStore(stdio.Env), sink: bridge.Send, ask: bridge.AskChild}
	defer u.close(stdio.Err)
	history, saveHistory := promptHistory(h.root, stdio)
	opts := tui.Options{
		NewAgent:     u.fresh,
		Bridge:       bridge,
		Policy:       h.policy,
		Tools:        h.toolbox,
		Checkpoints:  h.checkpoints,
		Keys:         st.Keys,
		About:        about(st, h, u),
		Mentions:     tui.WorkspaceMentions{WS: h.ws, Refuse: h.refuseMention},
		Prices:       st.Prices,
		Model:        st.Model,
		Workdir:      h.root,
		Theme:        st.Theme,
		UserThemes:   st.UserThemes,
		Env:          stdio.Env,
		Inline:       st.Inline,
		History:      history,
		SaveHistory:  saveHistory,
		PickSession:  pick,
		ContextParts: h.contextParts,
		ContextLive:  h.liveParts,
		Commands:     customCommands(st, stdio.Env, h.root, tui.Builtin, func(w string) { bridge.Send(agent.Warning{Message: w}) }),
		TurnRules:    h.policy,
	}
	if u.store != nil {
		opts.Sessions = u
	}
	if h.mcp != nil {
		opts.MCP = h.mcp.set
	}
	if res != nil {
		r, err := u.resume(res)
		if err != nil {
			return err
		}
		opts.Resumed = &r
	} else {
		opts.Agent = u.fresh()
	}
	err = tui.Run(ctx, opts, stdio.In, stdio.Out)
	if ctx.Err() != nil {
		return interruptedError{err}
	}
	return err
}

// promptHistory loads the workspace's earlier prompts and returns the
// function that keeps new ones. Without a state directory the history
// lasts as long as the process.
func promptHistory(root string, stdio Streams) ([]string, func(string) error) {
	dir, err := config.StateDir(stdio.Env.get)
	if err != nil {
		return nil, nil
	}
	h := session.Open(filepath.Join(dir, "sessions")).History(root)
	prompts, err := h.Load(500)
	if err != nil {
		fmt.Fprintf(stdio.Err, "tackle: warning: %v\n", err)
	}
	return prompts, h.Append
}

// about is what the UI's welcome block and /status say of the run:
// version, endpoint, instruction files, hooks and the session's id.
func about(st Settings, h *harness, u *uiConversations) tui.About {
	a := tui.About{Version: version, Endpoint: cmp.Or(st.BaseURL, agent.DefaultBaseURL),
		Sandbox: h.sandbox.status(), SandboxDetail: h.sandbox.describe(), SandboxFull: h.sandbox.sb.Level() == sandbox.LevelFull}
	for _, p := range h.contextParts {
		if f, ok := strings.CutPrefix(p.Name, "instructions "); ok {
			a.Instructions = append(a.Instructions, f)
		}
	}
	for ev := hooks.OnPromptSubmit; ev <= hooks.PreCompact; ev++ {
		if names := h.hooks.Names(ev); len(names) > 0 {
			a.Hooks = append(a.Hooks, ev.String()+": "+strings.Join(names, ", "))
		}
	}
	a.Session = func() string {
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.cur == nil {
			return ""
		}
		return u.cur.id()
	}
	return a
}

// refuseMention says why the UI may not attach the file rel to a message
// (@path; rel as the file tools resolve it): a deny rule on reading it,
// or a protected file (secrets, .git, tackle's config …), which the user
// pastes if the model should see it.
func (h *harness) refuseMention(rel string) string {
	if !h.policy.ReadAllowed(rel) {
		return "an approval rule denies reading it"
	}
	if h.policy.Protected(rel) != "" {
		return "it is a protected file; paste what the model should see instead"
	}
	return ""
}
