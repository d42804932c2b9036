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

// windowLookup is a look-up of a model's context window in progress:
// done is closed once n is its answer.
type windowLookup struct {
	done chan struct{}
	n    int64
}

// knownWindow is the context window of model if it was looked up, else 0.
func (w *Worker) knownWindow(model string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.windows[model]
}

// window returns the context window of model, asking Config.ContextWindow
// the first time (bounded by windowTimeout), or waiting for the look-up
// that is asking; 0 when it is not known. An answer cut short by ctx, or
// by the ctx of the run that started the look-up, is not kept.
func (w *Worker) window(ctx context.Context, model string) int64 {
	l, n := w.lookUpWindow(ctx, model)
	if l == nil {
		return n
	}
	select {
	case <-l.done:
		return l.n
	case <-ctx.Done():
		return 0
	}
}

// lookUpWindow starts the look-up of model's context window beside what
// the run does, unless its answer is kept (then it returns nil and the
// answer) or a look-up is under way (then it returns that one). The
// look-up ends with the run at the latest (awaitWindows).
func (w *Worker) lookUpWindow(ctx context.Context, model string) (*windowLookup, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n, ok := w.windows[model]; ok || w.cfg.ContextWindow == nil {
		return nil, n
	}
	if l, ok := w.lookups[model]; ok {
		return l, 0
	}
	l := &windowLookup{done: make(chan struct{})}
	w.lookups[model] = l
	go func() {
		lctx, cancel := context.WithTimeout(ctx, windowTimeout)
		l.n = int64(max(w.cfg.ContextWindow(lctx, model), 0))
		cancel()
		w.mu.Lock()
		delete(w.lookups, model)
		if ctx.Err() == nil {
			w.windows[model] = l.n
		}
		w.mu.Unlock()
		close(l.done)
	}()
	return l, 0
}

// awaitWindows waits for the look-ups under way: a run does not end
// before the look-ups it started.
func (w *Worker) awaitWindows() {
	w.mu.Lock()
	var pending []*windowLookup
	for _, l := range w.lookups {
		pending = append(pending, l)
	}
	w.mu.Unlock()
	for _, l := range pending {
		<-l.done
	}
}

// compactable reports whether a compaction could change the conversation
// now: it holds turns before the latest KeepTurns, whose tool outputs can
// be pruned or which can be summarized. Until it does, a request need not
// wait for the model's context window.
func (w *Worker) compactable() bool {
	w.mu.Lock()
	conv := w.conv
	w.mu.Unlock()
	head := leadingSystem(conv)
	return w.cut(conv, head) > head
}
