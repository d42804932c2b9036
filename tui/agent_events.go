package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools/chat"
)

// startTurn shows the user's message and runs a turn with it (and the
// files and MCP resources it mentions, the resources read in a Cmd
// first).
func (m *Model) startTurn(text string) tea.Cmd { return m.startTurnAs(text, text) }

// startTurnAs is startTurn showing shown (what the user typed) for text
// (what the model gets: a custom command's prompt).
func (m *Model) startTurnAs(shown, text string) tea.Cmd {
	m.showPrompt(shown)
	message, images := m.attachMentions(text)
	ctx := m.beginRun()
	if refs := m.resourceMentions(text); len(refs) > 0 {
		return readResources(ctx, m.opts.MCP, m.runs, refs, message, images)
	}
	return runAgent(ctx, m.agent, m.bridge, m.runs, message, images)
}

// startCommand runs "!cmd": the command through the bash tool and the
// approvals, its output into the conversation for the next prompt.
func (m *Model) startCommand(text string) tea.Cmd {
	m.showPrompt(text)
	m.userCommand = true
	return runCommand(m.beginRun(), m.agent, m.bridge, m.runs, strings.TrimSpace(strings.TrimPrefix(text, "!")))
}

// showPrompt starts a turn on the screen (and a checkpoint of the files
// it will change) with what the user typed.
func (m *Model) showPrompt(text string) {
	if m.opts.Checkpoints != nil {
		m.opts.Checkpoints.Begin(text)
	}
	shown := text
	if s, ok := m.pasted[text]; ok {
		shown = s
		delete(m.pasted, text)
	}
	m.transcript.add(&userEntry{text: shown})
	m.transcript.toBottom()
	m.userCommand = false
	m.turnStart = m.now()
	m.retry = ""
	m.checks = nil
	clear(m.tools)
}

// resume answers a paused run.
func (m *Model) resume(decisions []agent.Decision) tea.Cmd {
	return resumeAgent(m.beginRun(), m.agent, m.bridge, m.runs, decisions)
}

// beginRun marks a Run or Resume in progress and returns its context,
// which Esc and Ctrl+C cancel.
func (m *Model) beginRun() context.Context {
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel, m.interrupting = true, cancel, false
	return ctx
}

// interrupt cancels the run in progress; the Worker runs its on_abort
// hooks and Run returns.
func (m *Model) interrupt() {
	if m.running && m.cancel != nil {
		m.cancel()
		m.interrupting = true
	}
}

// eventsArrived shows a batch of the Worker's events, and then the end
// of a run that was waiting for them.
func (m *Model) eventsArrived(msg eventsMsg) tea.Cmd {
	for _, e := range msg.events {
		m.applyEvent(e)
	}
	m.applied = max(m.applied, msg.upTo)
	if d := m.doneWaiting; d != nil && m.applied >= d.events {
		m.doneWaiting = nil
		return m.runDone(*d)
	}
	if d := m.compactWaiting; d != nil && m.applied >= d.events {
		m.compactWaiting = nil
		return m.compactDone(*d)
	}
	return nil
}

func (m *Model) applyEvent(ev agent.Event) {
	if _, ok := ev.(agent.ModelRetry); !ok {
		m.modelRetry = "" // the request went on
	}
	switch e := ev.(type) {
	case agent.ReasoningDelta:
		if e.Text == "" {
			return
		}
		if m.thinking == nil {
			m.thinking = &thinkingEntry{}
			m.transcript.add(m.thinking)
		}
		m.thinking.write(e.Text)
	case agent.TextDelta:
		if e.Text == "" {
			return
		}
		m.endThinking()
		if m.streaming == nil {
			m.streaming = &assistantEntry{stream: m.md.NewStream()}
			m.transcript.add(m.streaming)
		}
		m.streaming.write(e.Text)
	case agent.AssistantMessage:
		m.assistantMessage(e.Message)
	case agent.ModelRetry:
		// One line that changes with each retry, in the status line; the
		// error that ends the run, if any, goes into the transcript.
		m.modelRetry = agent.RetryLine(e)
	case agent.ToolCallStarted:
		t := m.tool(e.Call)
		t.call, t.state = e.Call, toolRunning
		t.touch()
	case agent.ToolCallProgress:
		t := m.tool(e.Call)
		t.progress, t.output = progressText(e), e.Output
		t.touch()
	case agent.ToolCallFinished:
		t := m.tool(e.Call)
		t.call, t.state, t.result, t.took = e.Call, toolDone, e.Result, e.Duration
		t.touch()
	case agent.HookDecision:
		if showDecision(e.Decision) {
			d := e.Decision
			m.note(noteHook, joinNonEmpty(" — ", fmt.Sprintf("%s hook %s: %s", d.Event, d.Hook, d.Result), firstLine(d.Reason)))
		}
	case agent.RetryPushed:
		m.retryPushed(e)
	case agent.UsageReport:
		m.usage = m.usage.Add(e.Request)
		m.addUsage(e.Request)
		m.ctxSize = e.Request.PromptTokens
		m.ctxUsed, m.ctxWindow = e.Context, e.Window
	case agent.CompactStarted:
		m.compacting = true
	case agent.Compacted:
		m.compacted(e)
	case agent.Warning:
		m.compacting = false // a compaction that failed says so in a warning
		m.note(noteWarn, e.Message)
	case agent.CheckStarted:
		m.checkStarted(e)
	case agent.MCPServerStatus:
		m.mcpEvent(e)
	case agent.CheckFinished:
		m.checkFinished(e)
	case agent.ErrorEvent, agent.PausedEvent, agent.TurnFinished:
		// The run's outcome, which follows, says the same.
	case agent.SubagentEvent:
		m.subagentEvent(e)
	case *childAsk:
		m.childAsked(e)
	case agent.TodoUpdated:
		m.setPlan(e.Todos)
	case agent.ToolCallDecided:
		// The user's own answer in the approval dialog.
	case agent.ModelChanged:
		// /model says so itself.
	}
}

