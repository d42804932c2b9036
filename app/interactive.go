package app

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tui"
)

// runInteractive runs the terminal UI (tui) on the terminal until the
// user quits: on a new conversation, on the session res, or, with pick,
// on the one the user picks from the list; first, when set, is its first
// message. Its agents' events reach the
// UI through a tui.Bridge.
func runInteractive(ctx context.Context, st Settings, stdio Streams, res *resumed, pick bool, first string, atExit func(func())) error {
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
		Policy:       uiPolicy{h.policy, h},
		RuleFiles:    newRuleFiles(h, stdio.Env),
		Tools:        h.toolbox,
		Checkpoints:  h.checkpoints,
		Keys:         st.Keys,
		About:        about(st, h, u, stdio.Env),
		Mentions:     tui.WorkspaceMentions{WS: h.ws, Refuse: h.refuseMention},
		Prices:       st.Prices,
		Model:        st.Model,
		Models:       func(ctx context.Context) ([]string, error) { return agent.ListModels(ctx, h.endpoint) },
		Workdir:      h.root,
		Theme:        st.Theme,
		UserThemes:   st.UserThemes,
		Env:          stdio.Env,
		Inline:       st.Inline,
		History:      history,
		SaveHistory:  saveHistory,
		PickSession:  pick,
		Prompt:       first,
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
	if line := resumeLine(u.currentID(), h.root); line != "" && err == nil {
		fmt.Fprintln(stdio.Out, line)
	}
	if ctx.Err() != nil {
		return interruptedError{err}
	}
	return err
}

// resumeLine says, when the UI ends, the command that goes on with its
// session, which names it ("" when nothing was recorded): -w names the
// workspace when it is not the working directory. It fits in 60 columns.
func resumeLine(id, root string) string {
	if id == "" {
		return ""
	}
	cmd := "tackle --resume " + id
	if wd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(wd); err == nil && real != root {
			cmd += " -w " + shellQuote(root)
		}
	}
	return "Resume this session: " + cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
// version, endpoint, instruction files, hooks (those tackle hooks list
// shows as running: the same rows, counted the same) and the session's
// id.
func about(st Settings, h *harness, u *uiConversations, env environ) tui.About {
	a := tui.About{Version: version, Endpoint: cmp.Or(st.BaseURL, agent.DefaultBaseURL),
		Sandbox: h.sandbox.status(), SandboxDetail: h.sandbox.describe(), SandboxFull: h.sandbox.sb.Level() == sandbox.LevelFull}
	for _, p := range h.contextParts {
		if f, ok := strings.CutPrefix(p.Name, "instructions "); ok {
			a.Instructions = append(a.Instructions, f)
		}
	}
	a.Hooks = hookLines(hookRows(st.User, st.Project, nil, env))
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

// hookLines are the hooks of rows by event, in order: "pre_tool_call:
// approval, no-push", one name per row.
func hookLines(rows []hookRow) []string {
	var out []string
	for i := 0; i < len(rows); {
		j := i
		var names []string
		for ; j < len(rows) && rows[j].Event == rows[i].Event; j++ {
			names = append(names, rows[j].Name)
		}
		out = append(out, rows[i].Event+": "+strings.Join(names, ", "))
		i = j
	}
	return out
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
