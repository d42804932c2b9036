package app

// The conversation a run records into: a new session, or the one -c or
// --resume goes on with (resume.go opens it).

import (
	"fmt"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tui/headless"
)

// conversation is the session a run records into and where its Worker
// starts: a new session, or a continued one.
type conversation struct {
	rec *session.Recorder // nil without a state directory
	// history is the continued conversation (nil for a new one), made
	// whole when its process died during a tool call.
	history []chat.Message
	// pause is the paused run the continued session ended with, if any.
	pause *session.Record
	// notes are the continued session's notes for the model that wait
	// for the next user message.
	notes []string
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
	return h.newConversationAs(store, "", warn)
}

// newConversationAs starts a new session in store whose id is id
// (session.Store.NewID), a new one when id is "".
func (h *harness) newConversationAs(store *session.Store, id string, warn func(error)) *conversation {
	cv := &conversation{model: h.st.Model}
	if store != nil {
		cv.rec = store.Recorder(session.Header{ID: id, Tackle: version, Workspace: h.root, Model: h.st.Model}, warn)
		cv.rec.SetRedact(h.redactor.Redact)
	}
	h.toolbox.SetFiles(nil) // the model of a new conversation has seen no file
	h.files.Store(cv.rec)
	h.policy.SetSessionRules() // nor has it any "approve always" rule
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
		notes:    res.l.PendingNotes(),
		model:    res.l.Model(),
		records:  res.l.Records,
		warnings: res.l.Warnings,
	}
	cv.rec.SetRedact(h.redactor.Redact)
	// The files the model read or wrote before: an edit of one approved
	// in this process is applied, one changed since is refused as changed.
	h.toolbox.SetFiles(res.l.Files())
	h.files.Store(cv.rec)
	// The rules "approve always" gave the session last for all of it.
	h.restoreRules(res.l, warn)
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
