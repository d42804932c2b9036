// Package agent runs turns against a model: the Worker streams a reply,
// runs the hook chains around every step, executes tool calls, keeps the
// conversation within the model's context window (compact.go) and emits
// typed events. It never imports a UI; the TUI and the headless printer
// both sit on Run, Resume and the event stream.
package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// DefaultMaxRequests is the per-run cap on model requests.
const DefaultMaxRequests = 50

// DefaultMaxParallel is how many tool calls of one reply run at once
// unless Config says otherwise.
const DefaultMaxParallel = 8

// maxReapprovals bounds how often one call is put to the user again
// because hooks after an approval changed its arguments; past it the
// call is skipped.
const maxReapprovals = 3

// Toolbox is the set of tools the Worker offers the model.
type Toolbox interface {
	// Specs lists the tools as the model sees them.
	// Specs may change between requests; it may return the same slice
	// while the tools do not change, which the Worker does not modify.
	Specs() []chat.ToolSpec
	// Run executes one call whose name is one of Specs and whose arguments
	// are a JSON object. Failures the model should read (bad arguments, a
	// missing file, a non-zero exit) come back as a result with
	// StatusError; a Go error is a failure of the harness itself.
	Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error)
}

// Previewer is a Toolbox that can work out what a call would do without
// running it (*tools.Registry is one): the Worker gives each call it
// pauses on its preview (PendingCall.Preview).
type Previewer interface {
	Preview(call chat.ToolCall) tools.Preview
}

// Config configures a Worker. Client is required.
type Config struct {
	Client Client
	Model  string
	// ReasoningEffort is sent with every request when set (see
	// Request.ReasoningEffort).
	ReasoningEffort string
	// System is the system prompt; empty sends none.
	System string
	// History, when set, is the conversation to go on with — a resumed
	// session's messages, its system prompt first, exactly as they were
	// sent — and System is not used. The Worker does not report these
	// messages to OnMessage: whoever recorded them has them.
	History []chat.Message
	Tools   Toolbox
	// Hooks may be nil (no hooks).
	Hooks *hooks.Registry
	// MaxRequests caps model requests per Run (Resume continues the same
	// run); zero means DefaultMaxRequests.
	MaxRequests int
	// MaxParallel caps how many tool calls of one reply run at once;
	// the others queue and start in call order as calls finish. Results
	// are still handled in call order. Zero means DefaultMaxParallel.
	MaxParallel int
	// RetryBudget caps consecutive ContinueWithMessages rounds per Run;
	// zero means hooks.DefaultRetryBudget, hooks.NoRetries allows none.
	RetryBudget int
	// OnEvent receives every event, in order, one at a time. It is called
	// on the Worker's goroutines and should return quickly.
	OnEvent func(Event)
	// OnMessage is told about every message as it enters the
	// conversation: the system prompt (at the first Run), the user's
	// prompt as on_prompt_submit hooks left it, the assistant's replies,
	// tool results and turn-end feedback. What it is told is exactly the
	// conversation the next request is made from, so a recorder of these
	// messages can resume it in another process. A pre_llm_request hook's
	// changes last one request and are not part of the conversation: they
	// are made again on the resumed conversation. It is called in order
	// with OnEvent, never at the same time.
	OnMessage func(AddedMessage)
	// Notes are notes for the model waiting for the next prompt (a
	// resumed session's: session.Loaded.PendingNotes); see Worker.Note.
	Notes []string
	// OnApproveAlways is told about calls the user approved "always", so
	// the approval policy can add a session rule for calls like it. It
	// gets the call as the user saw it in the pending list.
	OnApproveAlways func(chat.ToolCall)
	// Now is the clock used for durations; nil means time.Now.
	Now func() time.Time

	// ContextWindow returns a model's context window in tokens, 0 when
	// it is not known. The Worker asks once per model, before the first
	// request to it, under a context bounded by a few seconds. Nil means
	// not known: then only a server's answer that a request is too long
	// makes the Worker compact.
	ContextWindow func(ctx context.Context, model string) int
	// CompactThreshold is the share of the context window the next
	// request may fill before the Worker compacts the conversation (see
	// Compact); zero means DefaultCompactThreshold.
	CompactThreshold float64
	// KeepTurns is how many of the latest turns a compaction leaves as
	// they were, tool outputs included; zero means DefaultKeepTurns.
	KeepTurns int

	// Redact, when set, removes secrets from what a running call shows
	// (ToolCallProgress: its message and output) before the event is
	// emitted, as the redaction hook does from results; it must be safe
	// for concurrent use.
	Redact func(string) string

	// Agent names the agent the Worker is: zero for the main agent, a
	// subagent's identity for a child (RunSubagent sets it). Its hooks
	// see it (hooks.AgentOf).
	Agent hooks.Agent

	// SystemNotes, when set, is asked before each request for text to add
	// at the end of that request's system prompt: what becomes known while
	// the conversation goes on (the instructions of MCP servers, which
	// start in the background). It is not part of the conversation (not
	// recorded, not compacted): a resumed conversation gets the notes of
	// its own time. It must return quickly.
	SystemNotes func() string
}

// Worker holds one conversation and runs turns on it. Run and Resume must
// not be called concurrently; a second call while one is in progress
// returns ErrBusy.
type Worker struct {
	cfg   Config
	specs []chat.ToolSpec
	names []string // sorted tool names, for "unknown tool" messages

	emitMu sync.Mutex

	mu   sync.Mutex
	busy bool
	conv []chat.Message
	// sysUnreported: the system prompt is in conv but not yet reported to
	// OnMessage (the first Run reports it).
	sysUnreported bool
	// commands counts the shell commands the user ran (RunCommand), for
	// their call IDs.
	commands int
	// notes wait for the next user message (Note).
	notes  []string
	paused *pause // non-nil while a run waits for Resume
	// answer, when set, is asked first when a batch would pause (see
	// AnswerPausesWith).
	answer func([]PendingCall) ([]Decision, bool)
	// askChild puts the calls of its subagents to the user
	// (AskChildrenWith).
	askChild ChildAsker
	run      *runState
	// meter measures the conversation; fixed is what the tool
	// definitions add to every request, in bytes; windows holds the
	// context window of each model asked about.
	meter   meter
	fixed   int64
	windows map[string]int64
	lookups map[string]*windowLookup // look-ups of windows under way
	// noImages is set once the model's server refused a request with
	// images (images.go): images are left out of requests from then on.
	noImages bool
}

