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
	"github.com/tackle-dev/tackle/tools/chat"
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

// conversation is the session a run records into and where its Worker
// starts: a new session, or a continued one.
type conversation struct {
	rec *session.Recorder // nil without a state directory
	// history is the continued conversation (nil for a new one), made
	// whole when its process died during a tool call.
	history []chat.Message
	// pause is the paused run the continued session ended with, if any.
	pause *session.Record
	model string
	// records are the continued session's, for the UI's transcript.
	records  []session.Record
	warnings []string // problems loading the continued session's file
}

// id is the session's id, "" while nothing was recorded.
func (cv *conversation) id() string {
	if cv.rec == nil {
		return ""
	}
	return cv.rec.ID()
}

// close writes what is left and releases the session file.
func (cv *conversation) close() error {
	if cv.rec == nil {
		return nil
	}
	return cv.rec.Close()
}

// newConversation starts a new session in store (none when store is nil).
func (h *harness) newConversation(store *session.Store, warn func(error)) *conversation {
	cv := &conversation{model: h.st.Model}
	if store != nil {
		cv.rec = store.Recorder(session.Header{Tackle: version, Workspace: h.root, Model: h.st.Model}, warn)
		cv.rec.SetRedact(h.redactor.Redact)
	}
	return cv
}

// continueConversation goes on with the session res: its conversation,
// its model (unless --model was given), and a result for each call its
// process died before answering.
func (h *harness) continueConversation(res *resumed, warn func(error)) *conversation {
	res.taken = true
	cv := &conversation{
		rec:      session.NewRecorder(res.w, warn),
		history:  res.l.Messages(),
		pause:    res.pause(),
		model:    res.l.Model(),
		records:  res.l.Records,
		warnings: res.l.Warnings,
	}
	cv.rec.SetRedact(h.redactor.Redact)
	if h.st.fromFlag("model") && h.st.Model != cv.model {
		cv.model = h.st.Model
		cv.add(session.Record{Kind: session.KindModel, Model: h.st.Model})
	}
	if cv.pause == nil {
		for _, m := range session.CloseOpenCalls(cv.history) {
			cv.history = append(cv.history, m.Message)
			cv.add(session.Record{Kind: session.KindMessage, Message: &m.Message, Status: m.Status})
		}
	}
	return cv
}

// add records r, which the transcript shows too.
func (cv *conversation) add(r session.Record) {
	cv.rec.Append(r)
	cv.records = append(cv.records, r)
}

// restore puts w in the paused state of cv's pause.
func (cv *conversation) restore(w *agent.Worker) (agent.Outcome, error) {
	out, err := w.Restore(*cv.pause.Paused)
	if err != nil {
		return out, fmt.Errorf("session %s cannot go on where it paused: %w", cv.id(), err)
	}
	return out, nil
}

// pausedCalls is an error for a new prompt sent to a session that waits
// for answers to its calls; nil when it does not.
func (cv *conversation) pausedCalls() error {
	if cv.pause == nil || len(cv.pause.Pending) == 0 {
		return nil
	}
	id := cv.id()
	return usagef("session %s is paused: %s for an answer (%s). Answer with tackle --resume %s --approve CALL_ID|all or --deny CALL_ID [--reason TEXT]",
		id, plural(len(cv.pause.Pending), "1 call waits", fmt.Sprintf("%d calls wait", len(cv.pause.Pending))), headless.PendingList(cv.pause.Pending), id)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
