// Package headless runs the Worker without a UI: it decides pauses from
// flags (never hanging, never silently approving) and prints the event
// stream as text, one JSON object, or JSON lines.
package headless

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Format is an output format of non-interactive runs.
type Format string

// The output formats.
const (
	Text       Format = "text"        // answer on stdout as it streams; progress on stderr
	JSON       Format = "json"        // one object on stdout at the end
	StreamJSON Format = "stream-json" // one JSON object per event, one per line
)

// Runner is the part of the Worker a headless run drives.
type Runner interface {
	Run(ctx context.Context, input string, images ...chat.Image) (agent.Outcome, error)
	Resume(ctx context.Context, decisions []agent.Decision) (agent.Outcome, error)
}

// Who decided a pending call, as Decision.By reports it.
const (
	ByYes            = "--yes"           // approved because --yes was given
	ByNonInteractive = "non-interactive" // denied because nobody can approve
)

// Answers say how Drive answers the calls that ask for approval.
type Answers struct {
	// Yes approves them (--yes), except those HeldBack holds back.
	Yes bool
	// HeldBack, if not nil, returns why --yes must not approve a call (it
	// writes a protected path: approval.Policy.HeldBack), or "" when it
	// may.
	HeldBack func(chat.ToolCall) string
	// Summarize words a call on stderr as its tool does; nil shows its
	// arguments as sent.
	Summarize Summarizer
	// Save ends the run as paused, with nothing decided, when a pause has
	// a call Yes cannot approve (--on-pause save): the caller saves the
	// session, and a person answers later (Continue). A pause at turn end
	// is saved too.
	Save bool
}

// Result is how a headless run ended.
type Result struct {
	Outcome agent.Outcome
	// Denied counts calls denied because nobody could approve them.
	Denied int
	// Err is the error that ended the run, if any.
	Err error
	// Saved: the run ended paused, its pending calls unanswered, to be
	// resumed later (Answers.Save). Session is the id of the session it
	// was saved in, set by the caller.
	Saved   bool
	Session string
}

// Drive runs prompt, with the images attached to it (--image), to
// completion. Each pause is decided at once: with
// a.Yes every pending call a.HeldBack does not hold back is approved, and a
// line on stderr names the call and why it asked; otherwise it is denied
// with a reason the model sees, and a note on stderr says how to allow it
// — or, with a.Save, the run ends paused with nothing decided. Either way
// a decision names who made it (ByYes, ByNonInteractive) for the event
// stream. A pause from an on_turn_end hook cannot be answered without a
// user and ends the run.
//
// A Runner that can answer pauses itself (the Worker: AnswerPausesWith)
// is given these answers, so that a pause decided at once never shows
// as a pause (no paused event, no paused record a killed run could be
// continued from as if it waited).
func Drive(ctx context.Context, r Runner, prompt string, images []chat.Image, a Answers, stderr io.Writer) Result {
	var res Result
	atOnce(r, a, &res, stderr)
	out, err := r.Run(ctx, prompt, images...)
	return drive(ctx, r, out, err, a, &res, stderr)
}

// Continue answers a paused run with decisions (a person's answers, given
// to a later process) and goes on like Drive.
func Continue(ctx context.Context, r Runner, decisions []agent.Decision, a Answers, stderr io.Writer) Result {
	var res Result
	atOnce(r, a, &res, stderr)
	out, err := r.Resume(ctx, decisions)
	return drive(ctx, r, out, err, a, &res, stderr)
}

// pauseAnswerer is a Runner that takes answers before it pauses.
type pauseAnswerer interface {
	AnswerPausesWith(func([]agent.PendingCall) ([]agent.Decision, bool))
}

// childAnswerer is a Runner whose subagents ask it about their calls.
type childAnswerer interface {
	AskChildrenWith(agent.ChildAsker)
}