// runState is what one Run carries across Resume.
type runState struct {
	// hooks is the registry's snapshot taken when the Run started: the
	// Run and its Resumes see the same chains, so the index a paused
	// chain resumes from names the same hook.
	hooks    *hooks.Registry
	requests int
	usage    chat.Usage
	budget   *hooks.RetryBudget
	lastText string
	// hookFailures counts calls skipped because a pre_tool_call hook
	// failed (error, crash, timeout).
	hookFailures int
	// incomplete says why the last reply is not whole (see finish.go).
	incomplete string
	// command is set when the run is a shell command the user typed
	// (RunCommand): its result goes into the conversation as the user's
	// message, and the run ends there, with no model request.
	command bool
	// partial is the text of the reply being streamed, as far as it
	// went.
	partial strings.Builder
}

// pause is where a paused run stopped.
type pause struct {
	// batch is set when pre_tool_call hooks paused calls of a reply.
	batch []*callState
	// turnEndFrom is set (>= 0) when an on_turn_end hook paused: Resume
	// continues the chain after that hook.
	turnEndFrom int
	turnEnd     hooks.TurnEndInput
	reason      string // the on_turn_end hook's reason
}

// callStep is where a tool call stands between its pre_tool_call chain and
// its single result.
type callStep uint8

const (
	callPending callStep = iota // waits for the user's decision
	callRun                     // approved: execute it
	callDecided                 // has its final result without running
	callAborted                 // a hook aborted the run at this call
	callReplied                 // a hook responded: its result goes through post_tool_call
)

// callState follows one tool call of a reply from its pre_tool_call chain
// to its single result.
type callState struct {
	orig chat.ToolCall // as the model sent it (the result answers this ID)
	call chat.ToolCall // as hooks left it (what runs)

	step   callStep
	result chat.ToolResult // set when decided, or when the call has run
	ran    bool            // the tool was started

	pausedAt int // index of the pausing hook, while pending
	hook     string
	reason   string
	// reapprovals counts the times hooks changed the call after the user
	// approved it, each of which put it to the user again.
	reapprovals int
}

// pending reports whether the call waits for the user's decision.
func (cs *callState) pending() bool { return cs.step == callPending }

// decide gives the call its final result without running it.
func (cs *callState) decide(status chat.ResultStatus, content string) {
	cs.step = callDecided
	cs.result = chat.ToolResult{CallID: cs.orig.ID, Status: status, Content: content}
}

// New returns a Worker for cfg.
func New(cfg Config) *Worker {
	if cfg.MaxRequests <= 0 {
		cfg.MaxRequests = DefaultMaxRequests
	}
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = DefaultMaxParallel
	}
	if cfg.Hooks == nil {
		cfg.Hooks = hooks.NewRegistry()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CompactThreshold <= 0 {
		cfg.CompactThreshold = DefaultCompactThreshold
	}
	if cfg.KeepTurns <= 0 {
		cfg.KeepTurns = DefaultKeepTurns
	}
	w := &Worker{cfg: cfg, windows: map[string]int64{}, lookups: map[string]*windowLookup{}, notes: slices.Clone(cfg.Notes)}
	w.toolSpecs()
	switch {
	case cfg.History != nil:
		w.conv = slices.Clone(cfg.History)
	case cfg.System != "":
		w.conv = append(w.conv, chat.Message{Role: chat.RoleSystem, Content: cfg.System})
		w.sysUnreported = true
	}
	return w
}

// toolSpecs returns the tools for the next request. The Toolbox's tools
// may change between requests (an MCP server's join when it is ready);
// a call is checked against the tools of the request its reply answers.
func (w *Worker) toolSpecs() []chat.ToolSpec {
	if w.cfg.Tools == nil {
		return nil
	}
	specs := w.cfg.Tools.Specs()
	w.mu.Lock()
	defer w.mu.Unlock()
	if sameSpecs(specs, w.specs) && w.names != nil {
		return specs
	}
	w.specs, w.fixed = specs, specsSize(specs)
	w.names = make([]string, 0, len(specs))
	for _, s := range specs {
		w.names = append(w.names, s.Name)
	}
	slices.Sort(w.names)
	return specs
}

// sameSpecs reports whether a and b are the same slice: a Toolbox hands
// out the same one while its tools do not change (tools.Registry.Specs).
func sameSpecs(a, b []chat.ToolSpec) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Messages returns a copy of the conversation so far.
func (w *Worker) Messages() []chat.Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.conv)
}

// SetModel changes the model used from the next request on and emits
// ModelChanged.
func (w *Worker) SetModel(model string) {
	w.mu.Lock()
	w.cfg.Model = model
	w.mu.Unlock()
	w.emit(ModelChanged{Model: model})
}

// Run sends the user's input, with the images the user attached (sent
// as image parts after the text), and runs the turn loop until the model
// ends its turn, a hook pauses, a budget runs out or the run is aborted.
func (w *Worker) Run(ctx context.Context, input string, images ...chat.Image) (Outcome, error) {
	if err := w.acquire(false); err != nil {
		return Outcome{}, err
	}
	ctx = w.withAgent(ctx)
	w.run = &runState{hooks: w.cfg.Hooks.Snapshot(), budget: hooks.NewRetryBudget(w.cfg.RetryBudget)}

	in := hooks.PromptInput{Message: chat.Message{Role: chat.RoleUser, Content: input, Images: slices.Clone(images)}}
	var by string
	res := w.run.hooks.RunPromptSubmit(ctx, &in, w.recorder(&by))
	if err := ctx.Err(); err != nil {
		return w.abort(ctx, err)
	}
	if res.Action == hooks.PromptCancel {
		return w.abort(ctx, &HookError{Event: hooks.OnPromptSubmit, Hook: by, Reason: res.Reason})
	}
	in.Message.Role = chat.RoleUser
	in.Message.Content = w.takeNotes() + in.Message.Content
	if w.sysUnreported {
		w.sysUnreported = false
		w.report(AddedMessage{Message: w.conv[0]})
	}
	w.appendConv(AddedMessage{Message: in.Message, Prompt: true})
	return w.loop(ctx)
}

