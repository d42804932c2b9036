package tools

import "context"

// Progress is how far a running call has come, as its tool tells (an
// MCP server's notifications/progress, the output of a bash command so
// far). Each report of a call says all there is to say at that moment:
// it replaces the one before.
type Progress struct {
	// Done counts the work done so far; Total is all of it, 0 when the
	// tool does not know.
	Done, Total float64
	// Message says what the tool is doing, "" when it says nothing.
	Message string
	// Output is the end of what the call has printed so far (bash: the
	// whole lines of the last 16 KiB of its output, and the finished
	// words of the line being written), made safe exactly as its result
	// will be: the environment's secrets scrubbed, terminal escapes
	// removed, control characters shown as symbols. It is not redacted
	// yet (the redaction hook's patterns): the caller does that before
	// anyone sees it. "" when the tool shows none.
	Output string
}

type progressKey struct{}

// WithProgress returns ctx carrying report, which the tool running a
// call under it calls with its progress. report must return quickly and
// may be called on any goroutine.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressReporter returns the function ctx carries to report a call's
// progress with (WithProgress), and whether there is one: a tool asks
// for progress (an MCP call sends a progress token) only when someone
// listens.
func ProgressReporter(ctx context.Context) (func(Progress), bool) {
	f, ok := ctx.Value(progressKey{}).(func(Progress))
	return f, ok && f != nil
}
