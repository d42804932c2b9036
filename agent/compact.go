package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Compaction: when the next request would fill more than the threshold
// of the model's context window, the Worker makes the conversation
// smaller before it sends it, in two steps:
//
//  1. Pruning: the tool outputs older than the latest turns are
//     shortened to a stub that names the call, so the model can make it
//     again. If that brings the request under the threshold, it stops.
//  2. Summary: the model summarizes the older part of the conversation
//     as it was (its tool outputs clipped to their head and tail) with a
//     prompt of its own, and one message replaces it. The latest turns
//     stay as they were.
//
// A turn is one model reply, the tool results that answer it and the
// messages since the turn before (the user's prompt, feedback from a
// hook). The conversation is cut only between turns, so a tool call and
// its result are never parted. The system prompt at the head is kept.
//
// Everything is worked out on a copy; pre_compact hooks see the result
// and may change the summary or cancel it; only then does it replace
// the conversation, in one step. A summary request that fails leaves the
// conversation as it was.

// Defaults of Config's compaction settings.
const (
	DefaultCompactThreshold = 0.85
	DefaultKeepTurns        = 3
)

// Sentinel errors of a compaction.
var (
	// ErrNothingToCompact: no turn is older than the latest, and no old
	// tool output is left to prune.
	ErrNothingToCompact = errors.New("nothing to compact: the conversation has no turn before the latest")
	// ErrCompactCancelled is wrapped by the error of a compaction that a
	// pre_compact hook cancelled.
	ErrCompactCancelled = errors.New("compaction cancelled")
)

// Limits of what a summary request sends.
const (
	// itemMax bounds one message of the transcript the model summarizes:
	// a longer one keeps its head and tail.
	itemMax = 8 << 10
	// transcriptDefault bounds the transcript when the window is unknown.
	transcriptDefault = 256 << 10
)

// stubPrefix starts the text of a pruned tool output.
const stubPrefix = "[tool output pruned"

// Compact compacts the conversation now, as /compact does: it prunes the
// old tool outputs and has the model summarize everything before the
// latest turns (fewer than Config.KeepTurns when there are not that
// many), whatever the size of the context; focus tells the summary what
// to keep. Like Run it fails with ErrBusy while a run is in progress or
// paused. It returns ErrNothingToCompact when there is only one turn, an
// error wrapping ErrCompactCancelled when a pre_compact hook cancels, or
// the summary request's error; the conversation is then as it was.
func (w *Worker) Compact(ctx context.Context, focus string) (Compacted, error) {
	if err := w.acquire(false); err != nil {
		return Compacted{}, err
	}
	defer w.release()
	return w.compact(ctx, w.cfg.Hooks.Snapshot(), hooks.CompactManual, strings.TrimSpace(focus))
}

// fitContext compacts the conversation when the next request would fill
// more than the threshold of the model's context window. A compaction
// that fails or is cancelled leaves the conversation as it was: the
// request is sent as it is, with a warning.
//
// Before the model's window is known, a request that nothing could be
// compacted for (the first turns of a conversation) goes out at once and
// the window is looked up beside it: the look-up, three requests to an
// unknown server, is then not on the way to the first answer.
func (w *Worker) fitContext(ctx context.Context) {
	model := w.model()
	if w.knownWindow(model) == 0 && !w.compactable() {
		w.lookUpWindow(ctx, model)
		return
	}
	window := w.window(ctx, model)
	if window == 0 || ctx.Err() != nil || w.contextSize() <= w.limit(window) {
		return
	}
	if _, err := w.compact(ctx, w.run.hooks, hooks.CompactAuto, ""); err != nil && ctx.Err() == nil {
		w.emit(Warning{Message: compactFailed(err) + "; the request is sent as it is and may not fit the model's context window"})
	}
}

