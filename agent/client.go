package agent

import (
	"context"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Client streams one model reply. Implementations emit TextDelta events as
// text arrives and ModelRetry events before each retry, and return the
// complete assistant message only when the stream ended cleanly: a stream
// cut mid-reply is an error and no partial message or tool call escapes.
type Client interface {
	Stream(ctx context.Context, req Request, emit func(Event)) (Reply, error)
}

// Request is one model request.
type Request struct {
	Model    string
	Messages []chat.Message
	Tools    []chat.ToolSpec
	// ReasoningEffort is sent as reasoning_effort when set (one of
	// ReasoningEfforts).
	ReasoningEffort string
}

// ReasoningEfforts are the values of reasoning_effort servers accept.
var ReasoningEfforts = []string{"minimal", "low", "medium", "high"}

// Reply is one complete model reply.
type Reply struct {
	Message      chat.Message
	Usage        chat.Usage
	FinishReason string
	// Filtered names the categories a content filter flagged (Azure's
	// content_filter_results), sorted.
	Filtered []string
}