// retryPushed shows a turn-end retry: on the checks entry it follows, or
// as a note with the first line of the feedback.
func (m *Model) retryPushed(e agent.RetryPushed) {
	m.retry = fmt.Sprintf("retry %d/%d", e.Round, e.Max)
	if m.checks != nil && m.lastEntry() == entry(m.checks) {
		m.checks.retry = m.retry
		m.checks.touch()
		return
	}
	var feedback string
	if len(e.Messages) > 0 {
		feedback = firstLine(e.Messages[0].Content)
	}
	m.note(noteRetry, joinNonEmpty(": ", fmt.Sprintf("%s pushed feedback to the model (%s)", e.Hook, m.retry), feedback))
}

// checkStarted adds a running check to the checks entry, which starts a
// new one unless it is the last entry.
func (m *Model) checkStarted(e agent.CheckStarted) {
	if m.checks == nil || m.lastEntry() != entry(m.checks) {
		m.checks = &checksEntry{}
		m.transcript.add(m.checks)
	}
	m.checks.checks = append(m.checks.checks, checkState{name: e.Check})
	m.checks.touch()
}

// checkFinished records a check's result on its running line, or on a
// new line when it has none.
func (m *Model) checkFinished(e agent.CheckFinished) {
	if m.checks == nil {
		m.checks = &checksEntry{}
		m.transcript.add(m.checks)
	}
	c := m.checks.find(e.Check)
	if c == nil || c.status != "" {
		m.checks.checks = append(m.checks.checks, checkState{name: e.Check})
		c = &m.checks.checks[len(m.checks.checks)-1]
	}
	c.status, c.problems, c.summary = e.Status, e.Problems, e.Summary
	m.checks.touch()
}

// assistantMessage ends the streamed text of one model reply and shows
// the tool calls it asks for.
func (m *Model) assistantMessage(msg chat.Message) {
	m.endThinking()
	if m.streaming != nil {
		m.streaming.finish()
		m.streaming = nil
	} else if strings.TrimSpace(msg.Content) != "" {
		a := &assistantEntry{stream: m.md.NewStream()}
		a.write(msg.Content)
		a.finish()
		m.transcript.add(a)
	}
	for _, c := range msg.ToolCalls {
		m.tool(c)
	}
}

// endThinking folds the reasoning being streamed, if any: the answer (or
// the end of the run) has come.
func (m *Model) endThinking() {
	if m.thinking != nil {
		m.thinking.finish()
		m.thinking = nil
	}
}

// tool finds the entry of a call, adding it when it is new.
func (m *Model) tool(c chat.ToolCall) *toolEntry {
	if t, ok := m.tools[c.ID]; ok && c.ID != "" {
		return t
	}
	t := &toolEntry{call: c}
	// The user's own command (!cmd) shows its output whole: the user
	// asked to see it.
	t.open = m.userCommand
	m.tools[c.ID] = t
	m.transcript.add(t)
	return t
}

// showDecision reports whether a hook decision gets a line of its own.
// Continuing is not news; the approval policy's pauses and skips show on
// the tool's line and in the approval dialog; pushed feedback shows as a
// retry.
func showDecision(d hooks.Decision) bool {
	switch d.Result {
	case "continue", "finish", "done", "continue_with_messages":
		return false
	}
	if d.Event == hooks.PreToolCall && d.Hook == approval.HookName && (d.Result == "pause" || d.Result == "skip") {
		return false
	}
	return true
}

func (m *Model) note(kind noteKind, text string) {
	m.transcript.add(&noteEntry{kind: kind, text: text})
}

