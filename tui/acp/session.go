package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// session is an open session: the application's, and what the editor
// has been told of its tool calls.
type session struct {
	*Session
	a *agentSide

	// turn is held by the prompt running: one at a time. The connection
	// cancels a running prompt when the next one comes; the next waits
	// for it to wind down.
	turn sync.Mutex

	// asking is held while the editor is asked about calls: subagents
	// running in parallel ask one after the other, as the UI's dialogs
	// come one at a time.
	asking sync.Mutex

	mu sync.Mutex
	// calls are the tool calls the editor knows, by their id there
	// (a subagent's prefixed with its agent's id).
	calls map[string]*callView
	// pauses counts the turn-end pauses put to the editor, for their ids.
	pauses int
}

// callView is a tool call as the editor was last told of it.
type callView struct {
	call chat.ToolCall
}

// close ends the session, once its turn (cancelled with the connection
// or with tackle) has wound down.
func (s *session) close() error {
	if s.Session == nil || s.Close == nil {
		return nil
	}
	s.turn.Lock()
	defer s.turn.Unlock()
	return s.Close()
}

// send sends one update of the session. It does not stop with the
// prompt: what a cancelled turn still reports (the calls' last state)
// reaches the editor before the prompt's answer.
func (s *session) send(u sdk.SessionUpdate) {
	err := s.a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(s.ID), Update: u})
	if err != nil {
		s.a.logf("session %s: update not sent: %v", s.ID, err)
	}
}

// event turns one of the session's events into updates for the editor.
// Warnings and errors go to the log (the editor's log of the agent).
func (s *session) event(e agent.Event) {
	switch e := e.(type) {
	case agent.Warning:
		s.a.logf("warning: %s", e.Message)
	case agent.ErrorEvent:
		s.a.logf("error: %s", e.Message)
	case agent.MCPServerStatus:
		if e.Error != "" {
			s.a.logf("MCP server %s: %s: %s", e.Server, e.State, e.Error)
		}
	case agent.SubagentEvent:
		// A subagent's calls show under ids of their own; its text and
		// reasoning reach the parent as the task call's result.
		s.toolEvent(e.Agent.ID+"/", e.Event)
	case agent.TextDelta:
		if e.Text != "" {
			s.send(sdk.UpdateAgentMessageText(e.Text))
		}
	case agent.ReasoningDelta:
		if e.Text != "" {
			s.send(sdk.UpdateAgentThoughtText(e.Text))
		}
	case agent.TodoUpdated:
		s.send(planUpdate(e))
	default:
		s.toolEvent("", e)
	}
}

// toolEvent tells the editor of a tool call's progress: announced
// (pending) when the model's reply asks for it, running when it starts,
// completed or failed with its result when it ends. prefix makes a
// subagent's call ids its own.
func (s *session) toolEvent(prefix string, e agent.Event) {
	switch e := e.(type) {
	case agent.AssistantMessage:
		for _, c := range e.Message.ToolCalls {
			s.show(prefix+c.ID, c, sdk.ToolCallStatusPending)
		}
	case agent.ToolCallStarted:
		s.show(prefix+e.Call.ID, e.Call, sdk.ToolCallStatusInProgress)
	case agent.ToolCallFinished:
		s.finish(prefix+e.Call.ID, e.Call, e.Result)
	}
}

// show announces a call, or updates the editor's view of it: its status,
// and what it is when hooks changed it.
func (s *session) show(id string, call chat.ToolCall, status sdk.ToolCallStatus) {
	s.mu.Lock()
	v, known := s.calls[id]
	same := known && v.call.Name == call.Name && v.call.Arguments == call.Arguments
	s.calls[id] = &callView{call: call}
	s.mu.Unlock()
	if same {
		s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(status)))
		return
	}
	d := s.describe(call)
	if !known {
		s.send(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: sdk.ToolCallId(id), Title: d.title, Kind: d.kind, Status: status,
			Locations: d.locations, Content: d.content, RawInput: d.rawInput,
		}})
		return
	}
	u := d.update(id)
	u.Status = &status
	s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: u.ToolCallId, Title: u.Title, Kind: u.Kind, Status: u.Status,
		Locations: u.Locations, Content: u.Content, RawInput: u.RawInput,
	}})
}

// maxResult bounds the text of a result the editor is shown.
const maxResult = 32 << 10