// Note adds a note for the model to the next user message (a prompt, or
// a command the user ran): something it must know that happened outside
// the conversation, such as files a /undo restored. The note goes out as
// a NoteAdded event (a session records it, so that a session continued
// later still sends it).
func (w *Worker) Note(text string) {
	text = strings.Join(strings.Fields(text), " ") // one line: WithoutNotes finds it
	if text == "" {
		return
	}
	w.mu.Lock()
	w.notes = append(w.notes, text)
	w.mu.Unlock()
	w.emit(NoteAdded{Text: text})
}

// takeNotes returns the notes waiting (Note), as the start of the next
// user message, and forgets them; "" when there are none.
func (w *Worker) takeNotes() string {
	w.mu.Lock()
	notes := w.notes
	w.notes = nil
	w.mu.Unlock()
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(notePrefix + n + "]\n")
	}
	b.WriteString("\n")
	return b.String()
}

// notePrefix starts each note in a user message.
const notePrefix = "[Note from tackle: "

// WithoutNotes returns a user message's text without the notes tackle
// put before it (Note): what the user wrote, for a transcript.
func WithoutNotes(text string) string {
	rest, cut := text, false
	for strings.HasPrefix(rest, notePrefix) {
		i := strings.Index(rest, "]\n")
		if i < 0 {
			return text
		}
		rest, cut = rest[i+2:], true
	}
	if !cut {
		return text
	}
	return strings.TrimPrefix(rest, "\n")
}

// RunCommand runs a shell command the user typed (in the UI, "!cmd") as a
// bash call through the same pre_tool_call hooks, approval policy and
// post_tool_call hooks as the model's calls: it pauses like a turn when the
// call needs approval, and Resume goes on. The command and its result
// (or why it did not run) enter the conversation as the user's message,
// for the model to read with the next prompt; no model request is made.
// No AssistantMessage is emitted: the model did not ask for the call (the
// front end learns of it from ToolCallStarted, ToolCallFinished or the
// pause).
func (w *Worker) RunCommand(ctx context.Context, command string) (Outcome, error) {
	if err := w.acquire(false); err != nil {
		return Outcome{}, err
	}
	ctx = w.withAgent(ctx)
	w.run = &runState{hooks: w.cfg.Hooks.Snapshot(), budget: hooks.NewRetryBudget(w.cfg.RetryBudget), command: true}
	args, err := json.Marshal(tools.BashArgs{Command: command})
	if err != nil {
		return w.abort(ctx, err)
	}
	w.commands++
	call := chat.ToolCall{ID: fmt.Sprintf("user_command_%d", w.commands), Name: tools.Bash, Arguments: string(args)}
	if w.sysUnreported {
		w.sysUnreported = false
		w.report(AddedMessage{Message: w.conv[0]})
	}
	_, out, err := w.decideBatch(ctx, []chat.ToolCall{call}, "")
	return out, err
}

// commandMessage is the user's message that carries a command the user
// ran (RunCommand) and its result.
func commandMessage(cs *callState) AddedMessage {
	var cmd struct{ Command string }
	_ = json.Unmarshal([]byte(cs.call.Arguments), &cmd)
	what := "I ran this shell command myself"
	switch cs.result.Status {
	case chat.StatusDenied, chat.StatusSkipped:
		what = "I tried to run this shell command myself; it did not run"
	case chat.StatusError:
		what = "I ran this shell command myself; it failed"
	}
	text := fmt.Sprintf("%s:\n$ %s\n%s", what, cmd.Command, strings.TrimRight(cs.result.Content, "\n"))
	return AddedMessage{Message: chat.UserMessage(text), Status: cs.result.Status}
}

// Resume answers the pending calls of a paused run (one Decision per
// pending call, by call ID) and goes on. After a pause from on_turn_end
// there are no pending calls: decisions are ignored and the on_turn_end
// chain continues after the hook that paused.
func (w *Worker) Resume(ctx context.Context, decisions []Decision) (Outcome, error) {
	if err := w.acquire(true); err != nil {
		return Outcome{}, err
	}
	ctx = w.withAgent(ctx)
	p := w.paused

	if p.batch == nil {
		w.paused = nil
		if done, out, err := w.turnEnd(ctx, p.turnEnd, p.turnEndFrom+1); done {
			return out, err
		}
		return w.loop(ctx)
	}

	byID, err := decisionsFor(p.batch, decisions)
	if err != nil {
		w.release() // the pause stays as it was: nothing was applied
		return Outcome{}, err
	}
	w.paused = nil

	if stop := w.apply(ctx, p.batch, byID); stop != nil {
		return w.abortBatch(ctx, p.batch, stop)
	}
	if done, out, err := w.runBatch(ctx, p.batch); done {
		return out, err
	}
	return w.loop(ctx)
}

// decisionsFor returns decisions by call ID, once it has checked that
// every pending call of batch has a valid one.
func decisionsFor(batch []*callState, decisions []Decision) (map[string]Decision, error) {
	byID := make(map[string]Decision, len(decisions))
	for _, d := range decisions {
		byID[d.CallID] = d
	}
	for _, cs := range batch {
		if !cs.pending() {
			continue
		}
		d, ok := byID[cs.orig.ID]
		if !ok || d.Verdict < Approve || d.Verdict > AbortRun {
			return nil, fmt.Errorf("agent: resume: no valid decision for pending call %s (%s)", cs.orig.ID, cs.orig.Name)
		}
	}
	return byID, nil
}

// AnswerPausesWith makes the Worker ask answer first whenever a batch of
// tool calls would pause: when answer returns a decision for every
// pending call, the Worker applies them (a ToolCallDecided each, as
// Resume does) and goes on without pausing — no PausedEvent, no paused
// Outcome; when it declines (false), the run pauses as before. A pause
// at turn end is never answered this way. A piped run answers from its
// flags (--yes, or a denial nobody can lift) with it, so that a decision
// made at once is never recorded as a pause that waited. Set it before
// Run; nil asks nothing.
func (w *Worker) AnswerPausesWith(answer func([]PendingCall) ([]Decision, bool)) {
	w.mu.Lock()
	w.answer = answer
	w.mu.Unlock()
}

// answerAtOnce asks the answer function about pending, if there is one.
func (w *Worker) answerAtOnce(pending []PendingCall) ([]Decision, bool) {
	w.mu.Lock()
	answer := w.answer
	w.mu.Unlock()
	if answer == nil {
		return nil, false
	}
	return answer(pending)
}

