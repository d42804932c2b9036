package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestPendingCallsCarryTheToolsPreview: a paused call comes with what
// its tool says it would do, in the outcome and in the paused event.
func TestPendingCallsCarryTheToolsPreview(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tools.NewRegistry(ws)
	// The model has read the file: the write can run.
	if res, err := reg.Run(context.Background(), chat.ToolCall{ID: "call_0", Name: tools.ReadFile, Arguments: `{"path":"notes.txt"}`}); err != nil || res.Status != chat.StatusOK {
		t.Fatal(res, err)
	}
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(
			llmtest.Call("call_1", tools.WriteFile, `{"path":"notes.txt","content":"one\nthree\n"}`),
			llmtest.Call("call_2", tools.Bash, `{"command":"echo hi","timeout_ms":1000}`),
		),
		llmtest.Text("done"),
	), func(c *agent.Config) { c.Tools = reg })
	h.hooks.PreToolCall(pauseAll("gate"))

	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 2 {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	w, b := out.Pending[0].Preview, out.Pending[1].Preview
	if w == nil || w.Change == nil || w.Change.Old != "one\ntwo\n" || w.Change.New != "one\nthree\n" {
		t.Errorf("write_file preview = %+v", w)
	}
	if b == nil || b.Command == nil || b.Command.Line != "echo hi" || b.Command.Timeout.Milliseconds() != 1000 {
		t.Errorf("bash preview = %+v", b)
	}
	var paused *agent.PausedEvent
	for _, e := range h.events.all {
		if p, ok := e.(agent.PausedEvent); ok {
			paused = &p
		}
	}
	if paused == nil || len(paused.Pending) != 2 || paused.Pending[0].Preview != w {
		t.Errorf("the paused event does not carry the previews: %+v", paused)
	}
}

// TestNoPreviewWithoutAPreviewer: a Toolbox that cannot preview gives
// pending calls no preview.
func TestNoPreviewWithoutAPreviewer(t *testing.T) {
	h := newHarness(t, llmtest.NewScript(llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"x"}`))), nil)
	h.hooks.PreToolCall(pauseAll("gate"))
	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || len(out.Pending) != 1 || out.Pending[0].Preview != nil {
		t.Fatalf("Run = %+v, %v", out, err)
	}
}

// TestACallThatWouldFailIsNotAsked: a call its tool will refuse as it
// stands (a write over a file the model never read, an edit whose
// old_string is not in the file) is answered with the tool's own error at
// once, before anyone is asked; only the calls that can run wait for the
// user. When every call of a reply would fail, the run does not pause at
// all and the model reads why each failed. Nothing was written.
func TestACallThatWouldFailIsNotAsked(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"unread.txt": "keep me\n", "read.txt": "alpha\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tools.NewRegistry(ws)
	if res, err := reg.Run(context.Background(), chat.ToolCall{ID: "call_0", Name: tools.ReadFile, Arguments: `{"path":"read.txt"}`}); err != nil || res.Status != chat.StatusOK {
		t.Fatal(res, err)
	}
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(
			llmtest.Call("call_1", tools.WriteFile, `{"path":"unread.txt","content":"sixty new lines\n"}`),
			llmtest.Call("call_2", tools.EditFile, `{"path":"read.txt","old_string":"beta","new_string":"gamma"}`),
			llmtest.Call("call_3", tools.Bash, `{"command":"true"}`),
		),
		llmtest.ToolCalls(llmtest.Call("call_4", tools.WriteFile, `{"path":"unread.txt","content":"again\n"}`)),
		llmtest.Text("done"),
	), func(c *agent.Config) { c.Tools = reg })
	h.hooks.PreToolCall(pauseAll("gate"))

	out, err := h.worker.Run(context.Background(), "go")
	if err != nil || out.Status != agent.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Call.ID != "call_3" {
		t.Fatalf("Run = %+v, %v; want a pause on the bash call alone", out, err)
	}
	out, err = h.worker.Resume(context.Background(), []agent.Decision{{CallID: "call_3", Verdict: agent.Deny}})
	if err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Resume = %+v, %v; want the run to finish without another pause", out, err)
	}
	second := h.request(t, 1)
	if m := toolMessage(t, second, "call_1"); !strings.Contains(m.Content, "has not been read") {
		t.Errorf("the write's result = %q", m.Content)
	}
	if m := toolMessage(t, second, "call_2"); !strings.Contains(m.Content, "old_string was not found") {
		t.Errorf("the edit's result = %q", m.Content)
	}
	if m := toolMessage(t, h.request(t, 2), "call_4"); !strings.Contains(m.Content, "has not been read") {
		t.Errorf("the second write's result = %q", m.Content)
	}
	paused := 0
	for _, e := range h.events.all {
		if _, ok := e.(agent.PausedEvent); ok {
			paused++
		}
	}
	if paused != 1 {
		t.Errorf("%d pauses; want 1 (for the bash call)", paused)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "unread.txt")); string(b) != "keep me\n" {
		t.Errorf("unread.txt = %q", b)
	}
}
