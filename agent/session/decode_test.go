package session

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeRecord: a line decodes with decodeRecord (segmentio's
// decoder) exactly as with encoding/json — the same record, or an error
// from both — from records of every kind as the Writer writes them to
// whatever a damaged or edited file may hold.
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
