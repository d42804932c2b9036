package tools

import "context"

// Progress is how far a running call has come, as its tool tells (an
// MCP server's notifications/progress).
type Progress struct {
	// Done counts the work done so far; Total is all of it, 0 when the
	// tool does not know.
	Done, Total float64
	// Message says what the tool is doing, "" when it says nothing.
	Message string
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
