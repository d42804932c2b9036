package e2e

// End-to-end tests of piped runs: the answer, the prompt from stdin, tool
// calls approved or denied, hooks' retries, server errors, interrupts, the
// json and stream-json outputs, --help and --version, allow and deny rules.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestE2EPlainAnswer(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.run("-p", "what is the answer?")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if want := "The answer is **42**.\nNothing else to do.\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	reqs := e.requests()
	if len(reqs) != 1 || reqs[0].Model != "e2e-model" || !reqs[0].Stream {
		t.Fatalf("requests = %+v", reqs)
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; last.Content != "what is the answer?" {
		t.Errorf("prompt sent = %q", last.Content)
	}
	if !slices.Contains(reqs[0].Tools, "bash") || !slices.Contains(reqs[0].Tools, "read_file") {
		t.Errorf("tools offered = %v", reqs[0].Tools)
	}
}

func TestE2EPromptFromStdinAndAsContext(t *testing.T) {
	e := newE2E(t, "plain.json")
	e.stdin = "fix the failing test\n"
	if r := e.run(); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	msgs := e.requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; got != "fix the failing test" {
		t.Errorf("prompt from stdin = %q", got)
	}

	e = newE2E(t, "plain.json")
	e.stdin = "--- FAIL: TestX\n"
	if r := e.run("-p", "explain this log"); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	msgs = e.requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; !strings.HasPrefix(got, "explain this log\n\n<stdin>\n--- FAIL: TestX\n</stdin>") {
		t.Errorf("prompt with stdin context = %q", got)
	}
}

func TestE2ENoPromptIsUsageError(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.run()
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, "no prompt") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.run("--output", "yaml", "-p", "x"); r.code != app.ExitUsage {
		t.Errorf("bad --output: exit %d", r.code)
	}
	if len(e.requests()) != 0 {
		t.Errorf("a usage error reached the model")
	}
}

