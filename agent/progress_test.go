package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestSecurityLiveOutputIsRedacted: a bash command's output reaches the
// event stream while it runs, redacted as its result is (a token only a
// pattern knows, a private key block whose BEGIN line is no longer among
// the lines shown, the API key), and bounded to its last lines.
func TestSecurityLiveOutputIsRedacted(t *testing.T) {
	const apiKey = "sk-e2e-secret-key-0123456789"
	token := "ghp_" + strings.Repeat("a1B2", 9)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "OPENAI_API_KEY=" + apiKey}
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg := tools.NewRegistry(ws, tools.WithEnv(env))
	r, err := redact.New(append(tools.SecretValues(env), apiKey), redact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	gates := t.TempDir()
	for _, g := range []string{"g1", "g2"} {
		if err := syscall.Mkfifo(filepath.Join(gates, g), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The key block's BEGIN line and body go out in one write; its END
	// line comes after the first gate.
	block := "-----BEGIN RSA PRIVATE KEY-----\n"
	for i := range 30 {
		block += fmt.Sprintf("MIIEpAIBAAKCAQEA%d\n", i)
	}
	// The API key is printed in the shell's own words ($OPENAI_API_KEY
	// is not in the command's environment): the redactor alone knows it.
	command := fmt.Sprintf(`echo "token %s"; echo "key %s"; printf '%%s' '%s'; read _ < %s; echo '-----END RSA PRIVATE KEY-----'; for i in $(seq 1 30); do echo "line $i"; done; printf 'x%%.0s' $(seq 1 2000); echo; read _ < %s; echo done`,
		token, apiKey, block, filepath.Join(gates, "g1"), filepath.Join(gates, "g2"))
	args, _ := json.Marshal(tools.BashArgs{Command: command})

	progress := make(chan agent.ToolCallProgress, 1024)
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "bash", string(args))),
		llmtest.Text("Done."),
	), func(c *agent.Config) {
		c.Tools = reg
		c.Redact = r.Redact
		next := c.OnEvent
		c.OnEvent = func(e agent.Event) {
			next(e)
			if p, ok := e.(agent.ToolCallProgress); ok {
				progress <- p
			}
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := h.worker.Run(context.Background(), "run it")
		done <- err
	}()
	var got agent.ToolCallProgress
	waitFor := func(what string, cond func(string) bool) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for !cond(got.Output) {
			select {
			case got = <-progress:
			case <-timeout:
				t.Fatalf("no progress showed %s; the last: %q", what, got.Output)
			}
		}
	}
	open := func(gate string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(gates, gate), []byte("go\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Cut to its last lines first, the body would show without the
	// BEGIN line that the pattern needs.
	waitFor("the key block", func(s string) bool { return strings.Contains(s, "[REDACTED:private_key]") })
	if want := "token [REDACTED:github]\nkey [REDACTED]\n[REDACTED:private_key]"; got.Output != want {
		t.Errorf("progress %q, want %q", got.Output, want)
	}
	if got.Call.ID != "call_1" {
		t.Errorf("progress of %q", got.Call.ID)
	}
	open("g1")
	waitFor("the long line", func(s string) bool { return strings.Contains(s, "xxxx") })
	lines := strings.Split(strings.TrimSuffix(got.Output, "\n"), "\n")
	if len(lines) != agent.ProgressLines || lines[0] != "line 12" {
		t.Errorf("%d lines from %q, want the last %d: %q", len(lines), lines[0], agent.ProgressLines, got.Output)
	}
	last := lines[len(lines)-1]
	if want := strings.Repeat("x", agent.ProgressLineBytes) + "… (1488 more bytes)"; last != want {
		t.Errorf("the long line: %q", last)
	}
	open("g2")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(progress)
	all := []string{got.Output}
	for p := range progress {
		all = append(all, p.Output)
	}
	for _, ev := range h.events.all {
		if p, ok := ev.(agent.ToolCallProgress); ok {
			all = append(all, p.Output)
		}
	}
	shown := false
	for _, out := range all {
		for _, secret := range []string{token, apiKey, "MIIEpAIBAAKCAQEA"} {
			if strings.Contains(out, secret) {
				t.Errorf("progress shows %q: %q", secret, out)
			}
		}
		shown = shown || strings.Contains(out, "[REDACTED:private_key]")
	}
	if !shown {
		t.Errorf("no progress shows the key block redacted: %q", all)
	}

	// Every progress event comes between the call's start and its result.
	var order []string
	for _, ev := range h.events.all {
		switch ev.(type) {
		case agent.ToolCallStarted:
			order = append(order, "started")
		case agent.ToolCallProgress:
			if order[len(order)-1] != "progress" {
				order = append(order, "progress")
			}
		case agent.ToolCallFinished:
			order = append(order, "finished")
		}
	}
	if strings.Join(order, " ") != "started progress finished" {
		t.Errorf("events: %q", order)
	}
	if res := toolMessage(t, h.request(t, 1), "call_1"); !strings.Contains(res.Content, "done") {
		t.Errorf("the result: %q", res.Content)
	}
}

// A progress event's message is redacted too (an MCP server's).
func TestProgressMessageIsRedacted(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	r, err := redact.New(nil, redact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "say", `{}`)),
		llmtest.Text("Done."),
	), func(c *agent.Config) {
		c.Tools = sayTools{msg: "pushing with " + token}
		c.Redact = r.Redact
	})
	if _, err := h.worker.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, ev := range h.events.all {
		if p, ok := ev.(agent.ToolCallProgress); ok {
			msgs = append(msgs, p.Message)
		}
	}
	if len(msgs) != 1 || msgs[0] != "pushing with [REDACTED:github]" {
		t.Errorf("progress messages %q", msgs)
	}
}

// sayTools is a toolbox whose "say" reports msg as its progress.
type sayTools struct{ msg string }

func (sayTools) Specs() []chat.ToolSpec {
	return []chat.ToolSpec{{Name: "say", Description: "Say.", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (s sayTools) Run(ctx context.Context, _ chat.ToolCall) (chat.ToolResult, error) {
	report, _ := tools.ProgressReporter(ctx)
	report(tools.Progress{Message: s.msg})
	return chat.ToolResult{Status: chat.StatusOK, Content: "said"}, nil
}