// retryOverflow handles a request the server refused as too long for the
// model's context window (cause): it compacts the conversation and sends
// the request once more, whose error, if any, ends the run. When nothing
// could be compacted, cause ends it.
func (w *Worker) retryOverflow(ctx context.Context, cause error) (Reply, error) {
	if _, err := w.compact(ctx, w.run.hooks, hooks.CompactOverflow, ""); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return Reply{}, cerr
		}
		w.emit(Warning{Message: compactFailed(err) + "; the model's answer that the request is too long ends the run"})
		return Reply{}, cause
	}
	reply, err := w.request(ctx)
	if IsContextOverflow(err) {
		err = fmt.Errorf("the request is still too long for the model after compacting the conversation: %w", err)
	}
	return reply, err
}

// compactFailed says why a compaction did not happen, for a warning.
func compactFailed(err error) string {
	switch {
	case errors.Is(err, ErrCompactCancelled), errors.Is(err, ErrNothingToCompact):
		return err.Error()
	}
	return "compaction failed, the conversation is unchanged: " + err.Error()
}

// plan is a compaction worked out on a copy of the conversation.
type plan struct {
	Compacted
	head int // where the summary message is, when there is one
}

// compact compacts the conversation for trigger, running the pre_compact
// hooks of hs, and reports it (CompactStarted, then Compacted). An
// automatic compaction stops after pruning if that is enough; the others
// always summarize. On any error the conversation is left as it was.
func (w *Worker) compact(ctx context.Context, hs *hooks.Registry, trigger hooks.CompactTrigger, focus string) (Compacted, error) {
	conv, model := w.snapshot()
	window := w.window(ctx, model)
	w.mu.Lock()
	m, fixed := w.meter, w.fixed
	w.mu.Unlock()
	p := plan{Compacted: Compacted{Trigger: trigger, Focus: focus, Before: m.estimate(conv, fixed), Window: window}}
	w.emit(CompactStarted{Trigger: trigger, Tokens: p.Before, Window: window})

	p.head = leadingSystem(conv)
	cut := w.cut(conv, p.head)
	p.Messages, p.Pruned = prune(conv, p.head, cut)
	summarize := trigger != hooks.CompactAuto || m.estimate(p.Messages, fixed) > w.limit(window)
	if summarize && cut > p.head {
		// The model summarizes the older turns as they were: what the
		// tool outputs said belongs in the summary.
		summary, usage, err := w.summarize(ctx, model, conv[p.head:cut], focus, window)
		p.Usage = usage
		if st := w.run; st != nil && trigger != hooks.CompactManual {
			st.usage = st.usage.Add(usage)
		}
		if err != nil {
			return Compacted{}, fmt.Errorf("summary request: %w", err)
		}
		p.Summary, p.Replaced, p.Pruned = summary, cut-p.head, 0
		p.Messages = slices.Concat(conv[:p.head], []chat.Message{summaryMessage(summary)}, conv[cut:])
	}
	if p.Pruned == 0 && p.Summary == "" {
		return Compacted{}, ErrNothingToCompact
	}
	p.After = m.estimate(p.Messages, fixed)
	if err := w.preCompact(ctx, hs, &p); err != nil {
		return Compacted{}, err
	}
	w.mu.Lock()
	w.conv = slices.Clone(p.Messages)
	w.mu.Unlock()
	w.emit(p.Compacted)
	return p.Compacted, nil
}

// cut returns the index of the first message of the turns a compaction
// keeps: the latest KeepTurns, or fewer when no turn would be left
// before them.
func (w *Worker) cut(conv []chat.Message, head int) int {
	keep := w.cfg.KeepTurns
	at := turnStart(conv, head, keep)
	for at == head && keep > 1 {
		keep--
		at = turnStart(conv, head, keep)
	}
	return at
}

