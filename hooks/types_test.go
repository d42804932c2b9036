package hooks

import (
	"encoding/json"
	"testing"
)

func TestEventJSONRoundTrip(t *testing.T) {
	for ev := OnPromptSubmit; ev <= PreCompact; ev++ {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var got Event
		if err := json.Unmarshal(b, &got); err != nil || got != ev {
			t.Errorf("%s: round trip gave %v, %v", b, got, err)
		}
	}
	var e Event
	if err := json.Unmarshal([]byte(`"on_lunch"`), &e); err == nil {
		t.Error("an unknown event name decoded")
	}
}
