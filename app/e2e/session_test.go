package e2e

// End-to-end tests of sessions: every run is recorded, -c and --resume go
// on with one exactly, a killed run loses nothing that was complete, and
// a saved pause is answered by a later process.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app"
)

// sessionFiles lists the session files of e's state directory.
func (e *e2e) sessionFiles() []string {
	files, _ := filepath.Glob(filepath.Join(e.home, ".local", "state", "tackle", "sessions", "*", "*.jsonl"))
	return files
}

// kill -9 while the reply streams: -c goes on with every message that was
// complete (the prompt, the tool call and its result); the cut reply is
// gone. A second tackle meanwhile is refused: the session is in use.
func TestE2EKilledRunLosesNothingThatWasComplete(t *testing.T) {
	e := newE2E(t, "session_killed.json")
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("-p", "read the notes")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-e.srv.Stalled()
	r := e.runBounded(time.Minute, "-c", "-p", "meanwhile")
	if r.code != app.ExitError || !strings.Contains(r.stderr, "open in another tackle process") {
		t.Errorf("a second tackle on the session: exit %d, stderr %q", r.code, r.stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	r = e.runBounded(time.Minute, "-c", "-p", "and now?")
	if r.code != app.ExitOK || r.stdout != "Back again: the notes say hello.\n" {
		t.Fatalf("-c after the kill: exit %d, stdout %q", r.code, r.stdout)
	}
	msgs := e.requests()[2].Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role)+":"+m.Content)
	}
	want := []string{"system:", "user:read the notes", "assistant:Reading it.", "tool:     1\thello", "user:and now?"}
	if len(roles) != len(want) {
		t.Fatalf("request after the kill = %q", roles)
	}
	for i, w := range want {
		if !strings.HasPrefix(roles[i], w) {
			t.Errorf("message %d = %q, want %q", i, roles[i], w)
		}
	}
}

// kill -9 while a tool runs: the call gets a result that says tackle
// stopped, so the conversation goes on (a model refuses a call without a
// result).
func TestE2EKilledDuringAToolCallGoesOnWithAnInterruptedResult(t *testing.T) {
	e := newE2E(t, "session_killed_tool.json")
	for _, f := range []string{"ready.fifo", "release.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(e.workspace, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := e.command("--yes", "-p", "run it")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(filepath.Join(e.workspace, "ready.fifo")); err != nil { // the tool runs
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// Let the orphaned shell finish.
	if f, err := os.OpenFile(filepath.Join(e.workspace, "release.fifo"), os.O_WRONLY, 0); err == nil {
		f.Close()
	}
	// --yes approved the call at once: the session holds no pause, so the
	// killed run is not listed as paused (before, every approval wrote a
	// paused record and outcome, and a kill between them and the answer
	// came back as "session is paused").
	if r := e.run("sessions", "--output", "json"); !strings.Contains(r.stdout, `"id"`) || strings.Contains(r.stdout, `"status": "paused"`) {
		t.Errorf("tackle sessions after the kill: %s", r.stdout)
	}
	for _, f := range e.sessionFiles() {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), `"type":"paused"`) {
			t.Errorf("a --yes run recorded a pause: %s", b)
		}
	}

	r := e.runBounded(time.Minute, "-c", "-p", "what happened?")
	if r.code != app.ExitOK {
		t.Fatalf("-c after the kill: exit %d", r.code)
	}
	if got := e.toolResult(1, "call_block"); got != session.InterruptedResult {
		t.Errorf("the interrupted call's result = %q", got)
	}
	if msgs := e.requests()[1].Messages; msgs[len(msgs)-1].Content != "what happened?" {
		t.Errorf("request = %+v", msgs)
	}
}

// savedPause is the JSON output of a run saved paused.
type savedPause struct {
	Status    string `json:"status"`
	ExitCode  int    `json:"exit_code"`
	SessionID string `json:"session_id"`
	Pending   []struct {
		ID, Tool, Hook, Reason string
		Arguments              map[string]string
	} `json:"pending"`
}

