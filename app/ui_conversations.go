package app

import (
	"fmt"
	"io"
	"sync"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/tui"
)

// uiConversations are the interactive UI's conversations: the current
// one, a new one (/new), or a saved session to go on with (/resume; the
// tui.Sessions it lists and opens). The conversation before is closed —
// its session released — when another one starts.
type uiConversations struct {
	h     *harness
	store *session.Store // nil without a state directory
	sink  func(agent.Event)
	// ask puts the subagents' calls to the user (tui.Bridge.AskChild).
	ask agent.ChildAsker

	mu  sync.Mutex
	cur *conversation
}

func (u *uiConversations) warn(err error) { u.sink(agent.Warning{Message: err.Error()}) }

// switchTo makes cv the current conversation (nil: none) and closes the
// one before; what goes wrong closing it goes to report.
func (u *uiConversations) switchTo(cv *conversation, report func(error)) {
	u.mu.Lock()
	old := u.cur
	u.cur = cv
	u.mu.Unlock()
	if old == nil {
		return
	}
	if err := old.close(); err != nil {
		report(err)
	}
}

// fresh starts a new conversation (tui.Options.NewAgent).
func (u *uiConversations) fresh() tui.Agent {
	cv := u.h.newConversation(u.store, u.warn)
	u.switchTo(cv, u.warn)
	w := u.h.worker(cv, u.sink)
	w.AskChildrenWith(u.ask)
	return w
}

// resume goes on with the session res; a run it paused on is restored,
// for the UI to ask about.
func (u *uiConversations) resume(res *resumed) (tui.Resumed, error) {
	cv := u.h.continueConversation(res, u.warn)
	w := u.h.worker(cv, u.sink)
	w.AskChildrenWith(u.ask)
	r := tui.Resumed{ID: res.l.Header.ID, Agent: w, Model: cv.model, Records: cv.records, Warnings: cv.warnings}
	if cv.pause != nil {
		out, err := cv.restore(w)
		if err != nil {
			cv.close()
			return tui.Resumed{}, err
		}
		r.Paused = &out
	}
	u.switchTo(cv, u.warn)
	return r, nil
}

// List returns the workspace's sessions but the current one.
func (u *uiConversations) List() ([]session.Info, error) {
	list, err := u.store.List(u.h.root)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	cur := u.cur.id()
	u.mu.Unlock()
	out := list[:0]
	for _, in := range list {
		if in.ID != cur {
			out = append(out, in)
		}
	}
	return out, nil
}

// Open goes on with session id of the workspace.
func (u *uiConversations) Open(id string) (tui.Resumed, error) {
	info, err := u.store.Find(u.h.root, id)
	if err != nil {
		return tui.Resumed{}, err
	}
	res, err := reopen(u.store, info.Path)
	if err != nil {
		return tui.Resumed{}, err
	}
	return u.resume(res)
}

// currentID is the current conversation's session id, "" while it has
// recorded nothing.
func (u *uiConversations) currentID() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cur == nil {
		return ""
	}
	return u.cur.id()
}

// close ends the current conversation; a problem is reported on w (the
// UI, which warnings reach otherwise, has ended).
func (u *uiConversations) close(w io.Writer) {
	u.switchTo(nil, func(err error) { fmt.Fprintf(w, "tackle: warning: %v\n", err) })
}