// finish tells the editor how a call ended: completed, or failed (an
// error, or it did not run: denied, skipped, aborted) with the result
// the model got. A file change keeps its diff.
func (s *session) finish(id string, call chat.ToolCall, res chat.ToolResult) {
	s.mu.Lock()
	_, known := s.calls[id]
	delete(s.calls, id)
	s.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	if res.Status != chat.StatusOK {
		status = sdk.ToolCallStatusFailed
	}
	d := s.describe(call)
	var content []sdk.ToolCallContent
	if !d.diff || status != sdk.ToolCallStatusCompleted {
		content = []sdk.ToolCallContent{resultContent(res)}
	}
	if !known {
		s.send(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: sdk.ToolCallId(id), Title: d.title, Kind: d.kind, Status: status,
			Locations: d.locations, Content: append(d.content, content...), RawInput: d.rawInput,
		}})
		return
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status)}
	if content != nil {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), opts...))
}

// resultContent is the result the model got, as the editor shows it.
func resultContent(res chat.ToolResult) sdk.ToolCallContent {
	text := chat.Quote(res.Content, maxResult)
	if res.Status == chat.StatusDenied || res.Status == chat.StatusSkipped {
		text = string(res.Status) + ": " + text
	}
	return sdk.ToolContent(sdk.TextBlock(text))
}

// planUpdate is the model's plan as the editor shows it.
func planUpdate(e agent.TodoUpdated) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(e.Todos))
	for _, t := range e.Todos {
		st := sdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: t.Content, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return sdk.UpdatePlan(entries...)
}

// prompt runs one turn: the prompt goes to the Worker, each pause is put
// to the editor, and the turn's end is its stop reason. A cancel (the
// connection cancels ctx on session/cancel) stops the turn: a call
// waiting for the editor's answer is aborted, as the UI's esc aborts it,
// and every call gets its one result.
func (s *session) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	s.turn.Lock()
	defer s.turn.Unlock()
	if err := ctx.Err(); err != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if s.Ready != nil {
		s.Ready(ctx)
	}
	// A loaded session that stopped paused asks about its pause first:
	// the run it stopped in goes on, then the prompt is sent.
	if p := s.Paused; p != nil {
		s.Paused = nil
		out, err := *p, error(nil)
		for err == nil && out.Status == agent.StatusPaused {
			out, err = s.answer(ctx, out)
		}
		// Stopping it (a turn-end pause answered "stop") still sends
		// the prompt; a cancel or a failure ends the turn.
		if ctx.Err() != nil || (err != nil && !errors.Is(err, agent.ErrUserAbort)) {
			return stopReason(ctx, out, err)
		}
	}
	text, images, notes := s.promptText(blocks)
	for _, n := range notes {
		s.send(sdk.UpdateAgentMessageText("_" + n + "_\n\n"))
	}
	out, err := s.Worker.Run(ctx, text, images...)
	for err == nil && out.Status == agent.StatusPaused {
		out, err = s.answer(ctx, out)
	}
	return stopReason(ctx, out, err)
}

// answer puts a paused run's question to the editor and goes on with its
// answer.
func (s *session) answer(ctx context.Context, out agent.Outcome) (agent.Outcome, error) {
	if len(out.Pending) == 0 {
		if s.askTurnEnd(ctx, out.Reason) {
			return s.Worker.Resume(ctx, nil)
		}
		// A run paused at turn end has no call to abort: resuming it
		// with a cancelled context ends it, and on_abort hooks run.
		stopped, cancel := context.WithCancel(context.WithoutCancel(ctx))
		cancel()
		return s.Worker.Resume(stopped, nil)
	}
	decisions, err := s.ask(ctx, "", out.Pending)
	if err != nil {
		// Cancelled while the editor was asked: the pending calls are
		// aborted (each gets its result), on_abort hooks run.
		return s.Worker.Resume(context.WithoutCancel(ctx), abortAll(out.Pending, "cancelled by the user"))
	}
	return s.Worker.Resume(ctx, decisions)
}

// askChild puts a subagent's calls to the editor while its parent's task
// call runs.
func (s *session) askChild(ctx context.Context, who hooks.Agent, pending []agent.PendingCall) ([]agent.Decision, error) {
	decisions, err := s.ask(ctx, who.ID+"/", pending)
	if err != nil {
		return abortAll(pending, "cancelled by the user"), nil
	}
	return decisions, nil
}

// errNoAnswer: the editor did not answer a permission request (the turn
// was cancelled, or the connection failed).
var errNoAnswer = errors.New("the editor gave no answer")

// The options of a permission request.
const (
	optAllow  = "allow"
	optAlways = "allow_always"
	optReject = "reject"
)