func (e *e2e) savePause() savedPause {
	e.t.Helper()
	r := e.run("--on-pause", "save", "--output", "json", "-p", "write the files")
	if r.code != app.ExitDenied {
		e.t.Fatalf("exit %d, want %d", r.code, app.ExitDenied)
	}
	var out savedPause
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		e.t.Fatalf("stdout: %v\n%s", err, r.stdout)
	}
	if out.Status != "paused" || out.ExitCode != app.ExitDenied || out.SessionID == "" || len(out.Pending) != 2 ||
		out.Pending[0].ID != "call_a" || out.Pending[0].Tool != "bash" || out.Pending[0].Arguments["command"] != "echo a > a.txt" ||
		out.Pending[0].Hook != "approval" || out.Pending[0].Reason == "" {
		e.t.Fatalf("saved pause = %+v", out)
	}
	if !strings.Contains(r.stderr, "tackle --resume "+out.SessionID+" --approve CALL_ID|all") {
		e.t.Errorf("stderr does not say how to go on: %q", r.stderr)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.workspace, f)); err == nil {
			e.t.Errorf("%s was written before an answer", f)
		}
	}
	return out
}

// A piped run that pauses is saved (exit 3, the session and the pending
// calls on stdout); a later tackle approves and the run goes on where it
// stopped: the calls run, the model gets their results and finishes.
func TestE2ESavedPauseApprovedLater(t *testing.T) {
	e := newE2E(t, "session_pause.json")
	saved := e.savePause()
	if n := len(e.requests()); n != 1 {
		t.Fatalf("requests = %d", n)
	}

	r := e.run("--resume", saved.SessionID, "--approve", "all")
	if r.code != app.ExitOK || r.stdout != "Done.\n" {
		t.Fatalf("--approve all: exit %d, stdout %q", r.code, r.stdout)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.workspace, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
	if got := e.toolResult(1, "call_a"); got != "" && !strings.Contains(got, "exit") {
		t.Logf("call_a result: %q", got)
	}
	msgs := e.requests()[1].Messages
	if n := len(msgs); n != 5 || msgs[3].ToolCallID != "call_a" || msgs[4].ToolCallID != "call_b" {
		t.Errorf("request after the answer = %+v", msgs)
	}
	if r := e.run("--resume", saved.SessionID, "--approve", "all"); r.code != app.ExitUsage || !strings.Contains(r.stderr, "is not paused") {
		t.Errorf("answering twice: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --deny CALL_ID --reason TEXT delivers the reason to the model; each
// call is answered on its own; the answers must cover every pending call.
func TestE2ESavedPauseDeniedWithAReason(t *testing.T) {
	e := newE2E(t, "session_pause.json")
	saved := e.savePause()
	id := saved.SessionID[:len(saved.SessionID)-2] // a unique start is enough

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--approve", "call_a"}, "no answer for call_b (bash)"},
		{[]string{"--approve", "call_x", "--approve", "call_a"}, "--approve call_x: no such pending call (pending: call_a, call_b)"},
		{[]string{"--approve", "all", "-p", "more"}, "send a new prompt afterwards"},
		{[]string{"--approve", "call_a", "--reason", "why", "--deny", "call_b"}, "--reason \"why\": it explains the --deny CALL_ID just before it"},
	} {
		r := e.run(append([]string{"--resume", id}, tc.args...)...)
		if r.code != app.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := e.run("-c", "-p", "something else"); r.code != app.ExitUsage || !strings.Contains(r.stderr, "is paused: 2 calls wait for an answer (call_a, call_b)") {
		t.Errorf("a new prompt to the paused session: exit %d, stderr %q", r.code, r.stderr)
	}

	r := e.run("--resume", id, "--approve", "call_a", "--deny", "call_b", "--reason", "b.txt is generated; leave it", "--deny", "bash(rm *)")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "a.txt")); err != nil {
		t.Errorf("a.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "b.txt")); err == nil {
		t.Error("the denied call ran")
	}
	if got := e.toolResult(1, "call_b"); !strings.Contains(got, "denied") || !strings.Contains(got, "Reason: b.txt is generated; leave it") {
		t.Errorf("denied result = %q", got)
	}
}

// tackle sessions lists the workspace's sessions, newest first, as a
// table or JSON.
func TestE2ESessionsListsThem(t *testing.T) {
	e := newE2E(t, "session_two_turns.json")
	os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("hello\n"), 0o644)
	if r := e.run("sessions"); r.code != app.ExitOK || !strings.Contains(r.stdout, "No sessions in ") {
		t.Errorf("no sessions: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := e.run("sessions", "--output", "json"); r.code != app.ExitOK || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("no sessions, json: exit %d, stdout %q", r.code, r.stdout)
	}
	e.run("-p", "what do the notes say?")
	e.run("-c", "-p", "what did I ask?")

	r := e.run("sessions", "--output", "json")
	var list []session.Info
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != app.ExitOK {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stdout)
	}
	if len(list) != 1 || list[0].Turns != 2 || list[0].FirstPrompt != "what do the notes say?" || list[0].Status != "finished" || list[0].Model != "e2e-model" {
		t.Errorf("sessions = %+v", list)
	}
	r = e.run("sessions")
	for _, want := range []string{"ID", "FIRST PROMPT", list[0].ID, "finished", "e2e-model", "what do the notes say?"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := e.run("--resume", "nope", "-p", "x"); r.code != app.ExitUsage || !strings.Contains(r.stderr, `no session "nope" in this workspace`) {
		t.Errorf("--resume of a missing session: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.run("--resume", "-p", "x"); r.code != app.ExitUsage || !strings.Contains(r.stderr, "--resume without an ID") {
		t.Errorf("--resume without an ID, piped: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The session file holds no secret: it is redacted as tool results are.
func TestE2ESessionFileIsRedacted(t *testing.T) {
	e := newE2E(t, "redact_secrets.json")
	writeSecrets(t, e.workspace)
	if r := e.runBounded(time.Minute, "--yes", "-p", "look at the settings, token "+e2eGitHubToken); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{e2eGitHubToken, e2eSlackToken, e2eDBPassword, e2eAPIKey, e2eDeployToken, "sk-e2e-secret-key"} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the session file holds %s", secret)
		}
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", fi, err)
	}
}

// tackle -c in a terminal: the UI opens on the session's transcript as it
// was and goes on with the whole conversation.
func TestE2ETUIContinueShowsTheTranscriptAndGoesOn(t *testing.T) {
	e := newE2E(t, "session_two_turns.json")
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.run("-p", "what do the notes say?"); r.code != app.ExitOK {
		t.Fatalf("first run: exit %d", r.code)
	}
	s := e.startTUI("-c")
	screen := s.waitFor("resumed session")
	for _, want := range []string{"› what do the notes say?", "✓ read_file  notes.txt", "● The notes say hello."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the resumed transcript lacks %q:\n%s", want, screen)
		}
	}
	s.typeText("what did I ask?")
	s.keys("Enter")
	s.waitFor("You asked about the notes; they say hello.")
	s.waitUntil("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc to interrupt") })
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Fatalf("exit status %d", code)
	}
	if msgs := e.requests()[2].Messages; len(msgs) != 6 || msgs[5].Content != "what did I ask?" {
		t.Errorf("the request after -c = %+v", msgs)
	}
	r := e.run("sessions", "--output", "json")
	var list []session.Info
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].Turns != 2 {
		t.Errorf("sessions after the UI: %+v, %v", list, err)
	}
}

