package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// PausedRun is where a paused run stopped, in a form that outlives the
// process (it is JSON): a Worker started on the same conversation
// (Config.History) takes it with Restore and goes on with Resume as if it
// had never stopped. A hook is named, not only numbered: Restore finds
// the hook that paused in the chain of the new process, whose hooks may
// have been registered in another order.
type PausedRun struct {
	// Calls is the paused batch in call order; nil when an on_turn_end
	// hook paused.
	Calls []PausedCall `json:"calls,omitempty"`
	// TurnEnd is set when an on_turn_end hook paused.
	TurnEnd *PausedTurnEnd `json:"turn_end,omitempty"`

	// What the run had counted: model requests, tokens, turn-end retry
	// rounds, hook failures; and the last assistant text (Outcome.Text).
	Requests     int               `json:"requests"`
	Usage        chat.Usage        `json:"usage"`
	Retry        hooks.BudgetState `json:"retry"`
	LastText     string            `json:"last_text,omitempty"`
	HookFailures int               `json:"hook_failures,omitempty"`
}

// The states of a call in a paused batch.
const (
	CallPending  = "pending"  // waits for a decision
	CallApproved = "approved" // its pre_tool_call chain let it run: it runs with the batch
	CallDecided  = "decided"  // has its result without running (skipped, an error)
)

// PausedCall is one call of a paused batch.
type PausedCall struct {
	// Call is the call as the model sent it (its result answers Call.ID);
	// Current is the call as hooks left it: what runs, what is approved.
	Call    chat.ToolCall `json:"call"`
	Current chat.ToolCall `json:"current"`
	State   string        `json:"state"`
	// Result is a decided call's result.
	Result *chat.ToolResult `json:"result,omitempty"`
	// Hook is the pre_tool_call hook that paused a pending call, HookIndex
	// its place in the chain, Reason its reason.
	Hook      string `json:"hook,omitempty"`
	HookIndex int    `json:"hook_index"`
	Reason    string `json:"reason,omitempty"`
	// Reapprovals counts the times hooks changed the call after the user
	// approved it.
	Reapprovals int `json:"reapprovals,omitempty"`
}

