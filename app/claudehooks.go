package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/tools/chat"
)

// claudeHooks are the harness's Claude Code hooks and the transcript of
// the conversation they report on.
type claudeHooks struct {
	set  *claude.Set
	root string
	// dir holds the transcripts; "" without a state directory.
	dir  string
	warn func(string)

	// current is the conversation hooks report on, transcript its
	// Claude-format transcript; both change when a new Worker starts on
	// another conversation (/new, /resume).
	current    atomic.Pointer[conversation]
	transcript atomic.Pointer[claude.Transcript]
	n          atomic.Int64
	// notes are the running Notification hooks, awaited by close.
	notes sync.WaitGroup
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
// and the trusted project files ask for; their transcripts go to the
// state directory.
func (h *harness) registerClaudeHooks(env environ, emit func(agent.Event)) error {
	sources, err := claudeSources(h.st.User, h.st.Project, env)
	if err != nil || !slices.ContainsFunc(sources, func(s claude.Source) bool { return len(s.Settings.Hooks) > 0 }) {
		return err // settings with permissions only: resolve applied them
	}
	ch := &claudeHooks{root: h.root, warn: func(msg string) { emit(agent.Warning{Message: msg}) }}
	if state, err := config.StateDir(env.get); err == nil {
		ch.dir = filepath.Join(state, "claude-transcripts")
	}
	set, err := claude.New(sources, claude.Options{
		Guard:          h.guard,
		Workspace:      h.root,
		Env:            env,
		SessionID:      ch.sessionID,
		TranscriptPath: func() string { return ch.transcript.Load().Path() },
		Mode:           func() string { return string(h.policy.Mode()) },
		Warn:           ch.warn,
		Source:         sessionSource(h.st.Resuming),
	})
	if err != nil {
		return err
	}
	for _, n := range set.Notes {
		ch.warn(n)
	}
	ch.set = set
	set.Register(h.hooks)
	h.claude = ch
	return nil
}

// sessionSource is SessionStart's source: "resume" when the run goes on
// with a session (-c, --resume), else "startup".
func sessionSource(resuming bool) string {
	if resuming {
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

// wrap makes cfg feed a new transcript, which starts with the
// conversation the Worker goes on with (cfg.History), and fire the
// Notification hooks when a run pauses for approval; cv is the
// conversation hooks report on from now on.
func (ch *claudeHooks) wrap(cfg *agent.Config, cv *conversation) {
	if ch == nil {
		return
	}
	ch.current.Store(cv)
	if ch.dir != "" {
		name := fmt.Sprintf("%s-%d-%d.jsonl", time.Now().UTC().Format("20060102T150405"), os.Getpid(), ch.n.Add(1))
		t := claude.NewTranscript(filepath.Join(ch.dir, name), ch.root, ch.sessionID)
		if old := ch.transcript.Swap(t); old != nil {
			old.Close()
		}
		for _, m := range cfg.History {
			ch.record(t, m)
		}
		onMessage := cfg.OnMessage
		cfg.OnMessage = func(m agent.AddedMessage) {
			ch.record(t, m.Message)
			if onMessage != nil {
				onMessage(m)
			}
		}
	}
	onEvent := cfg.OnEvent
	cfg.OnEvent = func(e agent.Event) {
		onEvent(e)
		if p, ok := e.(agent.PausedEvent); ok && len(p.Pending) > 0 {
			// In the background: the approval dialog does not wait for it.
			ch.notes.Go(func() {
				ch.set.Notify(context.Background(), "tackle needs your permission to use "+p.Pending[0].Call.Name)
			})
		}
	}
}

// record writes m to t; its first error is a warning.
func (ch *claudeHooks) record(t *claude.Transcript, m chat.Message) {
	if err := t.Message(m); err != nil {
		ch.warn(err.Error())
	}
}

// close waits for running Notification hooks, runs the SessionEnd hooks
// and closes the transcript.
func (ch *claudeHooks) close() {
	if ch == nil {
		return
	}
	ch.notes.Wait()
	ch.set.End(context.Background(), "other")
	if t := ch.transcript.Load(); t != nil {
		t.Close()
	}
}

// claudePerms are the permissions of the Claude Code settings tackle
// reads, translated: their rules, their defaultModes (the project's, the
// user's) and what could not be translated.
type claudePerms struct {
	perms                   []approval.Permission
	projectModes, userModes []claudeMode
	notes                   []string
}

// claudeMode is the defaultMode of one settings file, in tackle's words.
type claudeMode struct {
	path string
	mode approval.Mode
}

// claudePermissions translates the permissions of the Claude Code settings
// files whose hooks tackle runs (claudeSources): the user's
// ~/.claude/settings.json when claude_hooks.user is set, and the
// project's trusted .claude/settings.json and settings.local.json. The
// project's local file's defaultMode wins over its shared one, as in
// Claude Code.
func claudePermissions(user config.Config, proj projectLayer, env environ, root string) (claudePerms, error) {
	var cp claudePerms
	sources, err := claudeSources(user, proj, env)
	if err != nil {
		return cp, err
	}
	home := env.get("HOME")
	for _, src := range sources {
		t := claude.TranslatePermissions(src, root, home)
		cp.perms = append(cp.perms, t.Perms...)
		cp.notes = append(cp.notes, t.Notes...)
		if t.Mode == "" {
			continue
		}
		m := claudeMode{path: src.Path, mode: t.Mode}
		switch {
		case !slices.ContainsFunc(proj.claude, func(p claude.Source) bool { return p.Path == src.Path }):
			cp.userModes = append(cp.userModes, m)
		case filepath.Base(src.Path) == "settings.local.json":
			cp.projectModes = append([]claudeMode{m}, cp.projectModes...)
		default:
			cp.projectModes = append(cp.projectModes, m)
		}
	}
	return cp, nil
}
