package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// A subagent is a child Worker that a tool call of its parent starts (the
// task tool, through RunSubagent): a conversation of its own, with its own
// system prompt, tools, model and request budget, and the parent's hooks,
// approval policy and sandbox — every call it makes goes through the same
// chains as the parent's, its hooks told whose turn it is (hooks.Agent).
// Its events reach the parent's stream wrapped in SubagentEvent; the
// calls it must ask about are put to the user by the parent's ChildAsker
// while the parent's call runs; the parent's cancel stops it; and the
// parent sees only its answer, the task call's result.

// SubagentEvent is an event of a subagent in the stream of the agent that
// started it. Its type is the event's own ("tool_call_started"); in JSON
// its "agent" names the subagent (MarshalEvent).
type SubagentEvent struct {
	Agent hooks.Agent
	Event Event
}

// EventType is the subagent's event's type.
func (e SubagentEvent) EventType() string { return e.Event.EventType() }

// ChildAsker puts the calls a subagent waits to run to the user, while
// the parent's call that started it runs, and returns a decision for each
// (the approval dialog of the UI, the flags of a piped run). It must
// return when ctx ends. An error, or decisions that do not answer every
// call, deny them all.
type ChildAsker func(ctx context.Context, who hooks.Agent, pending []PendingCall) ([]Decision, error)

// AskChildrenWith sets how the Worker's subagents ask the user about their
// calls. Without it their calls that need an approval are denied, with a
// reason the subagent's model reads. Set it before Run.
func (w *Worker) AskChildrenWith(ask ChildAsker) {
	w.mu.Lock()
	w.askChild = ask
	w.mu.Unlock()
}

// ErrNested: a subagent's call tried to start a subagent of its own.
var ErrNested = errors.New("agent: a subagent cannot start subagents")

// Subagent is what a subagent has of its own; everything else is its
// parent's (client, hooks, approval, clocks, compaction).
type Subagent struct {
	// Type is its kind (a custom agent's name, or "general"), which
	// hooks see.
	Type string
	// Model is the model it uses; "" is the parent's current model.
	Model string
	// System is its system prompt.
	System string
	// Tools are the tools it is offered.
	Tools Toolbox
	// MaxRequests caps its model requests; zero means
	// DefaultMaxRequests.
	MaxRequests int
	// Prompt is its first message: the task.
	Prompt string
}

// parentLink is what a running call's context carries of the Worker that
// runs it: a subagent it starts is that Worker's child.
type parentLink struct {
	w    *Worker
	call chat.ToolCall
}

type parentKey struct{}

// RunSubagent runs sa to the end of its turn, as the child of the Worker
// whose tool call ctx is (the Worker puts itself into the context of
// every call it runs). The subagent is that call's ID; it runs under
// ctx, so the parent's cancel stops it. Its Outcome's Text is its
// answer. An Outcome paused at turn end (an on_turn_end hook paused it)
// is returned as it is: nobody can let a subagent go on later.
func RunSubagent(ctx context.Context, sa Subagent) (Outcome, error) {
	link, ok := ctx.Value(parentKey{}).(*parentLink)
	if !ok {
		return Outcome{}, errors.New("agent: RunSubagent outside a tool call of a Worker")
	}
	parent := link.w
	if parent.cfg.Agent.Child() {
		return Outcome{}, ErrNested
	}
	who := hooks.Agent{ID: link.call.ID, Parent: parent.agent().ID, Type: sa.Type}

	parent.mu.Lock()
	cfg := parent.cfg
	ask := parent.askChild
	parent.mu.Unlock()
	if sa.Model != "" {
		cfg.Model = sa.Model
	}
	cfg.System, cfg.History, cfg.Tools, cfg.MaxRequests = sa.System, nil, sa.Tools, sa.MaxRequests
	cfg.Agent = who
	cfg.OnMessage = nil // its conversation is its own, not the parent's session's
	cfg.OnEvent = func(e Event) {
		if _, ok := e.(SubagentEvent); !ok {
			e = SubagentEvent{Agent: who, Event: e}
		}
		parent.emit(e)
	}
	child := New(cfg)
	ctx = hooks.WithAgent(ctx, who)
	child.AnswerPausesWith(func(pending []PendingCall) ([]Decision, bool) {
		return answerChild(ctx, ask, who, pending), true
	})
	return child.Run(ctx, sa.Prompt)
}

// answerChild asks ask about a subagent's pending calls; without an
// answer for each, every one is denied.
func answerChild(ctx context.Context, ask ChildAsker, who hooks.Agent, pending []PendingCall) []Decision {
	why := "nobody can approve a subagent's calls here"
	if ask != nil {
		decisions, err := ask(ctx, who, pending)
		if err == nil && answersAll(decisions, pending) {
			return decisions
		}
		if err != nil {
			why = err.Error()
		} else {
			why = "the calls were not all answered"
		}
	}
	out := make([]Decision, len(pending))
	for i, p := range pending {
		out[i] = Decision{CallID: p.Call.ID, Verdict: Deny, By: "tackle",
			Reason: fmt.Sprintf("this call needs approval and %s. Do not retry it; finish without it and say what you needed.", why)}
	}
	return out
}

// answersAll reports whether decisions hold a valid one for every call
// of pending.
func answersAll(decisions []Decision, pending []PendingCall) bool {
	byID := make(map[string]Verdict, len(decisions))
	for _, d := range decisions {
		byID[d.CallID] = d.Verdict
	}
	for _, p := range pending {
		if v := byID[p.Call.ID]; v < Approve || v > AbortRun {
			return false
		}
	}
	return true
}

// agent is the Worker's agent: the main one unless Config.Agent says.
func (w *Worker) agent() hooks.Agent {
	if w.cfg.Agent.ID == "" {
		return hooks.Agent{ID: hooks.MainAgent}
	}
	return w.cfg.Agent
}

// withAgent returns ctx telling hooks whose turn it is, when the Worker
// is a subagent (for the main agent hooks.AgentOf already says so).
func (w *Worker) withAgent(ctx context.Context) context.Context {
	if w.cfg.Agent.ID == "" {
		return ctx
	}
	return hooks.WithAgent(ctx, w.cfg.Agent)
}