// ask puts each pending call to the editor, one after the other, and
// returns its answers as decisions: allow once (approve), allow always
// (approve and the policy's session rules for calls like it, as the UI's
// "always"; offered only when the policy has a rule for the call) or
// reject (deny). Only calls the policy and hooks paused are asked: what
// they deny or skip never is.
func (s *session) ask(ctx context.Context, prefix string, pending []agent.PendingCall) ([]agent.Decision, error) {
	s.asking.Lock()
	defer s.asking.Unlock()
	decisions := make([]agent.Decision, 0, len(pending))
	for _, p := range pending {
		id := prefix + p.Call.ID
		// The pending call is what will run: hooks may have changed it
		// since the model asked.
		s.show(id, p.Call, sdk.ToolCallStatusPending)
		d := s.describe(p.Call)
		u := d.update(id)
		u.Status = sdk.Ptr(sdk.ToolCallStatusPending)
		u.Content = append([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(pauseNote(p)))}, u.Content...)
		opts := []sdk.PermissionOption{{OptionId: optAllow, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce}}
		if rules := s.Policy.AlwaysRules(p.Call); len(rules) > 0 {
			names := make([]string, len(rules))
			for i, r := range rules {
				names[i] = r.String()
			}
			opts = append(opts, sdk.PermissionOption{OptionId: optAlways, Name: "Always allow " + escape(strings.Join(names, ", ")), Kind: sdk.PermissionOptionKindAllowAlways})
		}
		opts = append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
		resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.ID), ToolCall: u, Options: opts})
		if err != nil {
			if ctx.Err() == nil {
				s.a.logf("session %s: permission request for %s failed: %v", s.ID, p.Call.ID, err)
			}
			return nil, errNoAnswer
		}
		if resp.Outcome.Selected == nil {
			return nil, errNoAnswer
		}
		d2 := agent.Decision{CallID: p.Call.ID}
		switch resp.Outcome.Selected.OptionId {
		case optAllow:
			d2.Verdict = agent.Approve
		case optAlways:
			if len(opts) != 3 {
				return nil, fmt.Errorf("the editor chose %q, which was not offered", optAlways)
			}
			d2.Verdict = agent.ApproveAlways
		case optReject:
			d2.Verdict = agent.Deny
		default:
			// An answer that is not one of the options approves nothing.
			s.a.logf("session %s: the editor answered %q, not an option: the call is denied", s.ID, resp.Outcome.Selected.OptionId)
			d2.Verdict = agent.Deny
		}
		decisions = append(decisions, d2)
	}
	return decisions, nil
}

// askTurnEnd asks the editor whether a turn an on_turn_end hook paused
// goes on; false stops it.
func (s *session) askTurnEnd(ctx context.Context, reason string) bool {
	s.mu.Lock()
	s.pauses++
	id := sdk.ToolCallId(fmt.Sprintf("turn_end_pause_%d", s.pauses))
	s.mu.Unlock()
	title := "A hook paused the end of the turn"
	text := "A hook paused the end of the turn"
	if reason != "" {
		text += ": " + escape(reason)
	}
	s.send(sdk.StartToolCall(id, title, sdk.WithStartKind(sdk.ToolKindThink), sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
	resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.ID),
		ToolCall:  sdk.ToolCallUpdate{ToolCallId: id, Title: sdk.Ptr(title), Status: sdk.Ptr(sdk.ToolCallStatusPending)},
		Options: []sdk.PermissionOption{
			{OptionId: "continue", Name: "Continue", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: "stop", Name: "Stop the turn", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	})
	goOn := err == nil && resp.Outcome.Selected != nil && resp.Outcome.Selected.OptionId == "continue"
	status := sdk.ToolCallStatusCompleted
	if !goOn {
		status = sdk.ToolCallStatusFailed
	}
	s.send(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status)))
	return goOn
}

// pauseNote says who asked about a call and why.
func pauseNote(p agent.PendingCall) string {
	why := escape(p.Reason)
	switch {
	case p.Hook == "":
		return why
	case why == "":
		return "asked by hook " + p.Hook
	}
	return why + " (asked by hook " + p.Hook + ")"
}

// abortAll answers every pending call with AbortRun.
func abortAll(pending []agent.PendingCall, reason string) []agent.Decision {
	out := make([]agent.Decision, len(pending))
	for i, p := range pending {
		out[i] = agent.Decision{CallID: p.Call.ID, Verdict: agent.AbortRun, Reason: reason}
	}
	return out
}

// stopReason is the answer to session/prompt for a turn that ended with
// out and err: cancelled when the editor cancelled it, the budget or the
// reply's cut when it ended so, an error when it failed.
func stopReason(ctx context.Context, out agent.Outcome, err error) (sdk.PromptResponse, error) {
	if ctx.Err() != nil || errors.Is(err, agent.ErrUserAbort) {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	switch {
	case out.Status == agent.StatusCapped:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case strings.Contains(out.Incomplete, "content_filter"):
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case out.Incomplete != "":
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}
