package session

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// FuzzDecodeRecord: a line decodes with decodeRecord exactly as with
// encoding/json — the same record, or an error from both — from records
// of every kind as the Writer writes them to whatever a damaged or edited
// file may hold. (segmentio's decoder, tried for its speed, failed it:
// it reads "00>00" in a time as "00:00".)
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range every() {
		b, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"type":"message","message":{"role":"user","content":"a\ud800\u00e9\\"}}`,
		`{"Type":"usage","USAGE":{"prompt_tokens":1.5}}`,
		`{"type":"message","message":{"role":"user","content":"x"},"message":null}`,
		`{"type":"message","time":"2026-11-22T22:30:00+01:00"} trailing`,
		`{"type":"decision","decision":{"duration":"1s"}}`,
		`{"type":"message","message":{"content":"\xff\xfe","tool_calls":[{"id":1}]}}`,
		`{"type":"paused","paused":{"calls":[{"state":"pending","call":{"id":"c"}}]}}`,
		`[1,2]`, `null`, `{"type":`, ``,
		// Message records as the Writer writes them, and near misses.
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"tool","content":"a\nb\t\"c\" \\ \/ \u00e9\u2028 é \b\f\r","tool_call_id":"c1"},"status":"ok"}` + "\n",
		`{"type":"message","time":"2026-11-22T22:30:00.123+01:00","message":{"role":"assistant","content":"x","tool_calls":[{"id":"c1","name":"bash","arguments":"{\"a\":1}"},{"id":"c2","name":"n","arguments":""}],"reasoning":"r"},"prompt":true}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"assistant","tool_calls":[]}}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"user","content":"\ud83d\ude00 \ud800"}}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"user","content":"\u00"}}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"user","role":"tool"}}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"assistant","extra":{"k":1}}}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":{"role":"user"}} `,
		`{"type":"message","time":"2026\u002d11-22T22:30:00Z","message":{"role":"user"}}`,
		`{"type":"message","time":"2026-11-22T22:30:00Z","message":null}`,
		`{"time":"0000-01-01T00>00:00Z"}`,
		`{"type":"message","time":"0000-01-01T00>00:00Z","message":{"role":"user"}}`,
		// Decision and usage records as the Writer writes them, and near misses.
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"approval","result":"skip","reason":"denied: \"rm\"","duration_ns":1500,"call_id":"c1","error":"boom","protect":true}}` + "\n",
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"on_turn_end","hook":"gofmt","result":"continue","duration_ns":0}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"no_such","hook":"h","result":"r","duration_ns":1}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"h","result":"r","duration_ns":-9223372036854775808}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"h","result":"r","duration_ns":9223372036854775808}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"h","result":"r","duration_ns":01}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"h","result":"r","duration_ns":1.0}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"h","result":"r","duration_ns":1e3}}`,
		`{"type":"decision","time":"2026-11-22T22:30:00Z","decision":{"event":"pre_tool_call","hook":"h","result":"r","duration_ns":-0,"protect":false}}`,
		`{"type":"usage","time":"2026-11-22T22:30:00Z","usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"reasoning_tokens":7},"context_tokens":130,"context_window":128000}` + "\n",
		`{"type":"usage","time":"2026-11-22T22:30:00Z","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		`{"type":"usage","time":"2026-11-22T22:30:00Z","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"context_window":5}`,
		`{"type":"usage","time":"2026-11-22T22:30:00Z","usage":{"prompt_tokens":-1,"completion_tokens":2,"total_tokens":-}}`,
		`{"type":"usage","time":"2026-11-22T22:30:00Z","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"context_tokens":1,"context_tokens":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var want, got Record
		werr := json.Unmarshal(line, &want)
		gerr := decodeRecord(line, &got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: encoding/json says %v, decodeRecord %v", line, werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	})
}

// TestMessageLinesAreDecodedDirectly: the message records the Writer
// writes — every role, calls, a result's status, a prompt, escapes and
// other scripts — are decoded by decodeMessageLine, not left to the
// general decoder, and to the records written.
func TestMessageLinesAreDecodedDirectly(t *testing.T) {
	recs := benchRecords(8)
	for _, r := range every() {
		if r.Kind == KindMessage {
			recs = append(recs, r)
		}
	}
	recs = append(recs, Record{Kind: KindMessage, Time: t0, Status: chat.StatusError,
		Message: &chat.Message{Role: chat.RoleTool, ToolCallID: "c9", Content: "tab\there \"quoted\" <html> & \\ é 世 \u2028 \x01 😀\n"}},
		Record{Kind: KindMessage, Time: t0, Message: &chat.Message{Role: chat.RoleAssistant, Reasoning: "why",
			ToolCalls: []chat.ToolCall{{ID: "a", Name: "b", Arguments: `{"x": "<y>"}`}, {ID: "c", Name: "d"}}}})
	n := 0
	for i, r := range recs {
		if r.Kind != KindMessage {
			continue
		}
		n++
		line, err := marshalLine(r)
		if err != nil {
			t.Fatal(err)
		}
		var got Record
		if !decodeMessageLine(line, &got) {
			t.Errorf("record %d not decoded directly: %s", i, line)
			continue
		}
		if want := r; !got.Time.Equal(want.Time) || !reflect.DeepEqual(got.Message, want.Message) || got.Prompt != want.Prompt || got.Status != want.Status {
			t.Errorf("record %d:\n got %+v %+v\nwant %+v %+v", i, got, got.Message, want, want.Message)
		}
	}
	if n < 10 {
		t.Fatalf("only %d message records tried", n)
	}
}

// TestDecisionAndUsageLinesAreDecodedDirectly: the hook decision and
// usage records the Writer writes, with every member set and with none of
// the optional ones, are decoded directly, to the records written.
func TestDecisionAndUsageLinesAreDecodedDirectly(t *testing.T) {
	recs := []Record{
		{Kind: KindDecision, Time: t0, Decision: &hooks.Decision{Event: hooks.PreToolCall, Hook: "approval", Result: "skip",
			Reason: "denied: \"rm -rf\" <x> é", Duration: 1500, CallID: "c1", Error: "boom\n", Protect: true}},
		{Kind: KindDecision, Time: t0, Decision: &hooks.Decision{Event: hooks.OnTurnEnd, Hook: "gofmt", Result: "continue"}},
		{Kind: KindDecision, Time: t0, Decision: &hooks.Decision{Event: hooks.PreCompact, Hook: "h", Result: "r", Duration: -5}},
		{Kind: KindUsage, Time: t0, Usage: &chat.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, ReasoningTokens: 7}, Context: 130, Window: 128000},
		{Kind: KindUsage, Time: t0, Usage: &chat.Usage{PromptTokens: 1 << 62, CompletionTokens: 0, TotalTokens: 1 << 62}},
		{Kind: KindUsage, Time: t0, Usage: &chat.Usage{}, Window: 8192},
	}
	for _, r := range every() {
		if r.Kind == KindDecision || r.Kind == KindUsage {
			recs = append(recs, r)
		}
	}
	for i, r := range recs {
		line, err := marshalLine(r)
		if err != nil {
			t.Fatal(err)
		}
		var got Record
		if !decodeDecisionLine(line, &got) && !decodeUsageLine(line, &got) {
			t.Errorf("record %d not decoded directly: %s", i, line)
			continue
		}
		var want Record
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
}
