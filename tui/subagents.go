package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// A subagent's progress shows under the line of the task call that
// started it: its tool calls, folded to the latest few while it runs and
// to a count when it is done (ctrl+o, or the item cursor, expands them);
// the calls it must ask about are put to the user in the approval dialog,
// titled with the task, and its answer goes back to it (Bridge.AskChild).

// collapsedChildCalls is how many of a running subagent's calls show
// until the user expands them.
const collapsedChildCalls = 3

// childCall is one tool call of a subagent.
type childCall struct {
	call   chat.ToolCall
	state  toolState
	status chat.ResultStatus
}

// children is the progress of the subagent a task call started.
type children struct {
	calls []childCall
	byID  map[string]int
	ended bool
}

// callOf returns the entry of a subagent's call, adding it when new.
func (c *children) callOf(call chat.ToolCall) *childCall {
	if i, ok := c.byID[call.ID]; ok {
		return &c.calls[i]
	}
	if c.byID == nil {
		c.byID = map[string]int{}
	}
	c.byID[call.ID] = len(c.calls)
	c.calls = append(c.calls, childCall{call: call})
	return &c.calls[len(c.calls)-1]
}

// subagentEvent shows an event of a subagent on its task call's line.
// Its usage counts in the session's cost; its warnings are notes.
func (m *Model) subagentEvent(e agent.SubagentEvent) {
	t, ok := m.tools[e.Agent.ID]
	if !ok {
		return
	}
	if t.children == nil {
		t.children = &children{}
	}
	c := t.children
	switch ev := e.Event.(type) {
	case agent.AssistantMessage:
		for _, call := range ev.Message.ToolCalls {
			c.callOf(call)
		}
	case agent.ToolCallStarted:
		cc := c.callOf(ev.Call)
		cc.call, cc.state = ev.Call, toolRunning
	case agent.ToolCallFinished:
		cc := c.callOf(ev.Call)
		cc.call, cc.state, cc.status = ev.Call, toolDone, ev.Result.Status
	case agent.TurnFinished:
		c.ended = true
		for i := range c.calls {
			if c.calls[i].state != toolDone {
				c.calls[i].state = toolNotRun
			}
		}
	case agent.UsageReport:
		m.usage = m.usage.Add(ev.Request)
		m.addUsage(ev.Request)
	case agent.Warning:
		m.note(noteWarn, "subagent "+e.Agent.ID+": "+ev.Message)
	default:
		return
	}
	t.touch()
}

// childLines draws a subagent's calls under its task's line.
func (e *toolEntry) childLines(rc *renderCtx) []string {
	c := e.children
	if c == nil || len(c.calls) == 0 {
		return nil
	}
	st := rc.st
	calls := c.calls
	expanded := e.expandedIn(rc)
	if !expanded && e.state == toolDone && !rc.noHints {
		hint := fmt.Sprintf("  ⎿ %s (ctrl+o to expand)", plural(len(calls), "1 tool call", itoa(len(calls))+" tool calls"))
		return []string{ansi.Truncate(st.Subtle.Render(hint), rc.width, "…")}
	}
	var out []string
	if !expanded && !rc.noHints && len(calls) > collapsedChildCalls {
		n := len(calls) - collapsedChildCalls
		out = append(out, ansi.Truncate(st.Subtle.Render(fmt.Sprintf("  ⎿ … %s before", plural(n, "1 tool call", itoa(n)+" tool calls"))), rc.width, "…"))
		calls = calls[n:]
	}
	for _, cc := range calls {
		var icon string
		switch cc.state {
		case toolRunning:
			icon = st.StatusRunning.Render(rc.spinner)
		case toolWaiting:
			icon = st.StatusDenied.Render("?")
		case toolNotRun:
			icon = st.StatusSkipped.Render("–")
		case toolDone:
			switch cc.status {
			case chat.StatusOK:
				icon = st.StatusOK.Render("✓")
			case chat.StatusSkipped:
				icon = st.StatusSkipped.Render("⤼")
			default:
				icon = st.StatusFailed.Render("✗")
			}
		default:
			icon = st.Subtle.Render("·")
		}
		line := "  " + st.Subtle.Render("⎿") + " " + icon + " " + st.ToolName.Render(toolLabel(cc.call.Name))
		if args := visibleStyled(markBreaks(rc.summary(cc.call)), st.ToolArgs, st.ControlChar); args != "" {
			line += "  " + args
		}
		out = append(out, ansi.Truncate(line, rc.width, "…"))
	}
	return out
}

// childAsk is a subagent's question to the user, carried to the UI by the
// bridge like an event: the calls it waits to run, and where the answer
// goes.
type childAsk struct {
	who     hooks.Agent
	pending []agent.PendingCall
	reply   chan []agent.Decision // buffered: the answer never blocks
	done    <-chan struct{}       // closed when the subagent stops waiting
}

func (*childAsk) EventType() string { return "subagent_ask" }

// AskChild puts a subagent's pending calls to the user in the approval
// dialog and waits for the answers, or until ctx ends (the parent's run
// was stopped). It is the Worker's agent.ChildAsker
// (Worker.AskChildrenWith).
func (b *Bridge) AskChild(ctx context.Context, who hooks.Agent, pending []agent.PendingCall) ([]agent.Decision, error) {
	ask := &childAsk{who: who, pending: pending, reply: make(chan []agent.Decision, 1), done: ctx.Done()}
	b.Send(ask)
	select {
	case d := <-ask.reply:
		return d, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// childAsked shows a subagent's question: its calls wait on the task's
// line, and the approval dialog asks about them.
func (m *Model) childAsked(a *childAsk) {
	select {
	case <-a.done:
		return // it stopped waiting before the UI saw it
	default:
	}
	title := "subagent"
	if t, ok := m.tools[a.who.ID]; ok {
		if t.children == nil {
			t.children = &children{}
		}
		for _, p := range a.pending {
			cc := t.children.callOf(p.Call)
			cc.call, cc.state = p.Call, toolWaiting
		}
		t.touch()
		title = "subagent " + m.summary(t.call)
	}
	d := m.newApproval(a.pending)
	d.from, d.answer, d.done = title, func(decisions []agent.Decision) { a.reply <- decisions }, a.done
	m.pushDialog(d)
}

// dropChildDialogs closes the dialogs of subagents that stopped waiting
// (their run ended).
func (m *Model) dropChildDialogs() {
	keep := m.dialogs[:0]
	for _, d := range m.dialogs {
		if a, ok := d.(*approvalDialog); ok && a.stale() {
			continue
		}
		keep = append(keep, d)
	}
	m.dialogs = keep
	if len(m.dialogs) == 0 {
		m.input.focus()
	}
}

// childAnswered carries out the action of a subagent's approval dialog:
// its decisions go to the subagent; abort stops the whole run.
func (m *Model) childAnswered(d *approvalDialog, act dialogAction) tea.Cmd {
	switch {
	case act.interrupt:
		m.popDialog()
		d.answer(abortAll(d.pending, "interrupted by the user"))
		m.interrupt()
	case act.decisions != nil:
		m.popDialog()
		d.answer(act.decisions)
	}
	return nil
}