// preCompact runs the pre_compact chain on p and applies its decision: a
// cancel is an error wrapping ErrCompactCancelled; a summary the hooks
// rewrote (to something not blank) replaces the model's.
func (w *Worker) preCompact(ctx context.Context, hs *hooks.Registry, p *plan) error {
	in := hooks.CompactInput{
		Trigger: p.Trigger, Focus: p.Focus, Summary: p.Summary, Messages: p.Messages,
		Replaced: p.Replaced, Pruned: p.Pruned, Tokens: p.Before, After: p.After, Window: p.Window,
	}
	var by string
	res := hs.RunPreCompact(ctx, &in, w.recorder(&by))
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Action == hooks.CompactCancel {
		if res.Reason == "" {
			return fmt.Errorf("%w by pre_compact hook %q", ErrCompactCancelled, by)
		}
		return fmt.Errorf("%w by pre_compact hook %q: %s", ErrCompactCancelled, by, res.Reason)
	}
	if p.Summary != "" && in.Summary != p.Summary && strings.TrimSpace(in.Summary) != "" {
		p.Summary = strings.TrimSpace(in.Summary)
		p.Messages = slices.Clone(p.Messages)
		p.Messages[p.head] = summaryMessage(p.Summary)
		w.mu.Lock()
		p.After = w.meter.estimate(p.Messages, w.fixed)
		w.mu.Unlock()
	}
	return nil
}

// limit is the size a request may reach in a window before compaction.
func (w *Worker) limit(window int64) int64 {
	return int64(float64(window) * w.cfg.CompactThreshold)
}

// model is the model of the next request.
func (w *Worker) model() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cfg.Model
}

// leadingSystem counts the system messages at the head of conv.
func leadingSystem(conv []chat.Message) int {
	n := 0
	for n < len(conv) && conv[n].Role == chat.RoleSystem {
		n++
	}
	return n
}

// turnStart returns the index of the first message of the last keep
// turns of conv after head, or head when it has no more than keep. A
// turn ends with a model reply's tool results; the messages after them
// (a prompt, a hook's feedback) begin the next.
func turnStart(conv []chat.Message, head, keep int) int {
	seen := 0
	for i := len(conv) - 1; i >= head; i-- {
		if conv[i].Role != chat.RoleAssistant {
			continue
		}
		if seen++; seen < keep {
			continue
		}
		for i > head && conv[i-1].Role != chat.RoleAssistant && conv[i-1].Role != chat.RoleTool {
			i--
		}
		return i
	}
	return head
}

// prune returns a copy of conv whose tool outputs in [from, to) are
// shortened to a stub naming the call, and the images they returned left
// out, and how many outputs were. Outputs no longer than their stub, and
// stubs, stay.
func prune(conv []chat.Message, from, to int) ([]chat.Message, int) {
	out := slices.Clone(conv)
	calls := map[string]chat.ToolCall{}
	n := 0
	for i := from; i < to; i++ {
		for _, c := range out[i].ToolCalls {
			calls[c.ID] = c
		}
		m := out[i]
		if k := len(m.Images); k > 0 {
			out[i].Images = nil
			out[i].Content = fmt.Sprintf("[%d %s the tool calls above returned, left out to save context]", k, plural(k, "image", "images"))
			n++
			continue
		}
		if m.Role != chat.RoleTool || strings.HasPrefix(m.Content, stubPrefix) {
			continue
		}
		if stub := pruneStub(calls[m.ToolCallID], len(m.Content)); len(stub) < len(m.Content) {
			out[i].Content = stub
			n++
		}
	}
	return out, n
}

// pruneStub is what a pruned tool output of size bytes becomes.
func pruneStub(call chat.ToolCall, size int) string {
	if call.Name == "" {
		return fmt.Sprintf("%s to save context: %d bytes; run the tool again if you need them]", stubPrefix, size)
	}
	return fmt.Sprintf("%s to save context: %s %s returned %d bytes; call it again with these arguments if you need them]",
		stubPrefix, call.Name, chat.Quote(call.Arguments, 300), size)
}

// summaryMessage is the message that stands for the summarized turns.
func summaryMessage(summary string) chat.Message {
	return chat.UserMessage("[The earlier part of this conversation was compacted to save context. This is its summary; the latest turns follow as they were.]\n\n" + summary)
}

// compactSystem is the system prompt of a summary request.
const compactSystem = `You summarize a working session between a user and tackle, a coding assistant in a terminal on the user's project, so that tackle can go on with the work from your summary alone, without the messages it replaces. Be factual and specific, and never invent anything.`

