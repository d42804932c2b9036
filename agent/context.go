package agent

import (
	"context"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// bytesPerToken is the estimate of a token's size where the server has
// not counted: about four bytes of English or code.
const bytesPerToken = 4

// windowTimeout bounds the lookup of a model's context window.
const windowTimeout = 10 * time.Second

// meter measures the conversation in tokens: the server's count of the
// last request and its reply, plus an estimate (bytesPerToken) of what
// was added to the conversation since, or taken out by a compaction.
// Before the server has counted anything, all of it is estimated.
type meter struct {
	tokens int64 // prompt and completion tokens of the last request; 0 before
	bytes  int64 // the conversation's size (size) when the server counted
}

// estimate is the size in tokens of a request that sends conv; fixed is
// what every request sends besides (the tool definitions), in bytes.
func (m meter) estimate(conv []chat.Message, fixed int64) int64 {
	b := size(conv)
	if m.tokens == 0 {
		return (b + fixed + bytesPerToken - 1) / bytesPerToken
	}
	return max(m.tokens+(b-m.bytes)/bytesPerToken, 1)
}

// size is what conv weighs in bytes for the estimate: the text of its
// messages and calls, a fixed weight for each image (imageBytes), and a
// little for each message's framing.
func size(conv []chat.Message) int64 {
	const framing = 8
	var n int64
	for _, m := range conv {
		n += int64(len(m.Content)+len(m.ToolCallID)+len(m.Images)*imageBytes) + framing
		for _, c := range m.ToolCalls {
			n += int64(len(c.ID)+len(c.Name)+len(c.Arguments)) + framing
		}
	}
	return n
}

// specsSize is what the tool definitions weigh in every request.
func specsSize(specs []chat.ToolSpec) int64 {
	var n int64
	for _, s := range specs {
		n += int64(len(s.Name) + len(s.Description) + len(s.Parameters))
	}
	return n
}

// counted records the server's count u of a request and its reply,
// after which the conversation weighs bytes (size); a server that counts
// nothing leaves the estimate to the bytes. It returns the conversation's
// size in tokens.
func (w *Worker) counted(u chat.Usage, bytes int64) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if u.PromptTokens <= 0 {
		w.meter = meter{}
		return (bytes + w.fixed) / bytesPerToken
	}
	w.meter = meter{tokens: u.PromptTokens + u.CompletionTokens, bytes: bytes}
	return w.meter.tokens
}

// contextSize is the estimated size of the next request.
func (w *Worker) contextSize() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.meter.estimate(w.conv, w.fixed)
}

// knownWindow is the context window of model if it was looked up, else 0.
func (w *Worker) knownWindow(model string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.windows[model]
}

// window returns the context window of model, asking Config.ContextWindow
// the first time (bounded by windowTimeout); 0 when it is not known. An
// answer cut short by ctx is not kept.
func (w *Worker) window(ctx context.Context, model string) int64 {
	w.mu.Lock()
	n, ok := w.windows[model]
	w.mu.Unlock()
	if ok || w.cfg.ContextWindow == nil {
		return n
	}
	lctx, cancel := context.WithTimeout(ctx, windowTimeout)
	n = int64(max(w.cfg.ContextWindow(lctx, model), 0))
	cancel()
	if ctx.Err() != nil {
		return n
	}
	w.mu.Lock()
	w.windows[model] = n
	w.mu.Unlock()
	return n
}
