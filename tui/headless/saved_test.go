package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// With Save a pause nobody here can answer ends the run as it is: nothing
// is decided, nothing is resumed; one --yes answers fully is not saved.
func TestDriveSavesAPauseItCannotAnswer(t *testing.T) {
	var stderr bytes.Buffer
	r := &scriptedRunner{}
	res := Drive(context.Background(), r, "go", nil, Answers{Save: true}, &stderr)
	if !res.Saved || res.Outcome.Status != agent.StatusPaused || len(res.Outcome.Pending) != 2 || r.decisions != nil || res.Denied != 0 {
		t.Fatalf("Drive = %+v, decisions %+v", res, r.decisions)
	}
	protected := func(c chat.ToolCall) string {
		if c.Name == "write_file" {
			return "a.go is protected"
		}
		return ""
	}
	r = &scriptedRunner{}
	if res := Drive(context.Background(), r, "go", nil, Answers{Save: true, Yes: true, HeldBack: protected}, &stderr); !res.Saved || r.decisions != nil {
		t.Errorf("a call --yes may not approve: %+v, decisions %+v", res, r.decisions)
	}
	r = &scriptedRunner{}
	if res := Drive(context.Background(), r, "go", nil, Answers{Save: true, Yes: true}, &stderr); res.Saved || len(r.decisions) != 2 || res.Outcome.Status != agent.StatusFinished {
		t.Errorf("--yes answers all: %+v, decisions %+v", res, r.decisions)
	}
}

// Continue resumes with the given answers first.
func TestContinueResumesWithTheAnswers(t *testing.T) {
	r := &scriptedRunner{}
	d := []agent.Decision{{CallID: "c1", Verdict: agent.Approve, By: ByApprove}}
	res := Continue(context.Background(), r, d, Answers{}, &bytes.Buffer{})
	if res.Err != nil || res.Outcome.Status != agent.StatusFinished || len(r.decisions) != 1 || r.decisions[0].By != ByApprove {
		t.Fatalf("Continue = %+v, decisions %+v", res, r.decisions)
	}
}

// A saved pause names its session and each pending call (id, tool,
// arguments, hook, reason) on stdout, in every format.
func TestSavedPauseNamesTheSessionAndThePendingCalls(t *testing.T) {
	r := &scriptedRunner{}
	res := Drive(context.Background(), r, "go", nil, Answers{Save: true}, &bytes.Buffer{})
	res.Session = "20261122-223000-1a2b"

	var text bytes.Buffer
	if err := NewPrinter(Text, &text, &bytes.Buffer{}).Finish(res, 3); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Paused; saved as session 20261122-223000-1a2b. 2 calls wait for an answer:",
		`  c1  bash  {"command":"make test"}`, "asked by hook approval: bash wants to run: make test",
		"  c2  write_file", "tackle --resume 20261122-223000-1a2b --approve c1 (or --approve all), or --deny c1",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := NewPrinter(JSON, &js, &bytes.Buffer{}).Finish(res, 3); err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Status    string        `json:"status"`
		SessionID string        `json:"session_id"`
		ExitCode  int           `json:"exit_code"`
		Pending   []pendingCall `json:"pending"`
	}
	if err := json.Unmarshal(js.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	if obj.Status != "paused" || obj.SessionID != res.Session || obj.ExitCode != 3 || len(obj.Pending) != 2 ||
		obj.Pending[0].ID != "c1" || obj.Pending[0].Tool != "bash" || !strings.Contains(string(obj.Pending[0].Arguments), `"make test"`) ||
		obj.Pending[0].Hook != "approval" || obj.Pending[1].Reason != "write_file wants to change a.go" {
		t.Errorf("json = %s", js.String())
	}

	var sj bytes.Buffer
	if err := NewPrinter(StreamJSON, &sj, &bytes.Buffer{}).Finish(res, 3); err != nil {
		t.Fatal(err)
	}
	var line sessionLine
	if err := json.Unmarshal(sj.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line.Type != "session" || line.SessionID != res.Session || !line.Saved || len(line.Pending) != 2 || line.Pending[1].ID != "c2" {
		t.Errorf("stream-json = %s", sj.String())
	}

	// A run that was not saved names only its session.
	js.Reset()
	NewPrinter(JSON, &js, &bytes.Buffer{}).Finish(Result{Outcome: agent.Outcome{Status: agent.StatusFinished}, Session: "s1"}, 0)
	if !strings.Contains(js.String(), `"session_id": "s1"`) || strings.Contains(js.String(), `"pending"`) {
		t.Errorf("json of a finished run = %s", js.String())
	}
}
