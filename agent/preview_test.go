package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools"
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
