package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/tui/config"
)

// claudeHooks are the session's Claude Code hooks and the transcript
// they read.
type claudeHooks struct {
	set        *claude.Set
	transcript *claude.Transcript
	// current is the conversation whose session id hooks get.
	current atomic.Pointer[conversation]
}

// claudeSources are the Claude Code settings the config asks for: the
// user's ~/.claude/settings.json (claude_hooks.user) and the config's own
// claude_hooks.hooks, then the project's trusted ones (its config's
// claude_hooks.hooks, its .claude settings files).
func claudeSources(cfg config.Config, proj projectLayer, env environ) ([]claude.Source, error) {
	var sources []claude.Source
	if cfg.ClaudeHooks.User {
		home := env.get("HOME")
		if home == "" {
			return nil, errors.New("claude_hooks.user: HOME is not set")
		}
		src, err := claude.Load(filepath.Join(home, ".claude", "settings.json"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("claude_hooks.user: %w", err)
		default:
			sources = append(sources, src)
		}
	}
	if len(cfg.ClaudeHooks.Hooks) > 0 {
		where := "claude_hooks"
		if cfg.Path != "" {
			where = cfg.Path + ": claude_hooks"
		}
		sources = append(sources, claude.Source{Path: where, Settings: claude.Settings{Hooks: cfg.ClaudeHooks.Hooks}})
	}
	if len(proj.cfg.ClaudeHooks.Hooks) > 0 {
		sources = append(sources, claude.Source{Path: proj.cfg.Path + ": claude_hooks", Settings: claude.Settings{Hooks: proj.cfg.ClaudeHooks.Hooks}})
	}
	return append(sources, proj.claude...), nil
}

// registerClaudeHooks registers the Claude Code hooks the user's config
// and the trusted project files ask for; their transcript goes to the
// state directory.
func (s *session) registerClaudeHooks(c cli, cfg config.Config, env environ, emit func(agent.Event)) error {
	sources, err := claudeSources(cfg, c.project, env)
	if err != nil || len(sources) == 0 {
		return err
	}
	ch := &claudeHooks{}
	if state, err := config.StateDir(env.get); err == nil {
		name := fmt.Sprintf("%s-%d.jsonl", time.Now().UTC().Format("20060102T150405"), os.Getpid())
		ch.transcript = claude.NewTranscript(filepath.Join(state, "claude-transcripts", name), s.root, ch.sessionID)
	}
	set, err := claude.New(sources, claude.Options{
		Workspace:  s.root,
		Env:        env,
		SessionID:  ch.sessionID,
		Mode:       func() string { return string(s.policy.Mode()) },
		Transcript: ch.transcript,
		Warn:       func(msg string) { emit(agent.Warning{Message: msg}) },
		Source:     sessionSource(c),
	})
	if err != nil {
		return err
	}
	for _, n := range set.Notes {
		emit(agent.Warning{Message: n})
	}
	ch.set = set
	set.Register(s.hooks)
	s.claude = ch
	return nil
}

// sessionSource is SessionStart's source: "resume" when the run goes on
// with a session (-c, --resume), else "startup".
func sessionSource(c cli) string {
	if c.Continue || c.Resume.set {
		return "resume"
	}
	return "startup"
}

func (ch *claudeHooks) sessionID() string {
	if cv := ch.current.Load(); cv != nil {
		return cv.id()
	}
	return ""
}

// wrap makes cfg feed the transcript and fire Notification hooks when a
// run pauses for approval; cv is the conversation hooks report on.
func (ch *claudeHooks) wrap(cfg *agent.Config, cv *conversation) {
	if ch == nil {
		return
	}
	ch.current.Store(cv)
	if ch.transcript != nil {
		onMessage := cfg.OnMessage
		cfg.OnMessage = func(m agent.AddedMessage) {
			ch.transcript.Message(m.Message)
			if onMessage != nil {
				onMessage(m)
			}
		}
	}
	onEvent := cfg.OnEvent
	cfg.OnEvent = func(e agent.Event) {
		onEvent(e)
		if p, ok := e.(agent.PausedEvent); ok && len(p.Pending) > 0 {
			ch.set.Notify(context.Background(), "tackle needs your permission to use "+p.Pending[0].Call.Name)
		}
	}
}

// close runs the SessionEnd hooks and closes the transcript.
func (ch *claudeHooks) close() {
	if ch == nil {
		return
	}
	ch.set.End(context.Background(), "other")
	if ch.transcript != nil {
		ch.transcript.Close()
	}
}
