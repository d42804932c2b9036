package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

var t0 = time.Date(2026, 11, 22, 22, 30, 0, 0, time.UTC)

// every returns one record of every kind, with distinct times.
func every() []Record {
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	return []Record{
		{Kind: KindMessage, Time: at(1), Message: &chat.Message{Role: chat.RoleSystem, Content: "You are tackle."}},
		{Kind: KindMessage, Time: at(2), Prompt: true, Message: &chat.Message{Role: chat.RoleUser, Content: "fix the test"}},
		{Kind: KindMessage, Time: at(3), Message: &chat.Message{Role: chat.RoleAssistant, Content: "Reading.",
			ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path": "a.go"}`}}}},
		{Kind: KindDecision, Time: at(4), Decision: &hooks.Decision{Event: hooks.PreToolCall, Hook: "approval", Result: "continue", Duration: 1500, CallID: "c1"}},
		{Kind: KindMessage, Time: at(5), Message: &chat.Message{Role: chat.RoleTool, ToolCallID: "c1", Content: "package a\n"}, Status: chat.StatusOK},
		{Kind: KindUsage, Time: at(6), Usage: &chat.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}, Context: 130, Window: 128000},
		{Kind: KindPaused, Time: at(7), Pending: []agent.PendingCall{{Call: chat.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command": "go test"}`}, Hook: "approval", Reason: "bash wants to run: go test"}},
			Paused: &agent.PausedRun{Requests: 2, Usage: chat.Usage{TotalTokens: 120}, Retry: hooks.BudgetState{Rounds: 1, Last: []chat.Message{{Role: chat.RoleUser, Content: "vet says"}}}, Calls: []agent.PausedCall{
				{Call: chat.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command": "go test"}`}, Current: chat.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command": "go test"}`}, State: agent.CallPending, Hook: "approval", HookIndex: 1, Reason: "bash wants to run: go test"},
				{Call: chat.ToolCall{ID: "c3", Name: "read_file"}, Current: chat.ToolCall{ID: "c3", Name: "read_file"}, State: agent.CallDecided, Result: &chat.ToolResult{CallID: "c3", Status: chat.StatusSkipped, Content: "Skipped"}},
			}}},
		{Kind: KindAnswered, Time: at(8), Answers: []Answer{{CallID: "c2", Verdict: "deny", Reason: "not now", By: "user"}}},
		{Kind: KindCompaction, Time: at(9), Compaction: &Compaction{Replaced: 3, Summary: "The user asked to fix a test.", Pruned: 1, Focus: "the test",
			Messages: []chat.Message{{Role: chat.RoleSystem, Content: "You are tackle."}, {Role: chat.RoleUser, Content: "The user asked to fix a test."}}}},
		{Kind: KindModel, Time: at(10), Model: "gpt-5"},
		{Kind: KindOutcome, Time: at(11), Outcome: &Outcome{Status: "finished", Reason: "", Usage: chat.Usage{TotalTokens: 120}, Turns: 1}},
		{Kind: KindCheck, Time: at(12), Check: &agent.CheckFinished{Check: "go vet", Status: "problems", Problems: 2, Summary: "a.go:3: x declared and not used", Duration: 2e9}},
		{Kind: KindFile, Time: at(13), File: &tools.FileStamp{Path: "a.go", Size: 10, ModTime: t0, SHA256: strings.Repeat("ab", 32)}},
	}
}

func newSession(t *testing.T) (*Store, *Writer) {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), "sessions"))
	w, err := s.Create(Header{Tackle: "test", Workspace: "/src/proj", Model: "gpt-4.1", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s, w
}

func TestRoundTripOfEveryRecordKind(t *testing.T) {
	_, w := newSession(t)
	want := every()
	for _, r := range want {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("warnings: %v", l.Warnings)
	}
	if l.Header.ID != w.ID() || l.Header.Workspace != "/src/proj" || l.Header.Model != "gpt-4.1" || l.Header.Format != FormatVersion || !l.Header.Started.Equal(t0) {
		t.Errorf("header = %+v", l.Header)
	}
	if len(l.Records) != len(want) {
		t.Fatalf("%d records, want %d", len(l.Records), len(want))
	}
	var conv []chat.Message // the conversation before record i
	for i := range want {
		got, w := l.Records[i], want[i]
		if w.Message != nil {
			conv = append(conv, *w.Message)
		}
		if !got.Time.Equal(w.Time) {
			t.Errorf("record %d: time %v, want %v", i, got.Time, w.Time)
		}
		got.Time, w.Time = time.Time{}, time.Time{}
		if c := got.Compaction; c != nil && c.Parts != nil {
			// Written against the conversation before it: the same
			// conversation after it.
			cc := *c
			cc.Messages, cc.Parts = c.after(conv), nil
			got.Compaction = &cc
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	if l.Model() != "gpt-5" || l.Turns() != 1 {
		t.Errorf("Model = %q, Turns = %d", l.Model(), l.Turns())
	}
}

func TestFilesArePrivate(t *testing.T) {
	s, w := newSession(t)
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	for dir := filepath.Dir(w.Path()); ; dir = filepath.Dir(dir) {
		di, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if di.Mode().Perm() != 0o700 {
			t.Errorf("directory %s mode %v, want 0700", dir, di.Mode().Perm())
		}
		if dir == s.Dir() {
			break
		}
	}
}

// A file cut at any byte of its last record loads every earlier record,
// with a warning for the torn line when one is left (a record missing
// only its newline is whole and kept).
func TestTruncatedAtEveryOffsetOfTheLastRecord(t *testing.T) {
	_, w := newSession(t)
	recs := every()
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	full, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	lastStart := strings.LastIndexByte(strings.TrimSuffix(string(full), "\n"), '\n') + 1
	dir := t.TempDir()
	for cut := lastStart; cut < len(full); cut++ {
		p := filepath.Join(dir, "cut.jsonl")
		if err := os.WriteFile(p, full[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Load(p)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		// Only the newline missing: the record itself is whole and kept.
		whole := cut == len(full)-1
		if want := len(recs) - 1; len(l.Records) != want && !whole || whole && len(l.Records) != len(recs) {
			t.Fatalf("cut at %d: %d records, want %d", cut, len(l.Records), want)
		}
		torn := cut > lastStart && !whole
		if torn != (len(l.Warnings) == 1) || torn && !strings.Contains(l.Warnings[0], "incomplete") {
			t.Errorf("cut at %d: warnings %v", cut, l.Warnings)
		}
	}
}

// After a torn last line, continuing the session ends it first: the next
// record is whole and only the torn line is lost.
func TestContinueAfterATornLine(t *testing.T) {
	s, w := newSession(t)
	recs := every()
	for _, r := range recs[:3] {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, err := os.OpenFile(w.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","time":"2026-11-22T22:`) // killed mid-append
	f.Close()

	w2, l, err := s.Reopen(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 3 || len(l.Warnings) != 1 || w2.ID() != l.Header.ID {
		t.Fatalf("Reopen loaded %d records, warnings %v, id %q", len(l.Records), l.Warnings, w2.ID())
	}
	if err := w2.Append(recs[3]); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	l, err = Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 4 || l.Records[3].Kind != KindDecision || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "not a session record") {
		t.Errorf("records %d (last %v), warnings %v", len(l.Records), l.Records[len(l.Records)-1].Kind, l.Warnings)
	}
}

func TestSecondWriterIsRefused(t *testing.T) {
	s, w := newSession(t)
	if _, _, err := s.Reopen(w.Path()); !errors.Is(err, ErrInUse) {
		t.Fatalf("Reopen while open = %v, want ErrInUse", err)
	}
	w.Close()
	w2, _, err := s.Reopen(w.Path())
	if err != nil {
		t.Fatalf("Reopen after close = %v", err)
	}
	w2.Close()
	if _, _, err := s.Reopen(filepath.Join(s.Dir(), "missing.jsonl")); err == nil {
		t.Error("Reopen of a missing file succeeded")
	}
}

func TestRedactionCopiesAndCoversEveryText(t *testing.T) {
	_, w := newSession(t)
	w.SetRedact(func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") })
	msg := &chat.Message{Role: chat.RoleAssistant, Content: "pw hunter2", Reasoning: "the password is hunter2",
		Extra:     map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"the password is hunter2"`)},
		ToolCalls: []chat.ToolCall{{ID: "c", Name: "bash", Arguments: `{"command":"echo hunter2"}`, Extra: map[string]json.RawMessage{"sig": json.RawMessage(`{"s":"hunter2"}`)}}}}
	recs := []Record{
		{Kind: KindMessage, Message: msg},
		{Kind: KindDecision, Decision: &hooks.Decision{Hook: "h", Reason: "saw hunter2", Error: "hunter2"}},
		{Kind: KindPaused, Pending: []agent.PendingCall{{Call: chat.ToolCall{ID: "c", Arguments: "hunter2"}, Reason: "hunter2"}},
			Paused: &agent.PausedRun{LastText: "hunter2", Retry: hooks.BudgetState{Last: []chat.Message{{Content: "hunter2"}}}, Calls: []agent.PausedCall{
				{Call: chat.ToolCall{Arguments: "hunter2"}, Current: chat.ToolCall{Arguments: "hunter2"}, Reason: "hunter2", Result: &chat.ToolResult{Content: "hunter2"}}},
				TurnEnd: &agent.PausedTurnEnd{Reason: "hunter2", Final: chat.Message{Content: "hunter2"}}}},
		{Kind: KindCheck, Check: &agent.CheckFinished{Summary: "hunter2"}},
		{Kind: KindAnswered, Answers: []Answer{{CallID: "c", Verdict: "deny", Reason: "hunter2"}}},
		{Kind: KindCompaction, Compaction: &Compaction{Summary: "hunter2", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hunter2"}}}},
		{Kind: KindOutcome, Outcome: &Outcome{Status: "aborted", Reason: "hunter2"}},
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	// 21: the paused call's current form is the call as sent, so it is
	// written once.
	if n := strings.Count(string(b), "[REDACTED]"); strings.Contains(string(b), "hunter2") || n != 21 {
		t.Errorf("file has the secret or %d redactions, want 21:\n%s", n, b)
	}
	if msg.Content != "pw hunter2" || msg.ToolCalls[0].Arguments != `{"command":"echo hunter2"}` {
		t.Errorf("the live message was changed: %+v", msg)
	}
}

func TestMessagesApplyCompactions(t *testing.T) {
	_, w := newSession(t)
	sys := chat.Message{Role: chat.RoleSystem, Content: "sys"}
	m := func(role chat.Role, s string) *chat.Message { return &chat.Message{Role: role, Content: s} }
	for _, r := range []Record{
		{Kind: KindMessage, Message: &sys},
		{Kind: KindMessage, Prompt: true, Message: m(chat.RoleUser, "one")},
		{Kind: KindMessage, Message: m(chat.RoleAssistant, "a1")},
		{Kind: KindMessage, Prompt: true, Message: m(chat.RoleUser, "two")},
		{Kind: KindMessage, Message: m(chat.RoleAssistant, "a2")},
		{Kind: KindCompaction, Compaction: &Compaction{Replaced: 2, Summary: "summary of one", Messages: []chat.Message{
			sys, {Role: chat.RoleUser, Content: "summary of one"}, {Role: chat.RoleUser, Content: "two"}, {Role: chat.RoleAssistant, Content: "a2"}}}},
		{Kind: KindMessage, Prompt: true, Message: m(chat.RoleUser, "three")},
	} {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range l.Messages() {
		got = append(got, string(msg.Role)+":"+msg.Content)
	}
	want := []string{"system:sys", "user:summary of one", "user:two", "assistant:a2", "user:three"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Messages = %q, want %q", got, want)
	}
	if l.Turns() != 3 {
		t.Errorf("Turns = %d", l.Turns())
	}
}

func TestListFindLatest(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "sessions"))
	var ids []string
	for i, prompt := range []string{"first", "second", "third"} {
		w, err := s.Create(Header{Workspace: "/src/proj", Model: "m", Started: t0.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		w.Append(Record{Kind: KindMessage, Message: &chat.Message{Role: chat.RoleSystem, Content: "sys"}})
		w.Append(Record{Kind: KindMessage, Prompt: true, Message: &chat.Message{Role: chat.RoleUser, Content: prompt}})
		w.Append(Record{Kind: KindMessage, Prompt: true, Message: &chat.Message{Role: chat.RoleUser, Content: "more"}})
		if i > 0 {
			w.Append(Record{Kind: KindOutcome, Outcome: &Outcome{Status: "finished"}})
		}
		w.Close()
		ids = append(ids, w.ID())
	}
	// Another workspace named alike keeps its own sessions.
	other, err := s.Create(Header{Workspace: "/elsewhere/proj", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	os.WriteFile(filepath.Join(filepath.Dir(other.Path()), "junk.jsonl"), []byte("not json\n"), 0o600)

	list, err := s.List("/src/proj")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != ids[2] || list[2].ID != ids[0] {
		t.Fatalf("List = %+v", list)
	}
	if in := list[0]; in.FirstPrompt != "third" || in.Turns != 2 || in.Status != "finished" || in.Model != "m" {
		t.Errorf("newest = %+v", in)
	}
	if in := list[2]; in.FirstPrompt != "first" || in.Status != "" {
		t.Errorf("oldest (no outcome) = %+v", in)
	}
	if in, ok, err := s.Latest("/src/proj"); err != nil || !ok || in.ID != ids[2] {
		t.Errorf("Latest = %v %v %v", in.ID, ok, err)
	}
	if _, ok, _ := s.Latest("/nowhere"); ok {
		t.Error("Latest of a workspace with no sessions = ok")
	}
	if in, err := s.Find("/src/proj", ids[1]); err != nil || in.ID != ids[1] {
		t.Errorf("Find exact = %v %v", in.ID, err)
	}
	if in, err := s.Find("/src/proj", ids[1][:18]); err != nil || in.ID != ids[1] {
		t.Errorf("Find prefix = %v %v", in.ID, err)
	}
	if _, err := s.Find("/src/proj", "2026"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Find ambiguous = %v", err)
	}
	if _, err := s.Find("/src/proj", "1999"); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("Find missing = %v", err)
	}
	// A file that is not a session is listed as unreadable, with why,
	// rather than vanishing; -c and --resume never take it.
	list, _ = s.List("/elsewhere/proj")
	if len(list) != 2 {
		t.Fatalf("other workspace: %d sessions, want the session and the unreadable file", len(list))
	}
	var junk Info
	for _, in := range list {
		if in.ID == "junk" {
			junk = in
		}
	}
	if junk.Unreadable != "the first line is not a session header" || !strings.HasSuffix(junk.Path, "junk.jsonl") || junk.Updated.IsZero() {
		t.Errorf("junk = %+v", junk)
	}
	if _, err := s.Find("/elsewhere/proj", "junk"); err == nil || !strings.Contains(err.Error(), "cannot be read: the first line is not a session header") {
		t.Errorf("Find of the unreadable file = %v", err)
	}
}

// A workspace whose only session has a corrupt first line says so, naming
// the file and why, instead of "no session to continue" naming nothing
// (before, the session was simply missing from every listing).
func TestLatestNamesUnreadableSessions(t *testing.T) {
	s, w := newSession(t)
	w.Append(Record{Kind: KindMessage, Prompt: true, Message: &chat.Message{Role: chat.RoleUser, Content: "hi"}})
	w.Close()
	data, _ := os.ReadFile(w.Path())
	os.WriteFile(w.Path(), append([]byte("\x00garbage"), data[1:]...), 0o600)
	list, err := s.List("/src/proj")
	if err != nil || len(list) != 1 || list[0].Unreadable == "" || list[0].ID != w.ID() {
		t.Fatalf("List = %+v, %v; want the session, unreadable", list, err)
	}
	_, ok, err := s.Latest("/src/proj")
	if ok || err == nil || !strings.Contains(err.Error(), w.Path()+": the first line is not a session header") {
		t.Errorf("Latest = %v, %v; want an error naming the file and why", ok, err)
	}
}

func TestLoadRefusesANewerFormatAndAFileWithoutHeader(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"newer.jsonl":    `{"type":"header","header":{"format":99,"id":"x"}}` + "\n",
		"noheader.jsonl": `{"type":"message","message":{"role":"user"}}` + "\n",
		"empty.jsonl":    "",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		if _, err := Load(p); err == nil {
			t.Errorf("%s loaded", name)
		}
	}
}

func TestLastPause(t *testing.T) {
	_, w := newSession(t)
	recs := every()
	for _, r := range recs[:7] { // ends with the pause
		w.Append(r)
	}
	w.Append(Record{Kind: KindOutcome, Outcome: &Outcome{Status: "paused"}})
	l, _ := Load(w.Path())
	if p := l.LastPause(); p == nil || p.Pending[0].Call.ID != "c2" {
		t.Fatalf("LastPause = %+v", p)
	}
	w.Append(recs[7]) // answered
	l, _ = Load(w.Path())
	if p := l.LastPause(); p != nil {
		t.Errorf("LastPause after the answer = %+v", p)
	}
}

// The session used last comes first, whenever it was started: -c goes on
// with the one resumed and used most recently.
func TestListPutsTheSessionUsedLastFirst(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "sessions"))
	var paths []string
	for i := range 3 {
		w, err := s.Create(Header{Workspace: "/src/proj", Started: t0.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		paths = append(paths, w.Path())
	}
	for i, p := range paths {
		at := t0.Add(time.Duration(10+i) * time.Hour)
		if i == 0 {
			at = t0.Add(20 * time.Hour) // the oldest session, resumed later
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List("/src/proj")
	if err != nil || len(list) != 3 || list[0].Path != paths[0] || list[1].Path != paths[2] || list[2].Path != paths[1] {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if in, _, _ := s.Latest("/src/proj"); in.Path != paths[0] {
		t.Errorf("Latest = %s", in.Path)
	}
}

// A paused call's arguments are written once (a 2.5 MB write made a
// 7.65 MB paused line: the pending call, the call and its current form),
// and the pending calls come back from the state on load.
func TestPausedRecordKeepsArgumentsOnce(t *testing.T) {
	_, w := newSession(t)
	r := NewRecorder(w, func(err error) { t.Error(err) })
	big := `{"path":"a.txt","content":"` + strings.Repeat("x", 1<<20) + `"}`
	call := chat.ToolCall{ID: "c1", Name: "write_file", Arguments: big}
	r.Event(agent.PausedEvent{
		Pending: []agent.PendingCall{{Call: call, Hook: "approval", Reason: "write_file wants to write a.txt"}},
		State: &agent.PausedRun{Calls: []agent.PausedCall{
			{Call: call, Current: call, State: agent.CallPending, Hook: "approval", HookIndex: 1, Reason: "write_file wants to write a.txt"},
		}},
	})
	r.Close()
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1<<20+4096 {
		t.Errorf("the session file is %d bytes for a 1 MiB argument: it is written more than once", fi.Size())
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	p := l.LastPause()
	if p == nil || len(p.Pending) != 1 || p.Pending[0].Call.Arguments != big || p.Pending[0].Hook != "approval" || p.Pending[0].Reason != "write_file wants to write a.txt" {
		t.Fatalf("pause read back = %+v", p)
	}
	if c := p.Paused.Calls[0]; c.Current.Arguments != big || c.Call.Arguments != big {
		t.Error("the call's current form did not come back")
	}
}

// Files gives the last stamp of each file, in the order first seen.
func TestFilesGivesTheLastStampOfEachFile(t *testing.T) {
	st := func(p string, n int64) *tools.FileStamp { return &tools.FileStamp{Path: p, Size: n} }
	l := &Loaded{Records: []Record{
		{Kind: KindFile, File: st("a.go", 1)},
		{Kind: KindFile, File: st("b.go", 2)},
		{Kind: KindMessage, Message: &chat.Message{Role: chat.RoleUser}},
		{Kind: KindFile, File: st("a.go", 3)},
	}}
	got := l.Files()
	if len(got) != 2 || got[0] != *st("a.go", 3) || got[1] != *st("b.go", 2) {
		t.Errorf("Files = %+v", got)
	}
}

// The images of tool results (a user message's) come back whole from
// the file, redacted or not: a resumed conversation shows the model what
// it saw.
func TestImagesRoundTrip(t *testing.T) {
	_, w := newSession(t)
	img := chat.Message{Role: chat.RoleUser, Content: "[The images the tool calls above returned]",
		Images: []chat.Image{{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nsecret-looking bytes sk-abc")}}}
	r := NewRecorder(w, func(err error) { t.Error(err) })
	r.SetRedact(func(s string) string { return strings.ReplaceAll(s, "sk-abc", "[REDACTED]") })
	r.Message(agent.AddedMessage{Message: chat.Message{Role: chat.RoleSystem, Content: "You are tackle."}})
	r.Message(agent.AddedMessage{Message: img})
	r.Close()
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	msgs := l.Messages()
	if len(msgs) != 2 || !reflect.DeepEqual(msgs[1], img) {
		t.Errorf("messages: %+v", msgs)
	}
}

// SessionRules gives the rules added and not revoked since, as written to
// the file and read back, redacted like every record.
func TestSessionRulesReadBack(t *testing.T) {
	s := Open(t.TempDir())
	w, err := s.Create(Header{Workspace: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	w.SetRedact(func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") })
	r := NewRecorder(w, func(err error) { t.Error(err) })
	for _, c := range []RuleChange{
		{Rule: "bash(git status *)"},
		{Rule: "edit_file(main.go)"},
		{Rule: "bash(ls *)"},
		{Rule: "bash(git status *)", Revoked: true},
		{Rule: "bash(mytool --password hunter2)"},
		{Rule: "bash(git status *)"},
	} {
		r.Append(Record{Kind: KindRule, Rule: &c})
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"edit_file(main.go)", "bash(ls *)", "bash(mytool --password [REDACTED])", "bash(git status *)"}
	if got := l.SessionRules(); !slices.Equal(got, want) {
		t.Errorf("SessionRules = %q, want %q", got, want)
	}
}

// PendingNotes gives the notes recorded after the last user message: a
// note a message carried is not sent again.
func TestPendingNotes(t *testing.T) {
	user := func(s string) *chat.Message { return &chat.Message{Role: chat.RoleUser, Content: s} }
	l := &Loaded{Records: []Record{
		{Kind: KindNote, Note: "old"},
		{Kind: KindMessage, Message: user("[Note from tackle: old]\n\nhi")},
		{Kind: KindMessage, Message: &chat.Message{Role: chat.RoleAssistant, Content: "a long a"}},
		{Kind: KindNote, Note: "interrupted here"},
		{Kind: KindNote, Note: "undo"},
	}}
	if got := l.PendingNotes(); !slices.Equal(got, []string{"interrupted here", "undo"}) {
		t.Errorf("PendingNotes = %q", got)
	}
	l.Records = append(l.Records, Record{Kind: KindMessage, Message: user("next")})
	if got := l.PendingNotes(); len(got) != 0 {
		t.Errorf("PendingNotes after a message = %q", got)
	}
}

// TestChosenID: a session known by its id before it records anything
// (an editor's) leaves no file until its first record, is then created
// under that id, and is found by it from any workspace (Locate) — its
// workspace named, for the caller to refuse another; a second session
// cannot take the id, and an id that cannot name a file is refused.
func TestChosenID(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "sessions"))
	id := s.NewID("/src/proj")
	if !ValidID(id) {
		t.Fatalf("NewID gave %q, not a valid id", id)
	}
	rec := s.Recorder(Header{ID: id, Tackle: "test", Workspace: "/src/proj"}, func(err error) { t.Error(err) })
	if list, err := s.List("/src/proj"); err != nil || len(list) != 0 {
		t.Fatalf("before any record: List = %+v, %v; want nothing", list, err)
	}
	if _, ok, err := s.Locate(id); ok || err != nil {
		t.Fatalf("before any record: Locate = %v, %v; want none", ok, err)
	}
	rec.Message(agent.AddedMessage{Message: chat.Message{Role: chat.RoleUser, Content: "hello"}, Prompt: true})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.ID() != id {
		t.Errorf("the recorder's id is %q, want %q", rec.ID(), id)
	}
	info, ok, err := s.Locate(id)
	if err != nil || !ok || info.ID != id || info.Workspace != "/src/proj" || info.FirstPrompt != "hello" {
		t.Fatalf("Locate = %+v, %v, %v; want the session of /src/proj", info, ok, err)
	}
	if _, err := s.Create(Header{ID: id, Workspace: "/src/proj"}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second session took the id: %v", err)
	}
	if id2 := s.NewID("/src/proj"); id2 == id {
		t.Errorf("NewID gave the id of an existing session")
	}
	for _, bad := range []string{"../x", "a/b", ".hidden", strings.Repeat("a", 65), "a b", "é"} {
		if _, err := s.Create(Header{ID: bad, Workspace: "/src/proj"}); err == nil {
			t.Errorf("Create took the id %q", bad)
		}
	}
	for _, bad := range []string{"../x", "", "a/b"} {
		if _, ok, err := s.Locate(bad); ok || err != nil {
			t.Errorf("Locate(%q) = %v, %v", bad, ok, err)
		}
	}
	other, err := s.Create(Header{Workspace: "/src/other"})
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	all, err := s.ListAll()
	if err != nil || len(all) != 2 {
		t.Fatalf("ListAll = %+v, %v; want both workspaces' sessions", all, err)
	}
	if all[0].Workspace != "/src/other" {
		t.Errorf("ListAll = %+v: want the session used last first", all)
	}
}
