package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// turnScript is n tool-call turns: each a reply with one tool call, then a
// final answer.
func turnScript(n int) llmtest.Script {
	var rs []llmtest.Response
	for i := range n {
		rs = append(rs,
			llmtest.ToolCalls(llmtest.Call(fmt.Sprintf("call_%d", i), "upper", `{"text":"benchmark payload"}`)),
			llmtest.Text("The tool upper-cased the payload; nothing else to do."),
		)
	}
	return llmtest.NewScript(rs...)
}

// BenchmarkToolCallTurn measures one whole tool-call turn through the
// Worker: two streamed requests to the local scripted server (zero model
// latency), a pre_tool_call chain of 10 hooks, the tool, a post_tool_call
// hook and the on_turn_end chain. Compare with BenchmarkServerRoundTrips,
// the same two requests made with a bare HTTP client: the difference is
// the harness's own cost per turn.
func BenchmarkToolCallTurn(b *testing.B) {
	srv := llmtest.NewServer(b, turnScript(b.N))
	client := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "bench"})
	reg := hooks.NewRegistry()
	for i := range 10 {
		reg.PreToolCall(hooktest.PreTool(fmt.Sprintf("pre-%d", i), nil))
	}
	reg.PostToolCall(hooktest.Post("post", nil))
	reg.OnTurnEnd(hooktest.TurnEnd("end", nil))
	tools := newTestTools()
	go func() {
		for range tools.started {
		}
	}()
	var events int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w := agent.New(agent.Config{
			Client: client, Model: "bench", System: "bench", Tools: tools, Hooks: reg,
			OnEvent: func(agent.Event) { events++ },
		})
		out, err := w.Run(context.Background(), "upper-case the payload")
		if err != nil || out.Status != agent.StatusFinished {
			b.Fatalf("Run = %+v, %v", out, err)
		}
	}
	b.StopTimer()
	close(tools.started)
}

// BenchmarkServerRoundTrips is the baseline: the two requests of a turn
// sent with net/http and their SSE streams read to the end, no agent.
func BenchmarkServerRoundTrips(b *testing.B) {
	srv := llmtest.NewServer(b, turnScript(b.N))
	body := []byte(`{"model":"bench","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"system","content":"bench"},{"role":"user","content":"upper-case the payload"}]}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for range 2 {
			resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
	}
}

// longHistory is a conversation of n earlier tool-call turns, each with a
// tool output of size bytes (150 turns of 27 KB: a 4 MB request body).
func longHistory(n, size int) []chat.Message {
	out := strings.Repeat("output line of a long tool result\n", size/34)
	conv := []chat.Message{{Role: chat.RoleSystem, Content: "bench"}}
	for i := range n {
		id := fmt.Sprintf("old_%d", i)
		conv = append(conv,
			chat.UserMessage(fmt.Sprintf("turn %d: run the tool", i)),
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Name: "upper", Arguments: `{"text":"x"}`}}},
			chat.ToolResult{CallID: id, Status: chat.StatusOK, Content: out}.Message(),
			chat.Message{Role: chat.RoleAssistant, Content: "Done with that turn."})
	}
	return conv
}

// BenchmarkLongConversationTurn is BenchmarkToolCallTurn on top of a long
// conversation: what one more turn costs after 10 and after 150 turns of
// 27 KB tool outputs. The server's share (reading and decoding the body)
// grows with the body; BenchmarkLongConversationServer is that share.
func BenchmarkLongConversationTurn(b *testing.B) {
	for _, turns := range []int{10, 150} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			history := longHistory(turns, 27<<10)
			srv := llmtest.NewServer(b, turnScript(b.N))
			client := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "bench"})
			tools := newTestTools()
			go func() {
				for range tools.started {
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				w := agent.New(agent.Config{Client: client, Model: "bench", Tools: tools, Hooks: hooks.NewRegistry(), History: history})
				out, err := w.Run(context.Background(), "upper-case the payload")
				if err != nil || out.Status != agent.StatusFinished {
					b.Fatalf("Run = %+v, %v", out, err)
				}
			}
			b.StopTimer()
			close(tools.started)
		})
	}
}

// BenchmarkStreamDeltas streams one reply of 2,000 four-byte text deltas
// through the client: the per-chunk cost of decoding, assembling and
// emitting (with the scripted server's own share, the same in every run).
// Issue 12 bounds what keeping providers' unknown fields may add to it.
func BenchmarkStreamDeltas(b *testing.B) {
	reply := llmtest.Text(strings.Repeat("abcd", 2000))
	reply.ChunkSize = 4
	srv := llmtest.NewServer(b, llmtest.NewScript(llmtest.Repeat(reply)))
	client := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "bench"})
	req := agent.Request{Model: "bench", Messages: []chat.Message{chat.UserMessage("go")}}
	b.ReportAllocs()
	for b.Loop() {
		deltas := 0
		r, err := client.Stream(context.Background(), req, func(e agent.Event) {
			if _, ok := e.(agent.TextDelta); ok {
				deltas++
			}
		})
		if err != nil || deltas != 2000 || len(r.Message.Content) != 8000 {
			b.Fatalf("%d deltas, %d bytes, %v", deltas, len(r.Message.Content), err)
		}
	}
}