// compactInstructions ask for the summary.
const compactInstructions = `Write the summary of the conversation above that tackle needs to go on with the work. If it opens with an earlier summary, fold that in. Use these headings, and leave out a heading with nothing under it:

## Requests
What the user asked for, with their constraints and preferences (quote them where the wording matters).
## Decisions
What was decided, and why.
## Changes
Every file created, edited or deleted, and what changed in it.
## Files
Other files that were read or matter, and what matters in them.
## Commands and results
What was run (builds, tests, other commands) and what it showed, errors included.
## Left to do
What is unfinished, and the next step.

Keep paths, names, numbers and error messages exact. Reply with the summary only.`

// summarize asks the model for the summary of older. Text deltas of the
// reply are not the assistant's answer and are not emitted; retries are.
func (w *Worker) summarize(ctx context.Context, model string, older []chat.Message, focus string, window int64) (string, chat.Usage, error) {
	budget := transcriptDefault
	if window > 0 {
		budget = int(window * bytesPerToken / 2)
	}
	prompt := "<conversation>\n" + transcript(older, budget) + "\n</conversation>\n\n" + compactInstructions
	if focus != "" {
		prompt += "\n\nThe user asks the summary to keep in particular: " + focus
	}
	req := Request{Model: model, Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: compactSystem},
		chat.UserMessage(prompt),
	}}
	reply, err := w.cfg.Client.Stream(ctx, req, func(e Event) {
		if r, ok := e.(ModelRetry); ok {
			w.emit(r)
		}
	})
	switch {
	case err != nil:
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return "", reply.Usage, err
	case reply.FinishReason == "length":
		return "", reply.Usage, errors.New("the summary was cut at the model's output limit")
	case strings.TrimSpace(reply.Message.Content) == "":
		return "", reply.Usage, errors.New("the model wrote an empty summary")
	}
	return strings.TrimSpace(reply.Message.Content), reply.Usage, nil
}

// transcript renders msgs as text for the summary request, each message
// at most itemMax bytes, all of it at most about budget bytes: when it is
// longer, the first message (the task, or an earlier summary) and as
// many of the latest as fit are kept.
func transcript(msgs []chat.Message, budget int) string {
	names := map[string]string{}
	items := make([]string, len(msgs))
	for i, m := range msgs {
		items[i] = renderItem(m, names)
	}
	total := 0
	for _, it := range items {
		total += len(it) + 2
	}
	if total <= budget || len(items) < 3 {
		return strings.Join(items, "\n\n")
	}
	used, from := len(items[0]), len(items)
	for from > 1 && used+len(items[from-1])+2 <= budget {
		from--
		used += len(items[from]) + 2
	}
	gap := fmt.Sprintf("[… %d messages left out …]", from-1)
	return strings.Join(slices.Concat(items[:1], []string{gap}, items[from:]), "\n\n")
}

// renderItem renders one message of the transcript; names collects the
// tool names of the calls, for the results that follow.
func renderItem(m chat.Message, names map[string]string) string {
	switch m.Role {
	case chat.RoleAssistant:
		var b strings.Builder
		b.WriteString("[assistant]")
		if m.Content != "" {
			b.WriteString("\n" + clip(m.Content, itemMax))
		}
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
			fmt.Fprintf(&b, "\n[calls %s %s]", c.Name, chat.Quote(c.Arguments, itemMax/4))
		}
		return b.String()
	case chat.RoleTool:
		return "[result of " + names[m.ToolCallID] + "]\n" + clip(m.Content, itemMax)
	}
	if k := len(m.Images); k > 0 {
		return fmt.Sprintf("[%s]\n%s\n[%d %s]", m.Role, clip(m.Content, itemMax), k, plural(k, "image", "images"))
	}
	return "[" + string(m.Role) + "]\n" + clip(m.Content, itemMax)
}

// clip keeps the head and the tail of s when it is longer than n bytes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/4, n/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", s[:head], t-head, s[t:])
}
