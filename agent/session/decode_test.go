package session

import (
	"encoding/json"
	"reflect"
	"testing"

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