// MarshalJSON leaves "current" out when hooks left the call as the model
// sent it, as they mostly do: a paused call's arguments (a whole file of a
// write) are kept once.
func (pc PausedCall) MarshalJSON() ([]byte, error) {
	type plain PausedCall
	v := struct {
		plain
		Current *chat.ToolCall `json:"current,omitempty"`
	}{plain: plain(pc)}
	if !identical(pc.Current, pc.Call) {
		v.Current = &pc.Current
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads a PausedCall; without "current", Current is Call.
func (pc *PausedCall) UnmarshalJSON(b []byte) error {
	type plain PausedCall
	var v struct {
		plain
		Current *chat.ToolCall `json:"current"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*pc = PausedCall(v.plain)
	pc.Current = pc.Call
	if v.Current != nil {
		pc.Current = *v.Current
	}
	return nil
}

// identical reports whether two calls are the same to the byte.
func identical(a, b chat.ToolCall) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Arguments == b.Arguments &&
		maps.EqualFunc(a.Extra, b.Extra, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })
}

// PausedTurnEnd is a run that an on_turn_end hook paused.
type PausedTurnEnd struct {
	Hook      string       `json:"hook"`
	HookIndex int          `json:"hook_index"`
	Reason    string       `json:"reason,omitempty"`
	Final     chat.Message `json:"final"`
	Round     int          `json:"round"`
}

// ErrHooksChanged is returned by Restore when the hook that paused the
// run is not in this process's chain: the run cannot go on where it
// stopped.
var ErrHooksChanged = errors.New("agent: the hooks changed since the run paused")

// pausedRun describes the paused run p for PausedEvent.
func (w *Worker) pausedRun(p *pause) *PausedRun {
	st := w.run
	pr := &PausedRun{
		Requests: st.requests, Usage: st.usage, Retry: st.budget.State(),
		LastText: st.lastText, HookFailures: st.hookFailures,
	}
	if p.batch == nil {
		names := st.hooks.Names(hooks.OnTurnEnd)
		pr.TurnEnd = &PausedTurnEnd{Hook: nameAt(names, p.turnEndFrom), HookIndex: p.turnEndFrom, Reason: p.reason, Final: p.turnEnd.Final, Round: p.turnEnd.Round}
		return pr
	}
	names := st.hooks.Names(hooks.PreToolCall)
	for _, cs := range p.batch {
		pc := PausedCall{Call: cs.orig, Current: cs.call, Reason: cs.reason, Reapprovals: cs.reapprovals}
		switch cs.step {
		case callPending:
			pc.State, pc.Hook, pc.HookIndex = CallPending, nameAt(names, cs.pausedAt), cs.pausedAt
		case callRun:
			pc.State = CallApproved
		default:
			res := cs.result
			pc.State, pc.Result = CallDecided, &res
		}
		pr.Calls = append(pr.Calls, pc)
	}
	return pr
}

func nameAt(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return ""
}

// Restore puts an idle Worker, started on the conversation of a paused
// run (Config.History), in that run's paused state and returns the
// paused outcome (with each pending call's preview): Resume goes on from
// it. The run's hooks are a new snapshot of Config.Hooks; the chain of a
// pending call goes on after the hook named in it. Restore fails with
// ErrHooksChanged when that hook cannot be found, and with another error
// when p does not fit the conversation.
func (w *Worker) Restore(p PausedRun) (Outcome, error) {
	if err := w.acquire(false); err != nil {
		return Outcome{}, err
	}
	defer w.release()
	snap := w.cfg.Hooks.Snapshot()
	pause, err := w.restorePause(snap, p)
	if err != nil {
		return Outcome{}, err
	}
	budget := hooks.NewRetryBudget(w.cfg.RetryBudget)
	budget.Restore(p.Retry)
	w.run = &runState{hooks: snap, requests: p.Requests, usage: p.Usage, budget: budget, lastText: p.LastText, hookFailures: p.HookFailures}
	w.mu.Lock()
	w.paused = pause
	w.mu.Unlock()

	out := Outcome{Status: StatusPaused, Text: p.LastText, Usage: p.Usage, HookFailures: p.HookFailures}
	if pause.batch == nil {
		out.Reason = p.TurnEnd.Reason
		return out, nil
	}
	out.Pending = w.pendingCalls(pause.batch)
	out.Reason = out.Pending[0].Reason
	return out, nil
}

// restorePause rebuilds the pause of p on the hooks of snap.
func (w *Worker) restorePause(snap *hooks.Registry, p PausedRun) (*pause, error) {
	if p.TurnEnd != nil {
		idx, err := findHook(snap.Names(hooks.OnTurnEnd), hooks.OnTurnEnd, p.TurnEnd.Hook, p.TurnEnd.HookIndex)
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		conv := slices.Clone(w.conv)
		w.mu.Unlock()
		in := hooks.TurnEndInput{Messages: conv, Final: p.TurnEnd.Final, Round: p.TurnEnd.Round}
		return &pause{turnEndFrom: idx, turnEnd: in, reason: p.TurnEnd.Reason}, nil
	}
	if err := w.checkOpenCalls(p.Calls); err != nil {
		return nil, err
	}
	names := snap.Names(hooks.PreToolCall)
	var batch []*callState
	pending := 0
	for _, pc := range p.Calls {
		cs := &callState{orig: pc.Call, call: pc.Current, reason: pc.Reason, reapprovals: pc.Reapprovals}
		switch pc.State {
		case CallPending:
			idx, err := findHook(names, hooks.PreToolCall, pc.Hook, pc.HookIndex)
			if err != nil {
				return nil, fmt.Errorf("call %s (%s): %w", pc.Call.ID, pc.Call.Name, err)
			}
			cs.step, cs.pausedAt, cs.hook = callPending, idx, pc.Hook
			pending++
		case CallApproved:
			cs.step = callRun
		case CallDecided:
			if pc.Result == nil {
				return nil, fmt.Errorf("agent: restore: decided call %s has no result", pc.Call.ID)
			}
			cs.step, cs.result = callDecided, *pc.Result
		default:
			return nil, fmt.Errorf("agent: restore: call %s has the unknown state %q", pc.Call.ID, pc.State)
		}
		batch = append(batch, cs)
	}
	if pending == 0 {
		return nil, errors.New("agent: restore: the paused run has no pending call")
	}
	return &pause{batch: batch}, nil
}

// checkOpenCalls checks that calls are the calls of the conversation's
// last message, none of them answered yet.
func (w *Worker) checkOpenCalls(calls []PausedCall) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var last chat.Message
	if n := len(w.conv); n > 0 {
		last = w.conv[n-1]
	}
	ids := make([]string, len(calls))
	for i, pc := range calls {
		ids[i] = pc.Call.ID
	}
	var want []string
	for _, c := range last.ToolCalls {
		want = append(want, c.ID)
	}
	if last.Role != chat.RoleAssistant || !slices.Equal(ids, want) {
		return fmt.Errorf("agent: restore: the paused calls (%s) are not the open calls of the conversation (%s)",
			strings.Join(ids, ", "), strings.Join(want, ", "))
	}
	return nil
}

// findHook returns the index of hook name in the chain names of event:
// at, where it was when the run paused, or its one place by name.
func findHook(names []string, event hooks.Event, name string, at int) (int, error) {
	if nameAt(names, at) == name {
		return at, nil
	}
	idx := -1
	for i, n := range names {
		if n == name {
			if idx >= 0 {
				return 0, fmt.Errorf("%w: %s hook %q, which paused the run, is now registered twice", ErrHooksChanged, event, name)
			}
			idx = i
		}
	}
	if idx < 0 {
		return 0, fmt.Errorf("%w: %s hook %q, which paused the run, is not registered now (the %s hooks are: %s)",
			ErrHooksChanged, event, name, event, strings.Join(names, ", "))
	}
	return idx, nil
}