// applyAll applies decisions given at once to the pending calls of
// batch. Decisions that do not answer every pending call are a bug of the
// answer function: the run stops with the error.
func (w *Worker) applyAll(ctx context.Context, batch []*callState, decisions []Decision) error {
	byID, err := decisionsFor(batch, decisions)
	if err != nil {
		return err
	}
	return w.apply(ctx, batch, byID)
}

// apply carries out the decisions, by call ID, on the pending calls of
// batch, in call order. It returns why the run must stop, or nil.
func (w *Worker) apply(ctx context.Context, batch []*callState, byID map[string]Decision) error {
	for _, cs := range batch {
		if !cs.pending() {
			continue
		}
		if stop := w.applyOne(ctx, cs, byID[cs.orig.ID]); stop != nil {
			return stop
		}
	}
	return nil
}

// applyOne carries out the user's decision d on the pending call cs. It
// returns why the run must stop, or nil.
func (w *Worker) applyOne(ctx context.Context, cs *callState, d Decision) error {
	w.emit(ToolCallDecided{Call: cs.call, Verdict: d.Verdict, By: d.By, Reason: d.Reason})
	switch d.Verdict {
	case Approve, ApproveAlways:
		if err := w.approve(ctx, cs, d.Verdict == ApproveAlways); err != nil {
			return err
		}
	case Deny:
		msg := "This tool call was denied; it did not run."
		if d.Reason != "" {
			msg += " Reason: " + d.Reason
		}
		cs.decide(chat.StatusDenied, msg)
	case AbortRun:
		reason := d.Reason
		if reason == "" {
			reason = "the user aborted the run"
		}
		return fmt.Errorf("%w: %s", ErrUserAbort, reason)
	}
	return ctx.Err()
}

// approve goes on with the pre_tool_call chain of the call cs after the
// hook that paused it; always says the user approved it for the session
// too. A call that hooks then change is put to the user again (see
// reapprove). It returns the abort of a hook, or nil.
func (w *Worker) approve(ctx context.Context, cs *callState, always bool) error {
	if always && w.cfg.OnApproveAlways != nil {
		w.cfg.OnApproveAlways(cs.call)
	}
	approved := cs.call
	changedBy := w.preToolChain(ctx, cs, cs.pausedAt+1)
	if ctx.Err() == nil && (cs.step == callRun || cs.pending()) && !sameCall(approved, cs.call) {
		w.reapprove(ctx, cs, changedBy)
	}
	if ctx.Err() == nil && cs.step == callAborted {
		return &HookError{Event: hooks.PreToolCall, Hook: cs.hook, Reason: cs.reason}
	}
	return nil
}

// acquire marks the Worker busy. resume says whether a paused run is
// required (Resume) or forbidden (Run).
func (w *Worker) acquire(resume bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.busy:
		return ErrBusy
	case resume && w.paused == nil:
		return ErrNotPaused
	case !resume && w.paused != nil:
		return fmt.Errorf("%w: a run is paused; call Resume", ErrBusy)
	}
	w.busy = true
	return nil
}

func (w *Worker) release() {
	w.awaitWindows()
	w.mu.Lock()
	w.busy = false
	w.mu.Unlock()
}

// appendConv adds msgs to the conversation and reports each to
// OnMessage.
func (w *Worker) appendConv(msgs ...AddedMessage) {
	w.mu.Lock()
	for _, m := range msgs {
		w.conv = append(w.conv, m.Message)
	}
	w.mu.Unlock()
	for _, m := range msgs {
		w.report(m)
	}
}

// report tells OnMessage about a message, in order with the events.
func (w *Worker) report(m AddedMessage) {
	if w.cfg.OnMessage == nil {
		return
	}
	w.emitMu.Lock()
	defer w.emitMu.Unlock()
	w.cfg.OnMessage(m)
}

func (w *Worker) snapshot() ([]chat.Message, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.conv), w.cfg.Model
}

// loop runs steps until one ends the run.
func (w *Worker) loop(ctx context.Context) (Outcome, error) {
	for {
		if done, out, err := w.step(ctx); done {
			return out, err
		}
	}
}

// step makes one model request and handles the reply: its tool calls, or
// the end of the turn. done reports that the run ended (or paused).
func (w *Worker) step(ctx context.Context) (done bool, out Outcome, err error) {
	st := w.run
	if st.requests >= w.cfg.MaxRequests {
		out, err = w.end(StatusCapped, fmt.Sprintf("request limit reached: %d model requests in one run", w.cfg.MaxRequests), nil, nil)
		return true, out, err
	}
	st.requests++

	w.fitContext(ctx)
	reply, stop := w.request(ctx)
	if IsContextOverflow(stop) && ctx.Err() == nil {
		reply, stop = w.retryOverflow(ctx, stop)
	}
	if stop != nil {
		w.noReply(ctx, st.partial.String(), stop)
		out, err = w.abort(ctx, stop)
		return true, out, err
	}
	msg := w.addReply(reply.Message)
	cut := w.checkFinish(reply)
	if len(msg.ToolCalls) == 0 {
		conv, _ := w.snapshot()
		return w.turnEnd(ctx, hooks.TurnEndInput{Messages: conv, Final: msg, Round: st.budget.Rounds()}, 0)
	}
	return w.decideBatch(ctx, msg.ToolCalls, cut)
}

// request runs the pre_llm_request chain on the conversation and streams
// the model's reply to the request the hooks left. It returns the reply,
// or why the run must stop.
func (w *Worker) request(ctx context.Context) (Reply, error) {
	st := w.run
	msgs, model := w.snapshot()
	sent := size(msgs)
	req := hooks.LLMRequestInput{Model: model, Messages: w.withNotes(msgs), Request: st.requests}
	var by string
	res := st.hooks.RunPreLLMRequest(ctx, &req, w.recorder(&by))
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	if res.Action == hooks.RequestCancel {
		return Reply{}, &HookError{Event: hooks.PreLLMRequest, Hook: by, Reason: res.Reason}
	}

	w.mu.Lock()
	noImages := w.noImages
	w.mu.Unlock()
	send := req.Messages
	if noImages {
		send = withoutImages(send)
	}
	reply, err := w.stream(ctx, req.Model, send)
	if err != nil && !noImages && refusedImages(err, send) && ctx.Err() == nil {
		// Perhaps the model takes no images: ask again without them.
		refused := err
		if reply, err = w.stream(ctx, req.Model, withoutImages(send)); err == nil {
			w.mu.Lock()
			w.noImages = true
			w.mu.Unlock()
			w.emit(Warning{Message: imagesRefused(req.Model, refused, send)})
		}
	}
	if err != nil {
		return Reply{}, err
	}
	st.usage = st.usage.Add(reply.Usage)
	used := w.counted(reply.Usage, sent+size([]chat.Message{reply.Message}))
	w.emit(UsageReport{Request: reply.Usage, Total: st.usage, Context: used, Window: w.window(ctx, model)})
	return reply, nil
}

