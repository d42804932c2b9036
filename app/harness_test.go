package app

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// wiredHarness is the harness tackle wires from args and env, as a run
// does (parsing, the user config, the settings; no project files), for
// tests that drive it in process.
func wiredHarness(t *testing.T, env environ, args ...string) *harness {
	t.Helper()
	stdio := Streams{Out: io.Discard, Err: io.Discard, Env: env}
	var c cli
	parser, err := newParser(&c, stdio, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	user, err := userConfig(stdio)
	if err != nil {
		t.Fatal(err)
	}
	st, err := resolve(kctx, &c, c.Deny, user, projectLayer{}, env)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHarness(context.Background(), st, stdio, func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// -p then -c -p, each a whole run (Main, as the binary runs it): the
// second run's request is byte for byte the request a single Worker doing
// both turns makes (the golden is that Worker, wired as tackle wires it).
func TestContinueSendsWhatOneProcessWould(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("..", "testdata", "e2e", "session_two_turns.json")
	env := func(srv *llmtest.Server) environ {
		return environ{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
			"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-e2e-secret-key", "TACKLE_MODEL=e2e-model"}
	}
	run := func(srv *llmtest.Server, args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"-w", ws}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: env(srv)})
		t.Logf("tackle %s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
		return code, out.String()
	}
	two := llmtest.NewServer(t, llmtest.LoadScript(t, script))
	if code, _ := run(two, "-p", "what do the notes say?"); code != ExitOK {
		t.Fatalf("first run: exit %d", code)
	}
	code, stdout := run(two, "-c", "-p", "what did I ask?")
	if code != ExitOK || stdout != "You asked about the notes; they say hello.\n" {
		t.Fatalf("-c run: exit %d, stdout %q", code, stdout)
	}
	if files, _ := filepath.Glob(filepath.Join(home, ".local", "state", "tackle", "sessions", "*", "*.jsonl")); len(files) != 1 {
		t.Errorf("session files %q, want 1: -c goes on with the same session", files)
	}

	one := llmtest.NewServer(t, llmtest.LoadScript(t, script))
	h := wiredHarness(t, env(one), "-w", ws, "-p", "what do the notes say?")
	defer h.Close()
	w := h.worker(h.newConversation(nil, nil), func(agent.Event) {})
	for _, p := range []string{"what do the notes say?", "what did I ask?"} {
		if out, err := w.Run(context.Background(), p); err != nil || out.Status != agent.StatusFinished {
			t.Fatalf("in-process run %q: %+v, %v", p, out, err)
		}
	}
	got, want := two.Requests(), one.Requests()
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("requests: %d after -c, %d in one process", len(got), len(want))
	}
	if !bytes.Equal(got[2].Raw, want[2].Raw) {
		t.Errorf("the request after -c differs from one process's:\n%s\nwant\n%s", got[2].Raw, want[2].Raw)
	}
	msgs := got[2].Messages
	if len(msgs) != 6 || msgs[3].Role != chat.RoleTool || !strings.Contains(msgs[3].Content, "hello") || msgs[5].Content != "what did I ask?" {
		t.Errorf("the request after -c = %+v", msgs)
	}
}
