package app

// Exit codes. run ends with an error (nil when all went well) and
// exitCodeOf alone turns it into the exit code, from its type: no other
// code picks one. exitCodes documents the codes; --help is built from it
// and a test holds README.md's table to it.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tackle-dev/tackle/agent"
)

// The exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitDenied      = 3
	ExitHookAbort   = 4
	ExitCapped      = 5
	ExitIncomplete  = 6
	ExitInterrupted = 130
)

// exitCodes documents each exit code: help is its phrase in --help,
// meaning its row in README.md's table.
var exitCodes = []struct {
	code          int
	help, meaning string
}{
	{ExitOK, "finished", "the run finished"},
	{ExitError, "error (also when a failing pre_tool_call hook skipped a call)",
		"error (model endpoint, stream cut or stalled, reading stdin, a `pre_tool_call` hook that failed)"},
	{ExitUsage, "usage error",
		"usage error: bad flags, no prompt, an invalid config file or setting, a command hook or hook server whose program is missing"},
	{ExitDenied, "approval denied or paused", "a tool call needed approval and was denied, or a hook paused the run (with `--on-pause save`: the run was saved, to be answered with `--resume ID --approve`/`--deny`)"},
	{ExitHookAbort, "aborted by a hook", "a hook aborted or cancelled the run"},
	{ExitCapped, "capped (retry budget or request limit)", "capped: the turn-end retry budget or the per-run request limit ran out"},
	{ExitIncomplete, "answer incomplete (output limit, content filter)",
		"the answer is incomplete: cut at the model's output token limit (`finish_reason` `length`) or stopped by the server's content filter (`content_filter`); what came was printed"},
	{ExitInterrupted, "interrupted", "interrupted (Ctrl-C / SIGINT, SIGTERM, SIGHUP when the terminal closes, SIGQUIT); on_abort hooks ran"},
}

// exitCodesHelp is the paragraph of --help on exit codes.
func exitCodesHelp() string {
	codes := make([]string, len(exitCodes))
	for i, c := range exitCodes {
		codes[i] = fmt.Sprintf("%d %s", c.code, c.help)
	}
	return "Exit codes: " + strings.Join(codes, ", ") + "."
}

// exitCodeOf maps the error tackle ends with to its exit code. An error of
// none of the kinds below is ExitError: the model endpoint, a cut stream,
// a tool harness failure, a pre_tool_call hook that failed, reading stdin.
func exitCodeOf(err error) int {
	var (
		interrupted interruptedError
		usage       usageError
		hook        *agent.HookError
		capped      cappedError
		denied      deniedError
		incomplete  incompleteError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &interrupted): // first: it wraps how the run ended
		return ExitInterrupted
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &hook):
		return ExitHookAbort
	case errors.As(err, &capped):
		return ExitCapped
	case errors.As(err, &denied):
		return ExitDenied
	case errors.As(err, &incomplete):
		return ExitIncomplete
	}
	return ExitError
}

// usageError is an error in how tackle was called: a bad flag, setting or
// config file, a command hook whose program is missing, no prompt.
type usageError struct{ err error }

// usagef returns a usageError with the message format makes of a.
func usagef(format string, a ...any) error {
	return usageError{fmt.Errorf(format, a...)}
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// deniedError ends a run in which a tool call that needed approval was
// denied, or which paused where nobody could answer. err adds what else
// went wrong; when it is nil the message is empty: the denials were
// reported as they happened.
type deniedError struct{ err error }

func (e deniedError) Error() string { return message(e.err) }
func (e deniedError) Unwrap() error { return e.err }

// cappedError ends a run that used up a budget (retry rounds, requests).
type cappedError struct{ reason string }

func (e cappedError) Error() string { return "run capped: " + e.reason }

// incompleteError ends a run whose answer is not whole: reason says why
// (agent.Outcome.Incomplete).
type incompleteError struct{ reason string }

func (e incompleteError) Error() string { return "the answer is incomplete: " + e.reason }

// interruptedError ends a run the user interrupted (SIGINT, SIGTERM). err
// is how the run ended, if it says more; nil gives an empty message.
type interruptedError struct{ err error }

func (e interruptedError) Error() string { return message(e.err) }
func (e interruptedError) Unwrap() error { return e.err }

// message is err's message, "" for nil.
func message(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// report prints err's message, one "tackle: " line per line of it;
// nothing when there is none.
func report(w io.Writer, err error) {
	if err == nil {
		return
	}
	for line := range strings.Lines(err.Error()) {
		fmt.Fprintf(w, "tackle: %s\n", strings.TrimSuffix(line, "\n"))
	}
}