// A pause made by a configured hook goes on, in a later process, with the
// hooks after it — not with the hook again; when that hook is no longer
// configured the resume is refused with the hooks there are.
func TestE2ESavedPauseGoesOnAfterThePausingHook(t *testing.T) {
	e := newE2E(t, "session_hook_pause.json")
	os.WriteFile(filepath.Join(e.workspace, "notes.txt"), []byte("hello\n"), 0o644)
	gate := `{"name": "gate", "command": "echo x >> gate.log; echo '{\"action\": \"pause\", \"reason\": \"reads need a look\"}'"}`
	after := `{"name": "after", "command": "echo x >> after.log"}`
	e.config(`{"hooks": {"pre_tool_call": [` + gate + `, ` + after + `]}}`)
	r := e.run("--on-pause", "save", "-p", "read the notes")
	if r.code != app.ExitDenied || !strings.Contains(r.stdout, "call_read  read_file") || !strings.Contains(r.stdout, "asked by hook gate: reads need a look") {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	count := func(name string) int {
		b, _ := os.ReadFile(filepath.Join(e.workspace, name))
		return strings.Count(string(b), "x")
	}
	if count("gate.log") != 1 || count("after.log") != 0 {
		t.Fatalf("before the answer: gate %d, after %d", count("gate.log"), count("after.log"))
	}

	e.config(`{"hooks": {"pre_tool_call": [` + after + `]}}`)
	r = e.run("-c", "--approve", "all")
	if r.code != app.ExitError || !strings.Contains(r.stderr, `pre_tool_call hook "gate", which paused the run, is not registered now`) {
		t.Fatalf("without the hook: exit %d, stderr %q", r.code, r.stderr)
	}

	e.config(`{"hooks": {"pre_tool_call": [` + gate + `, ` + after + `]}}`)
	r = e.run("-c", "--approve", "call_read")
	if r.code != app.ExitOK || r.stdout != "The notes say hello.\n" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if count("gate.log") != 1 || count("after.log") != 1 {
		t.Errorf("after the answer: gate ran %d times, after %d", count("gate.log"), count("after.log"))
	}
	if got := e.toolResult(1, "call_read"); !strings.Contains(got, "hello") {
		t.Errorf("result = %q", got)
	}
}

// on_pause in the config file saves a pause too; the text output names
// the session and the calls; a bad value names the file and field.
func TestE2EOnPauseFromTheConfigFile(t *testing.T) {
	e := newE2E(t, "session_pause.json")
	e.config(`{"on_pause": "save"}`)
	r := e.run("-p", "write the files")
	if r.code != app.ExitDenied {
		t.Fatalf("exit %d", r.code)
	}
	for _, want := range []string{"Writing two files.", "Paused; saved as session ", "2 calls wait for an answer:", `call_a  bash  {"command": "echo a > a.txt"}`,
		"asked by hook approval: ", "--approve call_a (or --approve all), or --deny call_a --reason"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	e.config(`{"on_pause": "later"}`)
	if r := e.run("-p", "x"); r.code != app.ExitUsage || !strings.Contains(r.stderr, `field on_pause: got "later"; want deny or save`) {
		t.Errorf("bad on_pause: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A piped run reads a file and pauses on an edit of it; a later tackle
// approves the edit, and it is applied: the stamps of what the model read
// are kept in the session (before, the edit failed with "it has not been
// read in this session"). A file changed between the two is reported as
// changed, not as unread.
func TestE2ESavedPauseAppliesTheApprovedEdit(t *testing.T) {
	for _, changed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unchanged", true: "changed since"}[changed], func(t *testing.T) {
			t.Parallel()
			e := newE2E(t, "session_pause_edit.json")
			e.file("a.txt", "one\n")
			r := e.run("--on-pause", "save", "--output", "json", "-p", "change one to uno")
			var saved savedPause
			if err := json.Unmarshal([]byte(r.stdout), &saved); r.code != app.ExitDenied || err != nil || len(saved.Pending) != 1 || saved.Pending[0].ID != "call_edit" {
				t.Fatalf("exit %d, saved %+v (%v)\n%s", r.code, saved, err, r.stderr)
			}
			if changed {
				e.file("a.txt", "one, and more\n")
			}
			r = e.run("--resume", saved.SessionID, "--approve", "all")
			got := e.readFile("a.txt")
			result := e.toolResult(2, "call_edit")
			switch {
			case !changed && (r.code != app.ExitOK || got != "uno\n"):
				t.Errorf("the approved edit was not applied: exit %d, a.txt %q, result %q\n%s", r.code, got, result, r.stderr)
			case changed && (got != "one, and more\n" || !strings.Contains(result, "changed on disk since you last read or wrote it")):
				t.Errorf("a file changed since it was read: a.txt %q, result %q", got, result)
			}
		})
	}
}
