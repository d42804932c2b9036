package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Printer writes the Worker's events in one format. Event is safe to call
// from the Worker (which serialises events); Finish is called once, after
// the run.
type Printer struct {
	format    Format
	stdout    io.Writer
	stderr    io.Writer
	summarize Summarizer
	// showReasoning prints the reasoning on stderr in text mode.
	showReasoning bool

	mu        sync.Mutex
	reasoning []string // each assistant message's reasoning, for json
	thinking  bool     // text mode: reasoning is being printed on stderr
	thinkNL   bool     // text mode: the reasoning printed ends with '\n'
	wrote     bool     // text mode: answer text has been written
	lastNL    bool     // text mode: the last byte written to stdout was '\n'
	sepNeeded bool     // text mode: a new assistant message starts
	calls     []callRecord
	byID      map[string]int
	decisions []hooks.Decision
	compacted []compaction
	warnings  []string
	err       error // a write error on stdout, reported by Finish
}

type callRecord struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Decision and DecidedBy say how a call that asked for approval was
	// answered ("approve" by "--yes", "deny" by "non-interactive").
	Decision   string `json:"decision,omitempty"`
	DecidedBy  string `json:"decided_by,omitempty"`
	Status     string `json:"status,omitempty"`
	Result     string `json:"result,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// compaction is a compaction as the json format reports it.
type compaction struct {
	Trigger  hooks.CompactTrigger `json:"trigger"`
	Replaced int                  `json:"replaced"`
	Pruned   int                  `json:"pruned"`
	Summary  string               `json:"summary,omitempty"`
	Before   int64                `json:"tokens_before"`
	After    int64                `json:"tokens_after"`
	Window   int64                `json:"window,omitempty"`
}

// NewPrinter returns a Printer for format writing to stdout and stderr.
func NewPrinter(format Format, stdout, stderr io.Writer) *Printer {
	return &Printer{format: format, stdout: stdout, stderr: stderr, byID: map[string]int{}, lastNL: true}
}

// SummarizeWith makes progress lines word a call as its tool does.
func (p *Printer) SummarizeWith(f Summarizer) *Printer {
	p.summarize = f
	return p
}

// ShowReasoning makes the text format print the model's reasoning on
// stderr as it streams. It never reaches stdout.
func (p *Printer) ShowReasoning(on bool) *Printer {
	p.showReasoning = on
	return p
}

// Event handles one event from the Worker.
func (p *Printer) Event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.collect(e)
	if w, ok := e.(agent.Warning); ok && p.format != Text {
		// Warnings reach stderr in every format (text prints its own).
		fmt.Fprintf(p.stderr, "tackle: warning: %s\n", w.Message)
	}
	switch p.format {
	case StreamJSON:
		b, err := agent.MarshalEvent(e)
		if err == nil {
			b = append(b, '\n')
			_, err = p.stdout.Write(b)
		}
		p.noteErr(err)
	case Text:
		p.text(e)
	}
}

// collect keeps what the json format prints at the end.
func (p *Printer) collect(e agent.Event) {
	switch e := e.(type) {
	case agent.AssistantMessage:
		if e.Message.Reasoning != "" {
			p.reasoning = append(p.reasoning, e.Message.Reasoning)
		}
		for _, c := range e.Message.ToolCalls {
			p.call(c) // records in call order
		}
	case agent.ToolCallDecided:
		i := p.call(e.Call)
		p.calls[i].Decision, p.calls[i].DecidedBy = e.Verdict.String(), e.By
	case agent.ToolCallFinished:
		i := p.call(e.Call)
		// The arguments that ran (a re-approved call's final ones).
		p.calls[i].Arguments = rawArgs(e.Call.Arguments)
		p.calls[i].Status = string(e.Result.Status)
		p.calls[i].Result = e.Result.Content
		p.calls[i].DurationMS = e.Duration.Milliseconds()
	case agent.HookDecision:
		p.decisions = append(p.decisions, e.Decision)
	case agent.Compacted:
		p.compacted = append(p.compacted, compaction{
			Trigger: e.Trigger, Replaced: e.Replaced, Pruned: e.Pruned, Summary: e.Summary,
			Before: e.Before, After: e.After, Window: e.Window,
		})
	case agent.Warning:
		p.warnings = append(p.warnings, e.Message)
	}
}

// call returns the index of c's record, adding one if needed.
func (p *Printer) call(c chat.ToolCall) int {
	i, ok := p.byID[c.ID]
	if !ok {
		i = len(p.calls)
		p.byID[c.ID] = i
		p.calls = append(p.calls, callRecord{ID: c.ID, Name: c.Name, Arguments: rawArgs(c.Arguments)})
	}
	return i
}

// text prints the answer on stdout and progress on stderr.
func (p *Printer) text(e agent.Event) {
	switch e := e.(type) {
	case agent.TextDelta:
		if e.Text == "" {
			return
		}
		if p.sepNeeded && p.wrote {
			// A blank line between the texts of two assistant messages.
			if p.lastNL {
				p.out("\n")
			} else {
				p.out("\n\n")
			}
		}
		p.sepNeeded = false
		p.out(e.Text)
		p.wrote = true
	case agent.ReasoningDelta:
		p.think(e.Text)
	case agent.AssistantMessage:
		p.endThinking()
		p.sepNeeded = true
	case agent.ToolCallStarted:
		fmt.Fprintf(p.stderr, "→ %s\n", summary(e.Call, p.summarize))
	case agent.ToolCallFinished:
		fmt.Fprintf(p.stderr, "%s %s%s\n", statusMark(e.Result.Status), e.Call.Name, resultNote(e.Result))
	case agent.HookDecision:
		// A pre_tool_call pause is reported with its answer ("approved by
		// --yes", "denied"), by Drive.
		if e.Event == hooks.PreToolCall && e.Result == "pause" {
			return
		}
		if e.Result != "continue" && e.Result != "done" && e.Result != "finish" {
			fmt.Fprintf(p.stderr, "  hook %s/%s: %s%s\n", e.Event, e.Hook, e.Result, paren(e.Reason))
		}
	case agent.RetryPushed:
		fmt.Fprintf(p.stderr, "↻ %s pushed feedback to the model (retry %d/%d)\n", e.Hook, e.Round, e.Max)
	case agent.CheckFinished:
		fmt.Fprintf(p.stderr, "  %s %s%s\n", e.Check, checkMark(e.Status, e.Problems), paren(e.Summary))
	case agent.ModelRetry:
		fmt.Fprintf(p.stderr, "  %s\n", agent.RetryLine(e))
	case agent.CompactStarted:
		fmt.Fprintf(p.stderr, "⇣ compacting the conversation (%s)\n", compactWhy(e))
	case agent.Compacted:
		fmt.Fprintf(p.stderr, "⇣ compacted the conversation: %s\n", e.Describe())
	case agent.Warning:
		fmt.Fprintf(p.stderr, "tackle: warning: %s\n", e.Message)
	case agent.SubagentEvent:
		p.subagentText(e)
	}
}

// subagentText prints a subagent's progress on stderr, each line after
// the task call that started it: its tool calls and warnings.
func (p *Printer) subagentText(e agent.SubagentEvent) {
	who := "  [" + e.Agent.ID + "] "
	switch ev := e.Event.(type) {
	case agent.ToolCallStarted:
		fmt.Fprintf(p.stderr, "%s→ %s\n", who, summary(ev.Call, p.summarize))
	case agent.ToolCallFinished:
		fmt.Fprintf(p.stderr, "%s%s %s%s\n", who, statusMark(ev.Result.Status), ev.Call.Name, resultNote(ev.Result))
	case agent.Warning:
		fmt.Fprintf(p.stderr, "tackle: warning: subagent %s: %s\n", e.Agent.ID, ev.Message)
	}
}

// think prints reasoning on stderr under a "thinking" line, when asked.
func (p *Printer) think(text string) {
	if !p.showReasoning || text == "" {
		return
	}
	if !p.thinking {
		fmt.Fprintln(p.stderr, "✻ thinking")
		p.thinking = true
	}
	io.WriteString(p.stderr, text)
	p.thinkNL = strings.HasSuffix(text, "\n")
}

// endThinking ends the reasoning printed for a message on its own line.
func (p *Printer) endThinking() {
	if p.thinking && !p.thinkNL {
		io.WriteString(p.stderr, "\n")
	}
	p.thinking = false
}

func (p *Printer) out(s string) {
	_, err := io.WriteString(p.stdout, s)
	p.noteErr(err)
	p.lastNL = strings.HasSuffix(s, "\n")
}

func (p *Printer) noteErr(err error) {
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("write output: %w", err)
	}
}

// jsonResult is the object the json format prints.
type jsonResult struct {
	Status        agent.Status     `json:"status"`
	Result        string           `json:"result"`
	Reason        string           `json:"reason,omitempty"`
	Error         string           `json:"error,omitempty"`
	ExitCode      int              `json:"exit_code"`
	Denied        int              `json:"denied_calls"`
	HookFailures  int              `json:"hook_failures,omitempty"`
	ToolCalls     []callRecord     `json:"tool_calls"`
	HookDecisions []hooks.Decision `json:"hook_decisions"`
	Compactions   []compaction     `json:"compactions,omitempty"`
	Warnings      []string         `json:"warnings,omitempty"`
	// Reasoning is the model's reasoning, each message's apart by a
	// blank line; usage.reasoning_tokens counts it when the server does.
	Reasoning string     `json:"reasoning,omitempty"`
	Usage     chat.Usage `json:"usage"`
	// SessionID names the session the run was recorded in (for
	// --resume); Pending lists the calls a saved pause waits for.
	SessionID string        `json:"session_id,omitempty"`
	Pending   []pendingCall `json:"pending,omitempty"`
}

// pendingCall is a call a saved pause waits for, as the output names it:
// what --approve and --deny answer.
type pendingCall struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Hook      string          `json:"hook"`
	Reason    string          `json:"reason"`
}

// sessionLine is the last line of stream-json when the run was recorded.
type sessionLine struct {
	Type      string        `json:"type"`
	SessionID string        `json:"session_id"`
	Status    agent.Status  `json:"status"`
	Saved     bool          `json:"saved,omitempty"`
	Pending   []pendingCall `json:"pending,omitempty"`
}

// savedPending lists the calls of a saved pause.
func savedPending(r Result) []pendingCall {
	if !r.Saved {
		return nil
	}
	out := []pendingCall{}
	for _, p := range r.Outcome.Pending {
		out = append(out, pendingCall{ID: p.Call.ID, Tool: p.Call.Name, Arguments: rawArgs(p.Call.Arguments), Hook: p.Hook, Reason: p.Reason})
	}
	return out
}

// Finish ends the output: a final newline in text mode, the result object
// in json mode, a line naming the session in stream-json mode; a saved
// pause names its session and pending calls in every mode. It returns the
// first error writing stdout.
func (p *Printer) Finish(r Result, exitCode int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.format {
	case Text:
		if p.wrote && !p.lastNL {
			p.out("\n")
		}
		if r.Saved {
			p.savedText(r)
		}
	case StreamJSON:
		if r.Session != "" {
			b, err := json.Marshal(sessionLine{Type: "session", SessionID: r.Session, Status: r.Outcome.Status, Saved: r.Saved, Pending: savedPending(r)})
			if err == nil {
				b = append(b, '\n')
				_, err = p.stdout.Write(b)
			}
			p.noteErr(err)
		}
	case JSON:
		res := jsonResult{
			Status:        r.Outcome.Status,
			Result:        r.Outcome.Text,
			Reason:        r.Outcome.Reason,
			ExitCode:      exitCode,
			Denied:        r.Denied,
			HookFailures:  r.Outcome.HookFailures,
			ToolCalls:     p.calls,
			HookDecisions: p.decisions,
			Compactions:   p.compacted,
			Warnings:      p.warnings,
			Reasoning:     strings.Join(p.reasoning, "\n\n"),
			Usage:         r.Outcome.Usage,
			SessionID:     r.Session,
			Pending:       savedPending(r),
		}
		if r.Err != nil {
			res.Error = r.Err.Error()
		}
		if res.ToolCalls == nil {
			res.ToolCalls = []callRecord{}
		}
		if res.HookDecisions == nil {
			res.HookDecisions = []hooks.Decision{}
		}
		enc := json.NewEncoder(p.stdout)
		enc.SetIndent("", "  ")
		p.noteErr(enc.Encode(res))
	}
	return p.err
}

// savedText tells, on stdout, how to go on with a saved pause.
func (p *Printer) savedText(r Result) {
	var b strings.Builder
	pending := r.Outcome.Pending
	if len(pending) == 0 {
		fmt.Fprintf(&b, "Paused at turn end (%s); saved as session %s.\n", r.Outcome.Reason, r.Session)
		fmt.Fprintf(&b, "Go on with: tackle --resume %s --approve all\n", r.Session)
		p.out(b.String())
		return
	}
	fmt.Fprintf(&b, "Paused; saved as session %s. %s for an answer:\n", r.Session, plural(len(pending), "1 call waits", fmt.Sprintf("%d calls wait", len(pending))))
	for _, pc := range pending {
		fmt.Fprintf(&b, "  %s  %s  %s\n", pc.Call.ID, pc.Call.Name, chat.OneLine(pc.Call.Arguments, 200))
		fmt.Fprintf(&b, "      %s\n", pauseNote(pc))
	}
	id := pending[0].Call.ID
	fmt.Fprintf(&b, "Go on with: tackle --resume %s --approve %s (or --approve all), or --deny %s --reason \"...\"\n", r.Session, id, id)
	p.out(b.String())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Summarizer gives the one-line summary of a call's arguments, as the
// tool words it (tools.Registry.Summary: a bash command, a path, a
// pattern and where it searches).
type Summarizer func(chat.ToolCall) string

// summary is "tool  what it does" for progress lines: the tool's own
// summary when there is a summarizer, else the arguments as sent.
func summary(c chat.ToolCall, summarize Summarizer) string {
	what := c.Arguments
	if summarize != nil {
		what = summarize(c)
	}
	return c.Name + "  " + chat.OneLine(what, 120)
}

func statusMark(s chat.ResultStatus) string {
	switch s {
	case chat.StatusOK:
		return "✓"
	case chat.StatusSkipped:
		return "⤼ skipped"
	case chat.StatusDenied:
		return "✗ denied"
	default:
		return "✗"
	}
}

// checkMark renders a check's status: "✓", "✓ fixed", "✗ 2 problems".
func checkMark(status string, problems int) string {
	switch status {
	case "ok":
		return "✓"
	case "fixed":
		return "✓ fixed"
	case "problems":
		if problems == 1 {
			return "✗ 1 problem"
		}
		return fmt.Sprintf("✗ %d problems", problems)
	case "skipped":
		return "– skipped"
	}
	return "! " + status
}

// compactWhy says why a compaction started.
func compactWhy(e agent.CompactStarted) string {
	switch {
	case e.Trigger == hooks.CompactOverflow:
		return "the server said the request is too long for the model"
	case e.Trigger == hooks.CompactManual:
		return "asked for"
	case e.Window > 0:
		return fmt.Sprintf("≈%d tokens, %d%% of the model's %d-token window", e.Tokens, e.Tokens*100/e.Window, e.Window)
	}
	return fmt.Sprintf("≈%d tokens", e.Tokens)
}

func resultNote(r chat.ToolResult) string {
	if r.Status == chat.StatusOK {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(r.Content), "\n")
	return ": " + chat.Quote(line, 160)
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// rawArgs keeps valid JSON arguments as JSON and anything else as a string.
func rawArgs(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