func TestE2EToolApprovedWithYes(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	r := e.run("--yes", "-p", "say hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if got := e.toolResult(1, "call_echo"); !strings.Contains(got, "hello-from-tool") {
		t.Errorf("tool result = %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if !strings.Contains(r.stderr, "bash  echo hello-from-tool | tee ran.txt") {
		t.Errorf("stderr does not show the tool call: %q", r.stderr)
	}
	if want := "Let me check.\n\nThe command printed its greeting.\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
}

func TestE2EToolDeniedWithoutYes(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	r := e.run("-p", "say hello")
	if r.code != app.ExitDenied {
		t.Fatalf("exit %d, want %d", r.code, app.ExitDenied)
	}
	got := e.toolResult(1, "call_echo")
	if !strings.HasPrefix(got, "This tool call was denied; it did not run.") || !strings.Contains(got, "non-interactive") {
		t.Errorf("the model was not told of the denial: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran: %v", err)
	}
	if !strings.Contains(r.stderr, "--yes") {
		t.Errorf("stderr does not say how to allow it: %q", r.stderr)
	}
}

func TestE2EYoloModeNeedsNoApproval(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	if r := e.run("--mode", "yolo", "-p", "say hello"); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if got := e.toolResult(1, "call_echo"); !strings.Contains(got, "hello-from-tool") {
		t.Errorf("tool result = %q", got)
	}
}

func TestE2EContinueWithMessagesHookRetriesOnceThenFinishes(t *testing.T) {
	e := newE2E(t, "retry_once.json")
	// A tackle-native command hook: the first turn end asks for more, the
	// second lets the turn finish.
	e.config(`{"hooks": {"on_turn_end": [{"name": "goodbye-check", "command":
	  "if [ -e seen ]; then exit 0; fi; touch seen; echo '{\"action\":\"continue_with_messages\",\"messages\":[\"Please also say goodbye.\"]}'"}]}}`)
	r := e.run("-p", "greet me")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	reqs := e.requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != chat.RoleUser || last.Content != "Please also say goodbye." {
		t.Errorf("retry message = %+v", last)
	}
	if !strings.Contains(r.stderr, "goodbye-check pushed feedback to the model (retry 1/3)") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if !strings.HasSuffix(r.stdout, "hello and goodbye\n") {
		t.Errorf("stdout = %q", r.stdout)
	}
}

func TestE2ERetryBudgetExhaustedIsCapped(t *testing.T) {
	e := newE2E(t, "never_fixed.json")
	// A Claude-Code-style Stop hook: exit 2 with the feedback on stderr.
	// Each round says something new, so only the budget stops it.
	e.config(`{"hooks": {"on_turn_end": [{"name": "strict", "command":
	  "n=$(cat rounds 2>/dev/null || echo 0); n=$((n+1)); echo $n > rounds; echo \"main.go:$n:1: still broken\" >&2; exit 2"}]}}`)
	r := e.run("--max-retries", "2", "-p", "fix it")
	if r.code != app.ExitCapped {
		t.Fatalf("exit %d, want %d", r.code, app.ExitCapped)
	}
	if n := len(e.requests()); n != 3 {
		t.Errorf("requests = %d, want 3 (the first try and 2 retries)", n)
	}
	if !strings.Contains(r.stderr, "capped") || !strings.Contains(r.stderr, "retry budget") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestE2EMalformedArgumentsGoBackToTheModel(t *testing.T) {
	e := newE2E(t, "malformed_args.json")
	r := e.run("--yes", "-p", "run something")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	got := e.toolResult(1, "call_bad")
	if !strings.Contains(got, "not a valid JSON object") || !strings.Contains(got, `echo unterminated`) {
		t.Errorf("result = %q", got)
	}
}

func TestE2EUnknownToolNamesTheValidTools(t *testing.T) {
	e := newE2E(t, "unknown_tool.json")
	r := e.run("-p", "deploy")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	got := e.toolResult(1, "call_deploy")
	for _, name := range []string{`"deploy_to_prod"`, "bash", "edit_file", "glob", "grep", "list_dir", "read_file", "write_file"} {
		if !strings.Contains(got, name) {
			t.Errorf("result %q does not mention %s", got, name)
		}
	}
}

func TestE2ERateLimitThenSuccess(t *testing.T) {
	e := newE2E(t, "rate_limited.json")
	r := e.run("-p", "hi")
	if r.code != app.ExitOK || r.stdout != "Recovered after the rate limit.\n" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if n := len(e.requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
	if !strings.Contains(r.stderr, "model request failed (429 Too Many Requests: Rate limit reached for requests); retry 1 of 4 in ") {
		t.Errorf("stderr does not mention the retry: %q", r.stderr)
	}
}

func TestE2EStreamCutMidToolCall(t *testing.T) {
	e := newE2E(t, "cut_mid_tool_call.json")
	r := e.run("--yes", "-p", "touch a file")
	if r.code != app.ExitError {
		t.Fatalf("exit %d, want %d", r.code, app.ExitError)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "must-not-exist")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the partial tool call ran: %v", err)
	}
	if !strings.Contains(r.stderr, "stream") || !strings.Contains(r.stderr, "cut") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if n := len(e.requests()); n != 1 {
		t.Errorf("requests = %d: a cut mid-reply must not be retried", n)
	}
}

func TestE2EInterruptRunsOnAbortAndExits130(t *testing.T) {
	e := newE2E(t, "stall.json")
	e.config(`{"hooks": {"on_abort": [{"name": "note", "command": "cat > aborted.json"}]}}`)
	cmd := e.command("-p", "think")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-e.srv.Stalled()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != app.ExitInterrupted {
		t.Fatalf("wait = %v, want exit %d\nstderr: %s", err, app.ExitInterrupted, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(e.workspace, "aborted.json"))
	if err != nil {
		t.Fatalf("on_abort hook did not run: %v", err)
	}
	var in struct{ Event, Reason string }
	if err := json.Unmarshal(b, &in); err != nil || in.Event != "on_abort" || !strings.Contains(in.Reason, "canceled") {
		t.Errorf("on_abort input = %s (%v)", b, err)
	}
}

func TestE2EOutputJSON(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	r := e.run("--yes", "--output", "json", "-p", "say hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	var out struct {
		Status    string `json:"status"`
		Result    string `json:"result"`
		ExitCode  int    `json:"exit_code"`
		ToolCalls []struct {
			ID, Name, Status, Result string
			Arguments                map[string]any
		} `json:"tool_calls"`
		HookDecisions []struct{ Event, Hook, Result string } `json:"hook_decisions"`
		Usage         chat.Usage                             `json:"usage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	if out.Status != "finished" || out.Result != "The command printed its greeting." || out.ExitCode != 0 {
		t.Errorf("result = %+v", out)
	}
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "bash" || out.ToolCalls[0].Status != "ok" ||
		!strings.Contains(out.ToolCalls[0].Result, "hello-from-tool") || out.ToolCalls[0].Arguments["command"] != "echo hello-from-tool | tee ran.txt" {
		t.Errorf("tool calls = %+v", out.ToolCalls)
	}
	var trace []string
	for _, d := range out.HookDecisions {
		trace = append(trace, d.Event+"/"+d.Hook+":"+d.Result)
	}
	wantTrace := []string{
		"on_prompt_submit/checks:continue",
		"pre_tool_call/approval:pause",
		"pre_tool_call/checks:continue",
		"post_tool_call/redact-secrets:continue",
		"post_tool_call/checks:continue",
		"on_turn_end/checks:finish",
	}
	if !slices.Equal(trace, wantTrace) {
		t.Errorf("hook decisions = %v, want %v", trace, wantTrace)
	}
	if out.Usage.TotalTokens == 0 {
		t.Errorf("usage = %+v", out.Usage)
	}
}

func TestE2EOutputStreamJSON(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	r := e.run("--yes", "--output", "stream-json", "-p", "say hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	var types []string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var ev struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Type == "" {
			t.Fatalf("line is not a JSON event: %q (%v)", sc.Text(), err)
		}
		if ev.Type == "text_delta" && len(types) > 0 && types[len(types)-1] == "text_delta" {
			continue
		}
		if ev.Type == "tool_call_progress" {
			// A running command's output, reported as it comes: how
			// many reports a fast command makes is up to the scheduler,
			// but each comes between its call's start and its end.
			if len(types) == 0 || types[len(types)-1] != "tool_call_started" {
				t.Errorf("tool_call_progress after %v, want it right after tool_call_started", types)
			}
			continue
		}
		types = append(types, ev.Type)
	}
	want := []string{
		"hook_decision", // on_prompt_submit: checks
		"text_delta", "usage", "assistant_message",
		"hook_decision",     // pre_tool_call: approval pauses
		"tool_call_decided", // approved by --yes at once: no paused event, no turn end
		"hook_decision",     // pre_tool_call (resumed): checks snapshots for bash
		"tool_call_started",
		"hook_decision", "hook_decision", // post_tool_call: redact-secrets, checks
		"tool_call_finished",
		"text_delta", "usage", "assistant_message",
		"hook_decision", // on_turn_end: checks (nothing changed)
		"turn_finished",
		"session", // the session the run is recorded in
	}
	if !slices.Equal(types, want) {
		t.Errorf("events =\n%v\nwant\n%v", types, want)
	}
}

func TestE2EHelpAndVersion(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.run("--help")
	if r.code != app.ExitOK {
		t.Fatalf("--help exit %d", r.code)
	}
	for _, want := range []string{"--prompt", "--output", "--yes", "--mode", "Exit codes", "OPENAI_API_KEY"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
	if r := e.run("--version"); r.code != app.ExitOK || !strings.HasPrefix(r.stdout, "tackle ") {
		t.Errorf("--version: exit %d, %q", r.code, r.stdout)
	}
}

func TestE2EAllowRulesMustCoverEveryCommand(t *testing.T) {
	// The command is `echo hello-from-tool | tee ran.txt`: allowing echo
	// alone does not allow the pipeline.
	e := newE2E(t, "bash_echo.json")
	if r := e.run("--allow", "bash(echo *)", "-p", "say hello"); r.code != app.ExitDenied {
		t.Fatalf("echo-only rule: exit %d, want %d", r.code, app.ExitDenied)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}

	e = newE2E(t, "bash_echo.json")
	if r := e.run("--allow", "bash(echo *)", "--allow", "bash(tee ran.txt)", "-p", "say hello"); r.code != app.ExitOK {
		t.Fatalf("both rules: exit %d", r.code)
	}
	if got := e.toolResult(1, "call_echo"); !strings.Contains(got, "hello-from-tool") {
		t.Errorf("tool result = %q", got)
	}
}

func TestE2EDenyWinsEvenWithYes(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	e.config(`{"deny": ["bash(tee *)"]}`)
	r := e.run("--yes", "--allow", "bash", "-p", "say hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	got := e.toolResult(1, "call_echo")
	if !strings.Contains(got, "Skipped") || !strings.Contains(got, "bash(tee *)") {
		t.Errorf("the model was not told which rule denied it: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran: %v", err)
	}
}

func TestE2EBadRuleIsUsageError(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.run("--allow", "bash(go test", "-p", "x")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, "bash(go test") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestE2EAPIKeyNeverReachesTheModel(t *testing.T) {
	e := newE2E(t, "read_env.json")
	if err := os.WriteFile(filepath.Join(e.workspace, ".env"), []byte("OPENAI_API_KEY=sk-e2e-secret-key\nDEBUG=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("--output", "json", "-p", "what is in .env?")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	got := e.toolResult(1, "call_env")
	if strings.Contains(got, "sk-e2e-secret-key") || !strings.Contains(got, "[REDACTED]") || !strings.Contains(got, "DEBUG=1") {
		t.Errorf("tool result = %q", got)
	}
	if strings.Contains(r.stdout, "sk-e2e-secret-key") {
		t.Errorf("the key is in the output: %s", r.stdout)
	}
}
