package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestInterruptedReplyAcrossContinue: a reply interrupted in one process
// is in its session as far as it went, and the note saying where it
// stopped, which no message carried yet, goes with the first prompt of a
// run that continues the session (-c).
func TestInterruptedReplyAcrossContinue(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.NewScript(
		llmtest.Stall(llmtest.Response{Content: "first part, then more", ChunkSize: 11}, 2),
		llmtest.Text("ok"),
	))
	env := environ{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-test", "TACKLE_MODEL=m", "TACKLE_SANDBOX=off"}

	h := wiredHarness(t, env, "-w", ws)
	cv := h.newConversation(sessionStore(env), func(err error) { t.Error(err) })
	ctx, cancel := context.WithCancel(context.Background())
	w := h.worker(cv, func(e agent.Event) {
		if d, ok := e.(agent.TextDelta); ok && d.Text == "first part," {
			cancel()
		}
	})
	if _, err := w.Run(ctx, "explain"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if err := cv.close(); err != nil {
		t.Fatal(err)
	}
	h.Close()

	var out, errOut bytes.Buffer
	if code := Main([]string{"-w", ws, "-c", "-p", "go on"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: env}); code != ExitOK {
		t.Fatalf("-c: exit %d\n%s", code, errOut.String())
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if n := len(msgs); n != 4 || msgs[2].Role != chat.RoleAssistant || msgs[2].Content != "first part," ||
		msgs[3].Content != "[Note from tackle: the user interrupted your previous reply here: “first part,”; the rest of it was not sent.]\n\ngo on" {
		t.Errorf("the request after -c: %+v", msgs)
	}
}
