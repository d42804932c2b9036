package agent_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// sessionModel is a model in a long session, in process: a read of
// outputSize bytes per request until it has asked turns times, then an
// answer; a summary request (no tools) gets a summary. It counts a
// request's prompt at four bytes a token, as the scripted server does.
type sessionModel struct {
	turns, asked, summaries int
	outputSize              int
}

func (m *sessionModel) Stream(_ context.Context, req agent.Request, _ func(agent.Event)) (agent.Reply, error) {
	n := 0
	for _, msg := range req.Messages {
		n += len(msg.Content) + len(msg.ToolCallID)
		for _, c := range msg.ToolCalls {
			n += len(c.ID) + len(c.Name) + len(c.Arguments)
		}
	}
	u := chat.Usage{PromptTokens: int64(n / 4), CompletionTokens: 10, TotalTokens: int64(n/4) + 10}
	switch {
	case len(req.Tools) == 0:
		m.summaries++
		return agent.Reply{Message: chat.Message{Role: chat.RoleAssistant, Content: "## Requests\nRead the file again and again."}, Usage: u, FinishReason: "stop"}, nil
	case m.asked == m.turns:
		return agent.Reply{Message: chat.Message{Role: chat.RoleAssistant, Content: "Done."}, Usage: u, FinishReason: "stop"}, nil
	}
	m.asked++
	call := chat.ToolCall{ID: fmt.Sprintf("call_%d", m.asked), Name: "read", Arguments: fmt.Sprintf(`{"n":%d}`, m.outputSize)}
	return agent.Reply{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call}}, Usage: u, FinishReason: "tool_calls"}, nil
}

// heapSampler is the read tool, which also takes the heap in use (after
// a collection) every 50 calls.
type heapSampler struct {
	readTool
	calls int
	heap  []uint64 // bytes in use after 50, 100, 150 and 200 turns
}

func (h *heapSampler) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	if h.calls++; h.calls%50 == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.heap = append(h.heap, ms.HeapInuse)
	}
	return h.readTool.Run(ctx, call)
}

// longSession runs a 200-turn session, each turn reading 16 KiB, with a
// context window of window tokens (none when 0), and returns the heap in
// use at every 50 turns and the model.
func longSession(tb testing.TB, window int) ([]uint64, *sessionModel) {
	model := &sessionModel{turns: 200, outputSize: 16 << 10}
	tool := &heapSampler{}
	cfg := agent.Config{Client: model, Model: "m", System: "You are a test.", Tools: tool, MaxRequests: 400}
	if window > 0 {
		cfg.ContextWindow = func(context.Context, string) int { return window }
	}
	w := agent.New(cfg)
	if out, err := w.Run(context.Background(), "read the file 200 times"); err != nil || out.Status != agent.StatusFinished {
		tb.Fatalf("Run = %+v, %v", out, err)
	}
	return tool.heap, model
}

// BenchmarkLongSessionMemory runs a 200-turn session whose every turn
// reads 16 KiB (3.2 MiB in all), with a 16k-token context window (the
// Worker compacts) and with none (it keeps everything), and reports the
// heap in use after 50 and after 200 turns, and the summaries written.
func BenchmarkLongSessionMemory(b *testing.B) {
	for _, bc := range []struct {
		name   string
		window int
	}{{"compaction", 16000}, {"none", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			var heap []uint64
			var model *sessionModel
			for b.Loop() {
				heap, model = longSession(b, bc.window)
			}
			b.ReportMetric(float64(heap[0])/(1<<20), "MiB@50")
			b.ReportMetric(float64(heap[3])/(1<<20), "MiB@200")
			b.ReportMetric(float64(model.summaries), "summaries")
		})
	}
}

// TestLongSessionStaysWithinTheWindow: 200 turns of 16 KiB each in a
// 16k-token window compact again and again and finish, every request
// within the window, and the conversation the Worker holds at the end is
// as small as after the first compactions.
func TestLongSessionStaysWithinTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("200 turns")
	}
	model := &sessionModel{turns: 200, outputSize: 16 << 10}
	var biggest int64
	w := agent.New(agent.Config{
		Client: model, Model: "m", System: "You are a test.", Tools: readTool{}, MaxRequests: 400,
		ContextWindow: func(context.Context, string) int { return 16000 },
		OnEvent: func(e agent.Event) {
			if u, ok := e.(agent.UsageReport); ok {
				biggest = max(biggest, u.Request.PromptTokens)
			}
		},
	})
	if out, err := w.Run(context.Background(), "read the file 200 times"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if model.summaries < 2 || biggest > 16000 {
		t.Errorf("%d summaries, the biggest request %d tokens", model.summaries, biggest)
	}
	size := 0
	for _, m := range w.Messages() {
		size += len(m.Content)
	}
	if size > 16000*4 {
		t.Errorf("the Worker holds %d bytes of conversation after 200 turns", size)
	}
}