func (m *Model) lastEntry() entry {
	if n := len(m.transcript.entries); n > 0 {
		return m.transcript.entries[n-1]
	}
	return nil
}

// runDone handles the end of Run or Resume. The events the run emitted
// are shown first: if some are still on their way, the end waits for them.
func (m *Model) runDone(msg runDoneMsg) tea.Cmd {
	if m.applied < msg.events {
		m.doneWaiting = &msg
		return nil
	}
	m.running, m.compacting, m.modelRetry = false, false, ""
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.dropChildDialogs() // their subagents ended with the run
	if msg.err != nil || msg.outcome.Status != agent.StatusPaused {
		m.endCustom() // a custom command's turn ended: its rules and model go
	}
	if m.streaming != nil {
		m.streaming.finish()
		m.streaming = nil
	}
	m.endThinking()
	interrupted := m.interrupting && isInterrupt(msg.err)
	m.interrupting = false

	if msg.err == nil && msg.outcome.Status == agent.StatusPaused {
		if m.quitting {
			// Quitting while a call waits: answer it with an abort.
			return m.resume(abortAll(msg.outcome.Pending, "the user quit"))
		}
		return m.paused(msg.outcome)
	}

	for _, t := range m.tools {
		if t.live() {
			t.state = toolNotRun
			t.touch()
		}
	}
	switch {
	case interrupted:
		m.note(noteInterrupted, "interrupted")
	case msg.err != nil:
		m.note(noteError, msg.err.Error())
	case msg.outcome.Status == agent.StatusCapped:
		m.note(noteWarn, "stopped: "+msg.outcome.Reason)
	}
	m.retry = ""
	m.checks = nil
	if m.quitting {
		return m.quitNow()
	}
	return m.nextQueued(interrupted)
}

// isInterrupt reports whether a run ended because the user stopped it.
func isInterrupt(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, agent.ErrUserAbort)
}

// paused shows the dialog that answers a paused run.
func (m *Model) paused(out agent.Outcome) tea.Cmd {
	if len(out.Pending) == 0 {
		m.pushDialog(newTurnPauseDialog(out.Reason))
		return nil
	}
	for _, p := range out.Pending {
		// The pending call is what will run: hooks may have changed it
		// since the model asked (and a changed call is asked about again).
		t := m.tool(p.Call)
		t.call, t.state = p.Call, toolWaiting
		t.touch()
	}
	m.pushDialog(m.newApproval(out.Pending))
	return nil
}

// newApproval is the approval dialog for pending calls, asking the
// policy what "approve always" adds and what "approve these" holds back.
func (m *Model) newApproval(pending []agent.PendingCall) *approvalDialog {
	var always func(agent.PendingCall) []string
	var heldBack func(chat.ToolCall) string
	if m.opts.Policy != nil {
		heldBack = m.opts.Policy.HeldBack
		always = func(p agent.PendingCall) []string {
			if p.Hook != approval.HookName {
				// Another hook asked: a rule of the policy does not
				// stop it from asking again.
				return nil
			}
			var out []string
			for _, r := range m.opts.Policy.Always(p.Call) {
				out = append(out, r.String())
			}
			return out
		}
	}
	d := newApprovalDialog(&m.styles, pending, always, heldBack, m.renderCtx().summary)
	d.files, d.home = m.opts.RuleFiles, m.getenv("HOME")
	return d
}

// abortAll answers every pending call with AbortRun.
func abortAll(pending []agent.PendingCall, reason string) []agent.Decision {
	out := make([]agent.Decision, len(pending))
	for i, p := range pending {
		out[i] = agent.Decision{CallID: p.Call.ID, Verdict: agent.AbortRun, Reason: reason}
	}
	return out
}

// nextQueued sends the first queued prompt. After an interruption the
// queue goes back into the editor instead: the user stopped the agent
// and may want to say something else.
func (m *Model) nextQueued(interrupted bool) tea.Cmd {
	if len(m.queue) == 0 {
		return nil
	}
	if interrupted {
		text := strings.Join(m.queue, "\n\n")
		if cur := m.input.value(); cur != "" {
			text += "\n\n" + cur
		}
		m.queue = nil
		m.input.setValue(text)
		return nil
	}
	next := m.queue[0]
	m.queue = m.queue[1:]
	if isCommandLine(next) {
		return m.startCommand(next)
	}
	return m.startTurn(next)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// progressText says how far a call has come: "1/2 halfway", "40%",
// "3 copying".
func progressText(e agent.ToolCallProgress) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	var done string
	switch {
	case e.Total == 100:
		done = num(e.Done) + "%"
	case e.Total > 0:
		done = num(e.Done) + "/" + num(e.Total)
	case e.Done > 0:
		done = num(e.Done)
	}
	return strings.TrimSpace(done + " " + e.Message)
}
