package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks/wire"
	"github.com/tackle-dev/tackle/tools/chat"
)

// conversation writes a session of two tool rounds and a final answer and
// returns its path, with the line of each message record by content.
func conversation(t *testing.T) (path string) {
	t.Helper()
	_, w := newSession(t)
	for _, m := range []chat.Message{
		{Role: chat.RoleSystem, Content: "sys"},
		{Role: chat.RoleUser, Content: "fix it"},
		{Role: chat.RoleAssistant, Content: "reading", ToolCalls: []chat.ToolCall{{ID: "r1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "r2", Name: "read_file", Arguments: `{"path":"b"}`}}},
		{Role: chat.RoleTool, ToolCallID: "r1", Content: "content of a"},
		{Role: chat.RoleTool, ToolCallID: "r2", Content: "content of b"},
		{Role: chat.RoleAssistant, Content: "editing", ToolCalls: []chat.ToolCall{{ID: "e1", Name: "edit_file", Arguments: `{}`}}},
		{Role: chat.RoleTool, ToolCallID: "e1", Content: "edited"},
		{Role: chat.RoleAssistant, Content: "Done."},
	} {
		if err := w.Append(Record{Kind: KindMessage, Message: &m}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return w.Path()
}

// corrupt replaces the line of the file holding marker with garbage.
func corrupt(t *testing.T, path, marker string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	hit := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(marker)) {
			lines[i] = []byte("{\"type\":\"message\",\"message\":{\"role\":\"to\x00\n")
			hit++
		}
	}
	if hit != 1 {
		t.Fatalf("%d lines hold %q", hit, marker)
	}
	os.WriteFile(path, bytes.Join(lines, nil), 0o600)
}

// serverTakes checks msgs as a strict Chat Completions server would.
func serverTakes(t *testing.T, msgs []chat.Message) {
	t.Helper()
	raw, _ := json.Marshal(wire.NewMessages(msgs))
	if _, err := wire.Conversation(raw); err != nil {
		t.Errorf("the loaded conversation would be refused: %v", err)
	}
}

// One corrupt line in the middle of a session left a call unanswered (a
// lost result) or a result answering nothing (a lost assistant message),
// and -c then sent a conversation strict servers refuse. Both are
// repaired on load, and the warnings say what was repaired.
func TestLoadRepairsTheConversation(t *testing.T) {
	for _, c := range []struct {
		lost string
		want []string // in the warnings
	}{
		{"content of b", []string{`call "r2" (read_file) had lost its result`}},
		{`"content":"editing"`, []string{`dropped a result for call "e1": no call before it asks for it`}},
	} {
		t.Run(c.lost, func(t *testing.T) {
			path := conversation(t)
			corrupt(t, path, c.lost)
			l, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			msgs := l.Messages()
			serverTakes(t, msgs)
			w := strings.Join(l.Warnings, "\n")
			for _, want := range append(c.want, "not a session record; skipped", "repaired the conversation") {
				if !strings.Contains(w, want) {
					t.Errorf("warnings lack %q:\n%s", want, w)
				}
			}
			if last := msgs[len(msgs)-1]; last.Content != "Done." {
				t.Errorf("the conversation ends with %+v", last)
			}
		})
	}
}

// Repair leaves the calls of the last assistant message open (a paused
// run is resumed on them) and drops a second result for one call.
func TestRepairKeepsTheLastCallsOpen(t *testing.T) {
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "go"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "a", Name: "bash"}}},
		{Role: chat.RoleTool, ToolCallID: "a", Content: "1"},
		{Role: chat.RoleTool, ToolCallID: "a", Content: "again"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "b", Name: "bash"}, {ID: "c", Name: "bash"}}},
		{Role: chat.RoleTool, ToolCallID: "b", Content: "2"},
	}
	got, notes := Repair(msgs)
	if len(got) != 5 || got[4].ToolCallID != "b" || len(notes) != 1 || !strings.Contains(notes[0], `call "a": its call was answered already`) {
		t.Errorf("Repair = %+v\nnotes %q", got, notes)
	}
	if len(CloseOpenCalls(got)) != 1 {
		t.Error("the last message's open call c was closed by Repair")
	}
	if clean, notes := Repair(got); len(notes) != 0 || len(clean) != len(got) {
		t.Errorf("a repaired conversation is repaired again: %q", notes)
	}
}

// A compaction is written against the conversation before it, so nine
// compactions of a long conversation do not hold nine copies of it (they
// made half of a 780 KB file), also after the session was reopened by
// another process; a load gives back exactly the conversation compacted.
func TestCompactionsKeepMessagesOnce(t *testing.T) {
	s, w := newSession(t)
	big := strings.Repeat("output line\n", 2000) // 24 KB a result
	conv := []chat.Message{{Role: chat.RoleSystem, Content: "sys"}}
	add := func(w *Writer, m chat.Message) {
		t.Helper()
		if err := w.Append(Record{Kind: KindMessage, Message: &m}); err != nil {
			t.Fatal(err)
		}
		conv = append(conv, m)
	}
	compact := func(w *Writer, round int) {
		t.Helper()
		// The system prompt, a summary, the latest turns as they were
		// but one output shortened.
		now := []chat.Message{conv[0], {Role: chat.RoleUser, Content: fmt.Sprintf("summary %d", round)}}
		now = append(now, conv[len(conv)-6:]...)
		now[2].Content = "[pruned]"
		if err := w.Append(Record{Kind: KindCompaction, Compaction: &Compaction{Messages: now, Summary: "s", Replaced: len(conv) - 7}}); err != nil {
			t.Fatal(err)
		}
		conv = now
	}
	add(w, conv[0])
	turn := func(w *Writer, i int) {
		id := fmt.Sprintf("c%d", i)
		add(w, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("step %d", i)})
		add(w, chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"make"}`}}})
		add(w, chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: fmt.Sprintf("%d\n%s", i, big)})
	}
	for round := range 9 {
		for i := range 4 {
			turn(w, round*4+i)
		}
		compact(w, round)
		if round == 4 { // another process takes the session up
			w.Close()
			var err error
			if w, _, err = s.Reopen(w.Path()); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Close()
	fi, _ := os.Stat(w.Path())
	escaped, _ := json.Marshal(big)
	if limit := int64(36*len(escaped)) + 64<<10; fi.Size() > limit { // 36 results written once
		t.Errorf("the session file is %d bytes, want at most %d: compactions copy the conversation", fi.Size(), limit)
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Messages(); !reflect.DeepEqual(got, conv) {
		t.Errorf("loaded %d messages, want the %d compacted ones:\n%+v", len(got), len(conv), got)
	}
}