// atOnce gives r, when it can take them, the answers Drive would give
// its pauses, counting denials in res. Its subagents' calls are answered
// the same way, at once — a subagent cannot wait for a later process, so
// with Save its calls that --yes does not approve are denied.
func atOnce(r Runner, a Answers, res *Result, stderr io.Writer) {
	if ca, ok := r.(childAnswerer); ok {
		var mu sync.Mutex // subagents run in parallel
		ca.AskChildrenWith(func(_ context.Context, _ hooks.Agent, pending []agent.PendingCall) ([]agent.Decision, error) {
			mu.Lock()
			defer mu.Unlock()
			return a.decideAll(pending, res, stderr), nil
		})
	}
	pa, ok := r.(pauseAnswerer)
	if !ok {
		return
	}
	pa.AnswerPausesWith(func(pending []agent.PendingCall) ([]agent.Decision, bool) {
		if a.Save && !a.approvesAll(pending) {
			return nil, false // a person answers later
		}
		return a.decideAll(pending, res, stderr), true
	})
}

// decideAll decides every call of pending, counting denials in res.
func (a Answers) decideAll(pending []agent.PendingCall, res *Result, stderr io.Writer) []agent.Decision {
	decisions := make([]agent.Decision, len(pending))
	for i, p := range pending {
		var denied bool
		decisions[i], denied = a.decide(p, stderr)
		if denied {
			res.Denied++
		}
	}
	return decisions
}

// drive decides the pauses of a run that returned out and err, until it
// ends.
func drive(ctx context.Context, r Runner, out agent.Outcome, err error, a Answers, res *Result, stderr io.Writer) Result {
	for err == nil && out.Status == agent.StatusPaused && len(out.Pending) > 0 {
		if a.Save && !a.approvesAll(out.Pending) {
			break
		}
		out, err = r.Resume(ctx, a.decideAll(out.Pending, res, stderr))
	}
	res.Outcome, res.Err = out, err
	res.Saved = a.Save && err == nil && out.Status == agent.StatusPaused
	return *res
}

// approvesAll reports whether --yes answers every call of pending.
func (a Answers) approvesAll(pending []agent.PendingCall) bool {
	if !a.Yes {
		return false
	}
	for _, p := range pending {
		if a.heldBack(p.Call) != "" {
			return false
		}
	}
	return true
}

// heldBack says why --yes must not approve call, or "".
func (a Answers) heldBack(call chat.ToolCall) string {
	if a.HeldBack == nil {
		return ""
	}
	return a.HeldBack(call)
}

// decide answers one pending call as a piped run does, and says so on
// stderr; denied reports a denial.
func (a Answers) decide(p agent.PendingCall, stderr io.Writer) (d agent.Decision, denied bool) {
	var why string
	if a.Yes {
		why = a.heldBack(p.Call)
	}
	if a.Yes && why == "" {
		fmt.Fprintf(stderr, "tackle: approved by --yes: %s%s\n", summary(p.Call, a.Summarize), paren(pauseNote(p)))
		return agent.Decision{CallID: p.Call.ID, Verdict: agent.Approve, By: ByYes}, false
	}
	if why != "" {
		// --yes answers the questions of a run nobody watches; a
		// protected path asks because a change there can run code
		// later, so it takes a rule naming the path.
		fmt.Fprintf(stderr, "tackle: denied %s\n        (%s; --yes does not approve it: allow exactly this path, or pass --dangerously-skip-protection)\n",
			summary(p.Call, a.Summarize), why)
		return agent.Decision{
			CallID:  p.Call.ID,
			Verdict: agent.Deny,
			By:      ByYes,
			Reason: "tackle is running non-interactively and --yes does not approve writes to protected paths: " + why +
				". Do not retry it or try another way to write there; finish without it or tell the user what you needed to change.",
		}, true
	}
	fmt.Fprintf(stderr, "tackle: denied %s\n        (it needs approval and this run is non-interactive; pass --yes to approve such calls, or --on-pause save to answer later)\n",
		summary(p.Call, a.Summarize))
	return agent.Decision{
		CallID:  p.Call.ID,
		Verdict: agent.Deny,
		By:      ByNonInteractive,
		Reason: "tackle is running non-interactively and nobody can approve this call (" + p.Reason +
			"). Do not retry it; finish without it or tell the user what you needed to run.",
	}, true
}

// pauseNote says which hook asked about a call and why.
func pauseNote(p agent.PendingCall) string {
	switch {
	case p.Hook == "":
		return p.Reason
	case p.Reason == "":
		return "asked by hook " + p.Hook
	}
	return "asked by hook " + p.Hook + ": " + p.Reason
}
