package app

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

// run runs Main with args, stdin empty (not a terminal), in env.
func runMain(t *testing.T, env environ, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: env})
	return code, out.String(), errOut.String()
}

// TestSubcommandHelpShowsItsOwnFlags: tackle sessions --help shows the
// command and the few flags it reads, not a run's forty again (it was 117
// lines); tackle --help still lists every flag.
func TestSubcommandHelpShowsItsOwnFlags(t *testing.T) {
	env := environ{"HOME=" + t.TempDir()}
	for _, args := range [][]string{{"sessions", "--help"}, {"permissions", "revoke", "--help"}, {"hooks", "test", "--help"}, {"completion", "--help"}} {
		code, out, _ := runMain(t, env, args...)
		lines := strings.Count(out, "\n")
		if code != ExitOK || lines > 30 || !strings.Contains(out, "--workspace") || strings.Contains(out, "--reasoning-effort") || !strings.Contains(out, "tackle --help") {
			t.Errorf("tackle %s: exit %d, %d lines:\n%s", strings.Join(args, " "), code, lines, out)
		}
	}
	if first, _, _ := strings.Cut(mustOut(t, env, "sessions", "--help"), "\n"); first != "Usage: tackle sessions [flags]" {
		t.Errorf("first line %q", first)
	}
	_, out, _ := runMain(t, env, "--help")
	for _, want := range []string{"--reasoning-effort", "--dangerously-skip-protection", `tackle [flags] ["first message"]`, "tackle completion bash|zsh|fish", `tackle "explain main.go"`} {
		if !strings.Contains(out, want) {
			t.Errorf("tackle --help lacks %q", want)
		}
	}
}

func mustOut(t *testing.T, env environ, args ...string) string {
	t.Helper()
	_, out, _ := runMain(t, env, args...)
	return out
}

// TestPromptArgument: words after the flags are the prompt; without a
// terminal they run as -p does (the UI's case is e2e's
// TestE2ETUIPromptArgumentAndResumeLine); with -p too, it is a usage
// error.
func TestPromptArgument(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("Hello to you.")))
	home := t.TempDir()
	env := environ{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-test", "TACKLE_SANDBOX=off"}
	code, out, errOut := runMain(t, env, "-w", t.TempDir(), "say", "hello")
	if code != ExitOK || out != "Hello to you.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := srv.Requests()[0].Messages; got[len(got)-1].Content != "say hello" {
		t.Errorf("the prompt sent = %q", got[len(got)-1].Content)
	}
	if code, _, errOut := runMain(t, env, "-p", "one", "two"); code != ExitUsage || !strings.Contains(errOut, "a prompt is given twice") {
		t.Errorf("-p and an argument: exit %d, %q", code, errOut)
	}
}

// TestWelcomeHookCountMatchesHooksList: the UI's welcome block and
// /status count the hooks tackle hooks list shows (it counted each
// built-in check's four internal hooks, 6 where the list has 3).
func TestWelcomeHookCountMatchesHooksList(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	cfg := `{"hooks": {"pre_tool_call": [{"name": "no-push", "command": ["true"]}], "on_turn_end": [{"name": "tests", "command": ["true"]}]}}`
	if err := os.MkdirAll(home+"/tackle", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home+"/tackle/config.json", []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := environ{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "OPENAI_API_KEY=sk-test", "TACKLE_SANDBOX=off"}
	code, out, errOut := runMain(t, env, "-w", ws, "hooks", "list", "-o", "json")
	if code != ExitOK {
		t.Fatalf("hooks list: exit %d: %s", code, errOut)
	}
	var rows []hookRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	h := wiredHarness(t, env, "-w", ws)
	defer h.Close()
	a := about(h.st, h, &uiConversations{h: h}, env)
	n := 0
	for _, l := range a.Hooks {
		_, names, _ := strings.Cut(l, ": ")
		n += len(strings.Split(names, ", "))
	}
	if n != len(rows) || n != 5 {
		t.Errorf("the welcome counts %d hooks (%q); tackle hooks list shows %d:\n%s", n, a.Hooks, len(rows), out)
	}
}
