package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools/chat"
)

// benchRecords returns n records shaped like a coding session: prompts,
// assistant replies with tool calls, and tool results of a few KB.
func benchRecords(n int) []Record {
	result := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) {}\n", 40) // ~2.2 KB
	out := make([]Record, n)
	for i := range out {
		switch i % 4 {
		case 0:
			out[i] = Record{Kind: KindMessage, Prompt: true, Message: &chat.Message{Role: chat.RoleUser, Content: "make the handler return 404 for unknown paths"}}
		case 1:
			out[i] = Record{Kind: KindMessage, Message: &chat.Message{Role: chat.RoleAssistant, Content: "Reading the handler.",
				ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path": "server/handler.go"}`}}}}
		case 2:
			out[i] = Record{Kind: KindMessage, Message: &chat.Message{Role: chat.RoleTool, ToolCallID: "call_1", Content: result}}
		default:
			out[i] = Record{Kind: KindUsage, Usage: &chat.Usage{PromptTokens: 12000, CompletionTokens: 300, TotalTokens: 12300}}
		}
	}
	return out
}

// BenchmarkAppend is the cost of one record (a mix of prompts, replies,
// 2 KB tool results and usage), written with one write(2), no fsync.
func BenchmarkAppend(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), "sessions"))
	w, err := s.Create(Header{Workspace: "/src/proj", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	recs := benchRecords(64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := w.Append(recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad10000 loads a session of 10,000 records (~6 MB).
func BenchmarkLoad10000(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), "sessions"))
	w, err := s.Create(Header{Workspace: "/src/proj", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range benchRecords(10000) {
		if err := w.Append(r); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l, err := Load(w.Path())
		if err != nil || len(l.Records) != 10000 {
			b.Fatalf("%d records, %v", len(l.Records), err)
		}
	}
}

// BenchmarkRecordTurn is what recording costs one turn with a tool call:
// the prompt, the reply with its call, three hook decisions, a 2 KB
// result redacted with tackle's redactor, the answer, usage, the outcome
// and the fsync at the end of the turn.
func BenchmarkRecordTurn(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), "sessions"))
	r, err := redact.New([]string{"sk-bench-secret-value"}, redact.Settings{})
	if err != nil {
		b.Fatal(err)
	}
	rec := s.Recorder(Header{Workspace: "/src/proj", Model: "m"}, func(err error) { b.Fatal(err) })
	rec.SetRedact(r.Redact)
	defer rec.Close()
	recs := benchRecords(4)
	call := recs[1].Message.ToolCalls[0]
	decision := agent.HookDecision{Decision: hooks.Decision{Event: hooks.PreToolCall, Hook: "approval", Result: "continue", CallID: "call_1"}}
	usage := agent.UsageReport{Request: *recs[3].Usage}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rec.Message(agent.AddedMessage{Message: *recs[0].Message, Prompt: true})
		rec.Event(usage)
		rec.Message(agent.AddedMessage{Message: *recs[1].Message})
		rec.Event(decision)
		rec.Event(decision)
		rec.Event(agent.HookDecision{Decision: hooks.Decision{Event: hooks.PostToolCall, Hook: "redact-secrets", Result: "continue", CallID: call.ID}})
		rec.Message(agent.AddedMessage{Message: *recs[2].Message, Status: chat.StatusOK})
		rec.Event(usage)
		rec.Message(agent.AddedMessage{Message: chat.Message{Role: chat.RoleAssistant, Content: "The handler now returns 404 for unknown paths."}})
		rec.Event(agent.TurnFinished{Outcome: agent.Outcome{Status: agent.StatusFinished}})
	}
}