// stream sends one request of msgs to the model. The reply's text so far
// is kept in the run's partial, for a reply the user interrupts
// (noReply).
func (w *Worker) stream(ctx context.Context, model string, msgs []chat.Message) (Reply, error) {
	st := w.run
	st.partial.Reset()
	reply, err := w.cfg.Client.Stream(ctx, Request{Model: model, Messages: msgs, Tools: w.toolSpecs(), ReasoningEffort: w.cfg.ReasoningEffort}, func(e Event) {
		if d, ok := e.(TextDelta); ok {
			st.partial.WriteString(d.Text)
		}
		w.emit(e)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return Reply{}, err
	}
	return reply, nil
}

// noReply handles a request that ended without the model's reply (err):
// the model must know where the conversation stands. A reply the user
// interrupted is kept as far as its text went, as the assistant's
// message, with a note saying where it stopped (a tool call of it is not
// kept: it never ran). A conversation left ending with a user message
// (the user's prompt, a check's feedback) gets a note saying it had no
// reply, so that two user messages never follow each other unmarked. A
// reply cut any other way is not kept: half a message never enters the
// conversation.
func (w *Worker) noReply(ctx context.Context, text string, err error) {
	if ctx.Err() != nil && strings.TrimSpace(text) != "" {
		w.appendConv(AddedMessage{Message: chat.Message{Role: chat.RoleAssistant, Content: text}})
		w.run.lastText = text
		w.Note(fmt.Sprintf("the user interrupted your previous reply here: “%s”; the rest of it was not sent.", tail(text, 160)))
		return
	}
	w.mu.Lock()
	userLast := len(w.conv) > 0 && w.conv[len(w.conv)-1].Role == chat.RoleUser
	w.mu.Unlock()
	switch {
	case !userLast:
	case ctx.Err() != nil:
		w.Note("the user interrupted the request for your reply to the message above before you answered it.")
	default:
		w.Note(fmt.Sprintf("the request for your reply to the message above failed (%s): it got no answer.", chat.OneLine(err.Error(), 200)))
	}
}

// tail is the last n bytes of s at most (on a rune boundary, after a
// space where one is near), with "…" before it when cut.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	if j := strings.IndexByte(s[i:], ' '); j >= 0 && j < 20 {
		i += j + 1
	}
	return "…" + s[i:]
}

// withNotes returns msgs with Config.SystemNotes added at the end of the
// system prompt (a copy of it), or before the conversation when there is
// none.
func (w *Worker) withNotes(msgs []chat.Message) []chat.Message {
	if w.cfg.SystemNotes == nil {
		return msgs
	}
	notes := w.cfg.SystemNotes()
	if notes == "" {
		return msgs
	}
	if len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		msgs[0].Content += "\n\n" + notes
		return msgs
	}
	return append([]chat.Message{{Role: chat.RoleSystem, Content: notes}}, msgs...)
}

// addReply adds the model's reply to the conversation as the assistant's
// message, with tool call IDs made unique, emits it and returns it.
func (w *Worker) addReply(msg chat.Message) chat.Message {
	msg.Role = chat.RoleAssistant
	if len(msg.ToolCalls) > 0 {
		w.mu.Lock()
		msg.ToolCalls = uniqueCallIDs(w.conv, msg.ToolCalls)
		w.mu.Unlock()
	}
	w.appendConv(AddedMessage{Message: msg})
	w.emit(AssistantMessage{Message: msg})
	if msg.Content != "" {
		w.run.lastText = msg.Content
	}
	return msg
}

// decideBatch evaluates the pre_tool_call chain of every call of a reply
// before anything runs, so several calls can wait for the user at once,
// and then runs the batch (see runBatch). cut is why the reply is not
// whole ("" when it is): then no call runs (see finish.go).
func (w *Worker) decideBatch(ctx context.Context, calls []chat.ToolCall, cut string) (done bool, out Outcome, err error) {
	batch := make([]*callState, len(calls))
	for i, call := range calls {
		batch[i] = &callState{orig: call, call: call}
	}
	for _, cs := range batch {
		if cut != "" {
			cs.decide(chat.StatusError, cutCallResult(cut))
			continue
		}
		if problem := w.checkCall(cs.orig); problem != "" {
			cs.decide(chat.StatusError, problem)
			continue
		}
		w.preToolChain(ctx, cs, 0)
		if err := ctx.Err(); err != nil {
			out, err = w.abortBatch(ctx, batch, err)
			return true, out, err
		}
		if cs.step == callAborted {
			out, err = w.abortBatch(ctx, batch, &HookError{Event: hooks.PreToolCall, Hook: cs.hook, Reason: cs.reason})
			return true, out, err
		}
	}
	return w.runBatch(ctx, batch)
}

// preToolChain runs the pre_tool_call chain for one call from hook index
// from and records its decision in cs. It returns the name of the last
// hook that changed the call ("" if none did).
func (w *Worker) preToolChain(ctx context.Context, cs *callState, from int) (changedBy string) {
	in := hooks.PreToolInput{Call: cs.call}
	var by string
	rec := w.recorder(&by)
	last := in.Call
	res, idx := w.run.hooks.RunPreToolCall(ctx, &in, from, func(d hooks.Decision) {
		rec(d)
		if !sameCall(last, in.Call) {
			changedBy, last = d.Hook, in.Call
		}
	})
	cs.call = in.Call
	cs.call.ID = cs.orig.ID // the result must answer the call the model made
	switch res.Action {
	case hooks.ToolContinue:
		cs.step = callRun
	case hooks.ToolSkip:
		msg := fmt.Sprintf("Skipped by hook %q; the tool did not run.", by)
		if res.Reason != "" {
			msg += " Reason: " + res.Reason
		}
		cs.decide(chat.StatusSkipped, msg)
	case hooks.ToolAbort:
		cs.step, cs.hook, cs.reason = callAborted, by, res.Reason
	case hooks.ToolPause:
		cs.step, cs.pausedAt, cs.hook, cs.reason = callPending, idx, by, res.Reason
	case hooks.ToolRespond:
		cs.step, cs.result = callReplied, res.Response
		cs.result.CallID = cs.orig.ID
		cs.result.Status = cmp.Or(cs.result.Status, chat.StatusOK)
	}
	return changedBy
}

