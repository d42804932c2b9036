package acp

// Sessions the editor loads again (session/load) and lists
// (session/list): tackle's saved sessions, by the ids `tackle sessions`
// shows.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/agent"
	saved "github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// LoadSession goes on with a saved session in the editor's working
// directory, which must be its workspace: its conversation is replayed
// to the editor as session updates before the answer, and what
// `tackle --resume ID` restores is restored (the session rules, the
// files the model read, the notes waiting for the next prompt, a paused
// run). A session another process writes is refused.
func (a *agentSide) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	a.mu.Lock()
	_, open := a.sessions[string(p.SessionId)]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is open on this connection already", p.SessionId)})
	}
	s, err := a.openSession(Open{Dir: p.Cwd, Load: string(p.SessionId)}, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s.replay()
	return sdk.LoadSessionResponse{Modes: modeState(s.Policy.Mode())}, nil
}

// ListSessions lists the saved sessions of the editor's working directory
// (of every workspace without one), the one used last first, titled by
// their first prompt. They come in one page.
func (a *agentSide) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	if p.Cursor != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": "tackle lists every session in one page: there is no next page"})
	}
	dir := ""
	if p.Cwd != nil {
		dir = *p.Cwd
		if !filepath.IsAbs(dir) {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", dir)})
		}
	}
	infos, err := a.list(dir)
	if err != nil {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := []sdk.SessionInfo{}
	for _, in := range infos {
		if in.Unreadable != "" {
			continue
		}
		si := sdk.SessionInfo{SessionId: sdk.SessionId(in.ID), Cwd: in.Workspace, UpdatedAt: sdk.Ptr(in.Updated.UTC().Format(time.RFC3339))}
		if t := title(in.FirstPrompt); t != "" {
			si.Title = &t
		}
		out = append(out, si)
	}
	return sdk.ListSessionsResponse{Sessions: out}, nil
}

// maxSessionTitle bounds a session's title in a listing.
const maxSessionTitle = 100

// title is a session's title: the first line of its first prompt, as the
// user typed it (without tackle's notes), hidden characters as escapes.
func title(prompt string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(agent.WithoutNotes(prompt)), "\n")
	t := escape(chat.OneLine(first, 0))
	if len(t) <= maxSessionTitle {
		return t
	}
	cut := maxSessionTitle
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return t[:cut] + "…"
}

// replay shows the editor the conversation of a loaded session as it saw
// it live: the user's prompts (without tackle's notes), the model's
// reasoning and answers, each tool call with its title, kind and
// locations, completed or failed with the result the model got (a call
// that waits for an answer stays pending), and the plan as it stands.
// File changes are shown without their diff: the file has changed since.
func (s *session) replay() {
	s.turn.Lock()
	defer s.turn.Unlock()
	open := map[string]chat.ToolCall{}
	var order []string
	var plan []tools.TodoItem
	for _, r := range s.History {
		switch {
		case r.Kind == saved.KindTodos:
			plan = r.Todos
		case r.Kind != saved.KindMessage || r.Message == nil:
		case r.Message.Role == chat.RoleUser && r.Prompt:
			s.send(sdk.UpdateUserMessageText(agent.WithoutNotes(r.Message.Content)))
		case r.Message.Role == chat.RoleAssistant:
			m := r.Message
			if m.Reasoning != "" {
				s.send(sdk.UpdateAgentThoughtText(m.Reasoning))
			}
			if m.Content != "" {
				s.send(sdk.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				open[c.ID] = c
				order = append(order, c.ID)
			}
		case r.Message.Role == chat.RoleTool:
			c, ok := open[r.Message.ToolCallID]
			if !ok {
				continue
			}
			delete(open, c.ID)
			status := r.Status
			if status == "" {
				status = chat.StatusOK
			}
			s.replayCall(c, &chat.ToolResult{CallID: c.ID, Status: status, Content: r.Message.Content})
		}
	}
	for _, id := range order {
		if c, ok := open[id]; ok {
			s.replayCall(c, nil)
		}
	}
	if len(plan) > 0 {
		s.send(planUpdate(agent.TodoUpdated{Todos: plan}))
	}
	s.History = nil // shown: the session file keeps it
}

// replayCall shows a call of a loaded session: ended with res, or pending
// when it has none.
func (s *session) replayCall(call chat.ToolCall, res *chat.ToolResult) {
	d := s.describe(call)
	u := &sdk.SessionUpdateToolCall{ToolCallId: sdk.ToolCallId(call.ID), Title: d.title, Kind: d.kind, Locations: d.locations, RawInput: d.rawInput, Status: sdk.ToolCallStatusPending}
	if !d.diff {
		u.Content = d.content
	}
	if res != nil {
		u.Status = sdk.ToolCallStatusCompleted
		if res.Status != chat.StatusOK {
			u.Status = sdk.ToolCallStatusFailed
		}
		u.Content = append(u.Content, resultContent(*res))
	}
	s.send(sdk.SessionUpdate{ToolCall: u})
}
