package app

// Sessions: every run records into a session (agent/session) under the
// state directory. -c and --resume ID go on with one, and --approve and
// --deny answer the calls a saved pause waits for.

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/tui/headless"
)

// sessionStore is the store under the state directory, or nil when there
// is none (no HOME): sessions are then not kept.
func sessionStore(env environ) *session.Store {
	dir, err := config.StateDir(env.get)
	if err != nil {
		return nil
	}
	return session.Open(filepath.Join(dir, "sessions"))
}

// workspaceRoot is the workspace's real absolute path, as
// tools.OpenWorkspace resolves it: sessions are kept by it.
func workspaceRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", usagef("workspace: %w", err)
	}
	return real, nil
}

// resumed is the session -c or --resume ID goes on with: locked for this
// process, then loaded.
type resumed struct {
	w *session.Writer
	l *session.Loaded
	// taken: a recorder writes through w now and closes it.
	taken bool
}

// pause is the paused run the session ended with, or nil.
func (r *resumed) pause() *session.Record { return r.l.LastPause() }

// close releases the session unless a recorder took it.
func (r *resumed) close() {
	if r != nil && !r.taken {
		r.w.Close()
	}
}

// openResumed opens the session of the workspace that -c (cont) or
// --resume ID names; nil when there is none to open now (neither flag, or
// --resume without an ID, which the UI asks for).
func openResumed(workspace string, cont bool, resume resumeFlag, env environ) (*resumed, error) {
	if cont && resume.set {
		return nil, usagef("-c/--continue and --resume name a session each: give one of them")
	}
	if !cont && resume.id == "" {
		return nil, nil
	}
	store := sessionStore(env)
	if store == nil {
		return nil, usagef("no state directory to find sessions in (set HOME or XDG_STATE_HOME)")
	}
	root, err := workspaceRoot(workspace)
	if err != nil {
		return nil, err
	}
	if !cont {
		info, err := store.Find(root, resume.id)
		if err != nil {
			return nil, usageError{err}
		}
		return reopen(store, info.Path)
	}
	info, ok, err := store.Latest(root)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, usagef("no session to continue in %s yet", root)
	}
	return reopen(store, info.Path)
}

// reopen locks and loads the session file at path.
func reopen(store *session.Store, path string) (*resumed, error) {
	w, l, err := store.Reopen(path)
	if errors.Is(err, session.ErrInUse) {
		return nil, fmt.Errorf("%w: quit that tackle first, or start a new session", err)
	}
	if err != nil {
		return nil, err
	}
	return &resumed{w: w, l: l}, nil
}

// answers reads --approve and --deny CALL_ID [--reason TEXT] as the
// answers to the pause res ended with (nil when there are none), and
// returns the --deny values that are rules. A --deny value that names no
// pending call (nor "all") stays a deny rule. Every pending call must be
// answered; an answer to a call that does not wait is an error.
func (c *cli) answers(kctx *kong.Context, res *resumed) (*pauseAnswers, []string, error) {
	var pause *session.Record
	if res != nil {
		pause = res.pause()
	}
	pending := map[string]bool{}
	if pause != nil {
		for _, p := range pause.Pending {
			pending[p.Call.ID] = true
		}
	}
	isAnswer := func(v string) bool { return pause != nil && (v == "all" || pending[v]) }
	denies, rules, err := c.denyAnswers(kctx, isAnswer)
	if err != nil {
		return nil, nil, err
	}
	if len(c.Approve) == 0 && len(denies) == 0 {
		return nil, rules, nil
	}
	switch {
	case res == nil:
		return nil, nil, usagef("--approve and --deny CALL_ID answer a saved pause: name its session with --resume ID")
	case pause == nil:
		return nil, nil, usagef("--approve: session %s is not paused: nothing waits for an answer", res.l.Header.ID)
	case c.Prompt != "":
		return nil, nil, usagef("--approve and --deny resume the paused run; send a new prompt afterwards (tackle -c -p ...)")
	}
	if pause.Paused == nil {
		return nil, nil, usagef("session %s: its pause record does not say where the run stopped: it cannot go on", res.l.Header.ID)
	}
	if pause.Paused.TurnEnd != nil {
		if len(denies) > 0 || !slices.Equal(c.Approve, []string{"all"}) {
			return nil, nil, usagef("session %s paused at turn end (%s): --approve all goes on; there is no call to answer", res.l.Header.ID, pause.Paused.TurnEnd.Reason)
		}
		return &pauseAnswers{}, rules, nil
	}
	decisions, err := headless.Decisions(pause.Pending, c.Approve, denies)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("session %s: %w", res.l.Header.ID, err)}
	}
	return &pauseAnswers{decisions: decisions}, rules, nil
}

// pauseAnswers are the answers to a saved pause: nil decisions go on
// after a pause at turn end.
type pauseAnswers struct {
	decisions []agent.Decision
}

// denyAnswers splits the --deny values into answers (isAnswer) and rules,
// pairing each --reason with the --deny before it on the command line.
func (c *cli) denyAnswers(kctx *kong.Context, isAnswer func(string) bool) ([]headless.Denial, []string, error) {
	var answers []headless.Denial
	var rules []string
	var lastDeny *headless.Denial // the --deny just before, when it answers a call
	di, ri := 0, 0
	for _, p := range kctx.Path {
		if p.Flag == nil || p.Resolved {
			continue
		}
		switch p.Flag.Name {
		case "deny":
			lastDeny = nil
			v := c.Deny[di]
			di++
			if !isAnswer(v) {
				rules = append(rules, v)
				continue
			}
			answers = append(answers, headless.Denial{CallID: v})
			lastDeny = &answers[len(answers)-1]
		case "reason":
			r := c.Reason[ri]
			ri++
			if lastDeny == nil {
				return nil, nil, usagef("--reason %q: it explains the --deny CALL_ID just before it (of a paused session's call)", r)
			}
			lastDeny.Reason, lastDeny = r, nil
		default:
			lastDeny = nil
		}
	}
	return answers, rules, nil
}