// reapprove handles a call that hooks changed after the user approved it:
// what runs must be what the user approved, so the call goes through its
// whole pre_tool_call chain again with the final arguments (the approval
// policy judges them and asks the user again) — at most maxReapprovals
// times, after which it is skipped.
func (w *Worker) reapprove(ctx context.Context, cs *callState, changedBy string) {
	cs.reapprovals++
	if cs.reapprovals > maxReapprovals {
		msg := fmt.Sprintf("Skipped: hook %q changed the arguments after they were approved more than %d times in a row; the tool did not run.", changedBy, maxReapprovals)
		cs.decide(chat.StatusSkipped, msg)
		w.emit(Warning{Message: fmt.Sprintf("%s %s: %s", cs.call.Name, cs.orig.ID, msg)})
		return
	}
	w.preToolChain(ctx, cs, 0)
	if cs.pending() {
		cs.reason = fmt.Sprintf("hook %q changed the arguments after they were approved; asked again: %s", changedBy, cs.reason)
	}
}

// sameCall reports whether two versions of a call name the same tool
// with the same arguments (compared as JSON values, so a hook that only
// re-encodes them does not count as a change).
func sameCall(a, b chat.ToolCall) bool {
	if a.Name != b.Name {
		return false
	}
	if a.Arguments == b.Arguments {
		return true
	}
	var va, vb any
	da, db := json.NewDecoder(strings.NewReader(a.Arguments)), json.NewDecoder(strings.NewReader(b.Arguments))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil || da.More() || db.More() {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// uniqueCallIDs gives each call of a reply an ID no other call of the
// conversation has: a repeated or empty ID gets a fresh one, so that every
// tool result answers exactly one call. The model sees the new IDs in its
// own message and in the results. "main" is taken too: a task call's ID
// names its subagent (hooks.Agent), which must never pass for the main
// agent.
func uniqueCallIDs(conv []chat.Message, calls []chat.ToolCall) []chat.ToolCall {
	used := map[string]bool{hooks.MainAgent: true}
	for _, m := range conv {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	var out []chat.ToolCall
	for i, c := range calls {
		if c.ID != "" && !used[c.ID] {
			used[c.ID] = true
			continue
		}
		if out == nil {
			out = slices.Clone(calls)
		}
		base := cmp.Or(c.ID, "call")
		for n := 2; ; n++ {
			if id := fmt.Sprintf("%s_%d", base, n); !used[id] {
				out[i].ID, used[id] = id, true
				break
			}
		}
	}
	if out == nil {
		return calls
	}
	return out
}

// pendingCall is a call waiting for a decision, with its preview.
func (w *Worker) pendingCall(cs *callState) PendingCall {
	p := PendingCall{Call: cs.call, Hook: cs.hook, Reason: cs.reason}
	if pv, ok := w.cfg.Tools.(Previewer); ok {
		preview := pv.Preview(cs.call)
		p.Preview = &preview
	}
	return p
}

// runBatch pauses if any call waits for the user; otherwise it executes
// the approved calls, at most MaxParallel at a time, and appends one
// result per call, in call order. Every call gets exactly one
// ToolCallFinished, in call order, also when the run stops part way.
func (w *Worker) runBatch(ctx context.Context, batch []*callState) (done bool, out Outcome, err error) {
	for pending := w.askable(batch); len(pending) > 0; pending = w.askable(batch) {
		decisions, ok := w.answerAtOnce(pending)
		if !ok {
			out, err = w.pause(batch, pending)
			return true, out, err
		}
		if stop := w.applyAll(ctx, batch, decisions); stop != nil {
			out, err = w.abortBatch(ctx, batch, stop)
			return true, out, err
		}
	}

	execCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	finished, started := w.startBatch(execCtx, batch)

	// Results are handled in call order as they complete: post_tool_call
	// runs per result, sequentially. Once the run is stopped (cancelled,
	// or aborted by a hook) the remaining results get only the Protect
	// hooks.
	var stop error
	for i, cs := range batch {
		<-finished[i]
		if stop == nil && ctx.Err() != nil {
			stop = ctx.Err()
		}
		if abort := w.settle(ctx, cs, stop); abort != nil {
			stop = abort
			cancel()
		}
		var d time.Duration
		if cs.ran {
			d = w.cfg.Now().Sub(started[i])
		}
		w.emit(ToolCallFinished{Call: cs.call, Result: cs.result, Duration: d})
	}
	if stop == nil && ctx.Err() != nil {
		stop = ctx.Err()
	}

	if w.run.command {
		msg := commandMessage(batch[0])
		msg.Message.Content = w.takeNotes() + msg.Message.Content
		w.appendConv(msg)
	} else {
		w.appendConv(results(batch)...)
		if m, ok := imageMessage(batch); ok && !w.imagesRefused() {
			w.appendConv(m)
		}
	}
	if stop != nil {
		out, err = w.abort(ctx, stop)
		return true, out, err
	}
	if w.run.command {
		out, err = w.end(StatusFinished, "", nil, nil)
		return true, out, err
	}
	return false, Outcome{}, nil
}

// askable returns the calls of batch that wait for the user, with their
// previews, once it has answered those their tool will refuse as they
// stand (tools.Preview.Refused: a file never read, an old_string not in
// it, a path outside the workspace): nobody is asked to approve a call
// that cannot run. Such a call gets the tool's own error result, as if
// it had run, without a pause; the hooks' decisions stand as they were
// (the check is the tool's, not a hook's).
func (w *Worker) askable(batch []*callState) []PendingCall {
	var pending []PendingCall
	for _, cs := range batch {
		if !cs.pending() {
			continue
		}
		p := w.pendingCall(cs)
		if p.Preview != nil && p.Preview.Refused != "" {
			cs.decide(chat.StatusError, p.Preview.Refused)
			continue
		}
		pending = append(pending, p)
	}
	return pending
}

// pendingCalls returns the calls of batch that wait for the user, with
// their previews.
func (w *Worker) pendingCalls(batch []*callState) []PendingCall {
	var pending []PendingCall
	for _, cs := range batch {
		if cs.pending() {
			pending = append(pending, w.pendingCall(cs))
		}
	}
	return pending
}

// pause ends the run as paused on the pending calls of batch, keeping the
// batch for Resume.
func (w *Worker) pause(batch []*callState, pending []PendingCall) (Outcome, error) {
	p := &pause{batch: batch}
	w.mu.Lock()
	w.paused = p
	w.mu.Unlock()
	w.emit(PausedEvent{Pending: pending, State: w.pausedRun(p)})
	return w.end(StatusPaused, pending[0].Reason, pending, nil)
}

// settle gives the call cs its final result once it is done: a call that
// ran, or that a hook responded to, goes through the post_tool_call chain,
// or only its Protect hooks when the run was stopped (stop is why); an
// approved call that never started gets an error result. It returns why
// the run must stop when a hook aborts it, else nil.
func (w *Worker) settle(ctx context.Context, cs *callState, stop error) error {
	hs := w.run.hooks
	switch {
	case cs.step != callRun && cs.step != callReplied:
		// Decided without running: skipped, denied, an error result.
	case cs.step == callRun && !cs.ran:
		cs.decide(chat.StatusError, "The run was stopped before this call started: "+stop.Error())
	case stop != nil:
		post := hooks.PostToolInput{Call: cs.call, Result: cs.result}
		hs.RunPostToolProtect(ctx, &post, w.recorder(nil))
		cs.result = post.Result
		cs.result.CallID = cs.orig.ID
	default:
		post := hooks.PostToolInput{Call: cs.call, Result: cs.result}
		var by string
		res := hs.RunPostToolCall(ctx, &post, w.recorder(&by))
		cs.result = post.Result
		cs.result.CallID = cs.orig.ID // whatever the hooks did to it
		if res.Action == hooks.PostAbort {
			if err := ctx.Err(); err != nil {
				return err
			}
			return &HookError{Event: hooks.PostToolCall, Hook: by, Reason: res.Reason}
		}
	}
	return nil
}

// startBatch starts the approved calls of batch in call order, at most
// MaxParallel at a time, and returns a channel per call that is
// closed once the call has its result (at once for calls that do not
// run, and for calls still queued when ctx ends, which never start) and
// each started call's start time. A channel's close publishes the call's
// result, ran and start time.
func (w *Worker) startBatch(ctx context.Context, batch []*callState) (finished []chan struct{}, started []time.Time) {
	finished = make([]chan struct{}, len(batch))
	started = make([]time.Time, len(batch))
	for i := range finished {
		finished[i] = make(chan struct{})
	}
	slots := make(chan struct{}, w.cfg.MaxParallel)
	start := func(i int) {
		cs := batch[i]
		cs.ran = true
		started[i] = w.cfg.Now()
		w.emit(ToolCallStarted{Call: cs.call})
		go func() {
			defer func() {
				<-slots
				close(finished[i])
			}()
			var over atomic.Bool // no progress after the call's result
			ctx := tools.WithProgress(ctx, func(p tools.Progress) {
				w.emitUnless(&over, w.progress(cs.call, p))
			})
			ctx = tools.WithPlanObserver(ctx, func(items []tools.TodoItem) {
				w.emitUnless(&over, TodoUpdated{Todos: items})
			})
			// A subagent the call starts is this Worker's child.
			ctx = context.WithValue(ctx, parentKey{}, &parentLink{w: w, call: cs.call})
			cs.result = w.execute(ctx, cs.call)
			over.Store(true)
			cs.result.CallID = cs.orig.ID
		}()
	}
	// The calls that fit start here, so their ToolCallStarted events come
	// before anything else; the rest wait for a slot on a goroutine.
	i := 0
	for ; i < len(batch); i++ {
		if batch[i].step != callRun {
			close(finished[i])
			continue
		}
		if !trySend(slots) {
			break
		}
		start(i)
	}
	if i == len(batch) {
		return finished, started
	}
	go func() {
		for ; i < len(batch); i++ {
			if batch[i].step != callRun {
				close(finished[i])
				continue
			}
			select {
			case slots <- struct{}{}:
				if ctx.Err() == nil {
					start(i)
					continue
				}
				<-slots
			case <-ctx.Done():
			}
			close(finished[i]) // the run stopped while the call waited
		}
	}()
	return finished, started
}

// progress is the event of a running call's progress report: its
// message and output redacted (the output whole, so that a secret's
// pattern sees all it needs: a key block from its BEGIN line on), then
// the output's last lines.
func (w *Worker) progress(call chat.ToolCall, p tools.Progress) ToolCallProgress {
	if r := w.cfg.Redact; r != nil {
		p.Message = r(p.Message)
		if p.Output != "" {
			p.Output = r(p.Output)
		}
	}
	return ToolCallProgress{Call: call, Done: p.Done, Total: p.Total, Message: p.Message, Output: lastLines(p.Output, ProgressLines, ProgressLineBytes)}
}

// lastLines is the end of text: its last n lines (a newline at the end
// ends the last), a longer line cut to size bytes and a note of how many
// more it has (chat.Quote).
func lastLines(text string, n, size int) string {
	if text == "" {
		return ""
	}
	end := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	lines = lines[max(len(lines)-n, 0):]
	for i, l := range lines {
		if len(l) > size {
			lines[i] = chat.Quote(l, size)
		}
	}
	out := strings.Join(lines, "\n")
	if end {
		out += "\n"
	}
	return out
}

// trySend sends on c if that does not block and reports whether it did.
func trySend(c chan struct{}) bool {
	select {
	case c <- struct{}{}:
		return true
	default:
		return false
	}
}

// execute runs one approved call, turning a harness failure or a panic
// into an error result so the model always gets exactly one result.
func (w *Worker) execute(ctx context.Context, call chat.ToolCall) (res chat.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = chat.ToolResult{Status: chat.StatusError, Content: fmt.Sprintf("tool %s crashed: %v", call.Name, p)}
			w.emit(Warning{Message: res.Content})
		}
	}()
	res, err := w.cfg.Tools.Run(ctx, call)
	if err != nil {
		res = chat.ToolResult{Status: chat.StatusError, Content: fmt.Sprintf("tool %s failed: %v", call.Name, err)}
		if ctx.Err() == nil {
			w.emit(Warning{Message: res.Content})
		}
	}
	if res.Status == "" {
		res.Status = chat.StatusOK
	}
	return res
}

// turnEnd runs the on_turn_end chain from hook index from and applies its
// decision.
func (w *Worker) turnEnd(ctx context.Context, in hooks.TurnEndInput, from int) (done bool, out Outcome, err error) {
	st := w.run
	var by string
	res, idx := st.hooks.RunTurnEnd(ctx, &in, from, w.recorder(&by))
	if err := ctx.Err(); err != nil {
		out, err = w.abort(ctx, err)
		return true, out, err
	}
	switch res.Action {
	case hooks.TurnContinueWithMessages:
		if ok, why := st.budget.Admit(res.Messages); !ok {
			reason := why
			if res.Reason != "" {
				reason += "; still open: " + res.Reason
			}
			out, err = w.end(StatusCapped, reason, nil, nil)
			return true, out, err
		}
		for _, m := range res.Messages {
			w.appendConv(AddedMessage{Message: m})
		}
		w.emit(RetryPushed{Round: st.budget.Rounds(), Max: st.budget.Max(), Hook: by, Messages: res.Messages})
		return false, Outcome{}, nil
	case hooks.TurnPaused:
		p := &pause{turnEndFrom: idx, turnEnd: in, reason: res.Reason}
		w.mu.Lock()
		w.paused = p
		w.mu.Unlock()
		w.emit(PausedEvent{Reason: res.Reason, State: w.pausedRun(p)})
		out, err = w.end(StatusPaused, res.Reason, nil, nil)
		return true, out, err
	default:
		out, err = w.end(StatusFinished, "", nil, nil)
		return true, out, err
	}
}

// checkCall reports why a call cannot run at all (unknown tool, arguments
// that are not a JSON object), or "" when it can.
func (w *Worker) checkCall(call chat.ToolCall) string {
	w.mu.Lock()
	names := w.names
	w.mu.Unlock()
	if _, ok := slices.BinarySearch(names, call.Name); !ok {
		if len(names) == 0 {
			return fmt.Sprintf("Unknown tool %q: no tools are available.", call.Name)
		}
		return fmt.Sprintf("Unknown tool %q. The available tools are: %s.", call.Name, strings.Join(names, ", "))
	}
	args := strings.TrimSpace(call.Arguments)
	if args == "" {
		return ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		return fmt.Sprintf("The arguments for %s are not a valid JSON object (%v). You sent: %s\nSend the arguments again as one JSON object matching the tool's schema.",
			call.Name, err, chat.Quote(args, 200))
	}
	return ""
}

// abortBatch gives every call of the batch a result (the conversation must
// answer every call) and its ToolCallFinished, and aborts the run with
// cause. None of the calls has run.
func (w *Worker) abortBatch(ctx context.Context, batch []*callState, cause error) (Outcome, error) {
	for _, cs := range batch {
		if cs.step != callDecided {
			cs.decide(chat.StatusError, "The run was aborted before this call ran: "+cause.Error())
		}
		w.emit(ToolCallFinished{Call: cs.call, Result: cs.result})
	}
	w.appendConv(results(batch)...)
	return w.abort(ctx, cause)
}

// results are the result messages of batch, in call order.
func results(batch []*callState) []AddedMessage {
	out := make([]AddedMessage, len(batch))
	for i, cs := range batch {
		out[i] = AddedMessage{Message: cs.result.Message(), Status: cs.result.Status}
	}
	return out
}

// abort runs the on_abort hooks (even when ctx is cancelled) and ends the
// run as aborted with cause.
func (w *Worker) abort(ctx context.Context, cause error) (Outcome, error) {
	in := hooks.AbortInput{Reason: cause.Error(), Err: cause}
	w.run.hooks.RunAbort(context.WithoutCancel(ctx), &in, w.recorder(nil))
	w.emit(ErrorEvent{Message: cause.Error()})
	return w.end(StatusAborted, cause.Error(), nil, cause)
}

// end finishes Run or Resume: it builds the outcome, emits TurnFinished and
// releases the Worker. A paused run keeps its state for Resume.
func (w *Worker) end(status Status, reason string, pending []PendingCall, err error) (Outcome, error) {
	st := w.run
	out := Outcome{Status: status, Pending: pending, Reason: reason, Text: st.lastText, Usage: st.usage, HookFailures: st.hookFailures, Incomplete: st.incomplete}
	w.emit(TurnFinished{Outcome: out})
	w.release()
	return out, err
}

// Emit adds an event to the Worker's stream, in order with its own events.
// Built-in hooks use it to report progress (CheckStarted, CheckFinished)
// from inside a chain.
func (w *Worker) Emit(e Event) { w.emit(e) }

// emitUnless is emit, unless over is set by the time the event's turn
// comes.
func (w *Worker) emitUnless(over *atomic.Bool, e Event) {
	if w.cfg.OnEvent == nil {
		return
	}
	w.emitMu.Lock()
	defer w.emitMu.Unlock()
	if !over.Load() {
		w.cfg.OnEvent(e)
	}
}

// imagesRefused reports whether the model's server refused images.
func (w *Worker) imagesRefused() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.noImages
}

// emit delivers one event to OnEvent, serialised across goroutines.
func (w *Worker) emit(e Event) {
	if w.cfg.OnEvent == nil {
		return
	}
	w.emitMu.Lock()
	defer w.emitMu.Unlock()
	w.cfg.OnEvent(e)
}

// recorder returns a hooks.Recorder that emits every decision (and a
// warning for a hook that failed), counts pre_tool_call failures that
// skipped a call, and stores the name of the last hook of the chain that
// decided in *by, when by is not nil.
func (w *Worker) recorder(by *string) hooks.Recorder {
	return func(d hooks.Decision) {
		if by != nil && !d.Protect {
			*by = d.Hook
		}
		w.emit(HookDecision{Decision: d})
		if d.Error == "" {
			return
		}
		msg := fmt.Sprintf("%s hook %q failed (%s); result: %s", d.Event, d.Hook, d.Error, d.Result)
		if d.Event == hooks.PreToolCall && d.Result == "skip" {
			w.run.hookFailures++
			msg += "; the call was not run"
		}
		if d.CallID != "" {
			msg += " [" + d.CallID + "]"
		}
		w.emit(Warning{Message: msg})
	}
}
