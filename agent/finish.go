package agent

import (
	"fmt"
	"strings"
)

// How a reply ended. Servers give finish_reason "stop" or "tool_calls" for
// a whole reply; others mean it is not whole or are not known:
//
//	length, model_length (Mistral)  cut at the output token limit
//	content_filter                  stopped by the server's content filter (Azure)
//	error                           the server failed: an error (see streamerr.go)
//	anything else                   a warning; the reply is used as it is
//
// The tool calls of a reply that is not whole never run: their arguments
// may have been cut, so each gets an error result that says so and the
// model may try again (smaller). A text answer that is not whole is kept
// and shown, with a warning, and the Outcome's Incomplete says why (a
// piped run then exits with its own code).

// incompleteReason says why a reply is not whole, "" when it is; unknown
// reports a finish reason tackle does not know.
func incompleteReason(r Reply) (reason string, unknown bool) {
	switch r.FinishReason {
	case "", "stop", "tool_calls", "function_call":
		return "", false
	case "length", "model_length":
		return fmt.Sprintf("cut at the model's output token limit (finish_reason %q)", r.FinishReason), false
	case "content_filter":
		s := fmt.Sprintf("stopped by the server's content filter (finish_reason %q", r.FinishReason)
		if len(r.Filtered) > 0 {
			s += "; flagged: " + strings.Join(r.Filtered, ", ")
		}
		return s + ")", false
	}
	return "", true
}

// checkFinish reports a reply that is not whole, or whose finish reason
// is unknown, with a warning, and records why the answer is incomplete.
// It returns the reason ("" for a whole reply).
func (w *Worker) checkFinish(r Reply) string {
	reason, unknown := incompleteReason(r)
	if unknown {
		w.emit(Warning{Message: fmt.Sprintf("the model's reply ended with finish_reason %q, which tackle does not know; the reply is used as it is", r.FinishReason)})
	}
	w.run.incomplete = reason
	switch {
	case reason == "":
	case len(r.Message.ToolCalls) > 0:
		w.emit(Warning{Message: fmt.Sprintf("the model's reply was %s while it wrote %d tool call(s); they were not run and the model was told", reason, len(r.Message.ToolCalls))})
	default:
		w.emit(Warning{Message: "the answer is incomplete: " + reason})
	}
	return reason
}

// cutCallResult is the result a call of a reply that was not whole gets.
func cutCallResult(reason string) string {
	return fmt.Sprintf("Not run: your reply was %s while you wrote this call, so its arguments may be incomplete. Make the call again; if it was long, split the work into smaller calls.", reason)
}
