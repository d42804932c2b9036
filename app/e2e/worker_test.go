package e2e

// End-to-end tests of the Worker and the hook chain through the built
// binary: re-approval of changed calls, what --yes reports, results of an
// interrupted run, finished events, parallel calls and their IDs, and
// failing pre_tool_call hooks.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// formats are the piped output formats; stdout/stderr checks run on each.
var formats = []string{"text", "json", "stream-json"}

// streamEvent is one line of stream-json output.
type streamEvent struct {
	Type    string `json:"type"`
	Verdict string `json:"verdict"`
	By      string `json:"by"`
	Call    struct {
		ID        string `json:"id"`
		Arguments string `json:"arguments"`
	} `json:"call"`
	// Result is a tool result for tool_call_finished (a string for
	// hook_decision).
	Result json.RawMessage `json:"result"`
}

// content is a tool_call_finished event's result content.
func (ev streamEvent) content() string {
	var r struct{ Content string }
	json.Unmarshal(ev.Result, &r)
	return r.Content
}

func streamEvents(t *testing.T, stdout string) []streamEvent {
	t.Helper()
	var out []streamEvent
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev streamEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line is not a JSON event: %q (%v)", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

// jsonOutput is the part of --output json these tests read.
type jsonOutput struct {
	Status       string `json:"status"`
	ExitCode     int    `json:"exit_code"`
	HookFailures int    `json:"hook_failures"`
	ToolCalls    []struct {
		ID, Name, Status, Result string
		Decision                 string         `json:"decision"`
		DecidedBy                string         `json:"decided_by"`
		Arguments                map[string]any `json:"arguments"`
	} `json:"tool_calls"`
	Warnings []string `json:"warnings"`
}

func parseJSONOutput(t *testing.T, stdout string) jsonOutput {
	t.Helper()
	var out jsonOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	return out
}

// finishedOnce checks that every started call of a stream-json run has
// exactly one tool_call_finished, after its start, and that the finished
// events come in the order of the calls.
func finishedOnce(t *testing.T, evs []streamEvent, wantIDs ...string) {
	t.Helper()
	started := map[string]int{}
	var finished []string
	for _, ev := range evs {
		switch ev.Type {
		case "tool_call_started":
			started[ev.Call.ID]++
		case "tool_call_finished":
			if started[ev.Call.ID] == 0 {
				t.Errorf("%s finished without starting", ev.Call.ID)
			}
			finished = append(finished, ev.Call.ID)
		}
	}
	if !slices.Equal(finished, wantIDs) {
		t.Errorf("tool_call_finished for %v, want once each for %v", finished, wantIDs)
	}
}

func TestE2EYesSaysWhatItApproved(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t, "bash_echo.json")
			r := e.run("--yes", "--output", format, "-p", "say hello")
			if r.code != app.ExitOK {
				t.Fatalf("exit %d", r.code)
			}
			want := "tackle: approved by --yes: bash  echo hello-from-tool | tee ran.txt (asked by hook approval: "
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr does not say the call was approved by --yes: %q", r.stderr)
			}
			if strings.Contains(r.stderr, "pause (") {
				t.Errorf("stderr reports a pause for a call that ran: %q", r.stderr)
			}
			switch format {
			case "json":
				out := parseJSONOutput(t, r.stdout)
				if len(out.ToolCalls) != 1 || out.ToolCalls[0].Decision != "approve" || out.ToolCalls[0].DecidedBy != "--yes" {
					t.Errorf("tool calls = %+v", out.ToolCalls)
				}
			case "stream-json":
				var decided, startedAfter bool
				for _, ev := range streamEvents(t, r.stdout) {
					switch {
					case ev.Type == "tool_call_decided":
						decided = ev.Call.ID == "call_echo" && ev.Verdict == "approve" && ev.By == "--yes"
					case ev.Type == "tool_call_started":
						startedAfter = decided
					}
				}
				if !decided || !startedAfter {
					t.Errorf("no tool_call_decided (approve by --yes) before the call started:\n%s", r.stdout)
				}
			}
		})
	}
}

// rewriteHook is a pre_tool_call command hook that runs after the approval
// policy (priority 100) and replaces every bash command with cmd.
func rewriteHook(cmd string) string {
	out, _ := json.Marshal(map[string]any{"action": "continue", "arguments": map[string]string{"command": cmd}})
	spec, _ := json.Marshal(map[string]any{"hooks": map[string]any{"pre_tool_call": []any{map[string]any{
		"name": "rewrite", "command": "echo '" + string(out) + "'", "tools": []string{"bash"}, "priority": 200,
	}}}})
	return string(spec)
}

func TestE2EChangedCallIsApprovedAgainWithItsFinalArguments(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	e.config(rewriteHook("echo rewritten | tee rewritten.txt"))
	r := e.run("--yes", "--output", "json", "-p", "say hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	lines := strings.Count(r.stderr, "tackle: approved by --yes:")
	second := `tackle: approved by --yes: bash  echo rewritten | tee rewritten.txt (asked by hook approval: hook "rewrite" changed the arguments after they were approved; asked again:`
	if lines != 2 || !strings.Contains(r.stderr, second) {
		t.Errorf("stderr does not show the second approval of the final command: %q", r.stderr)
	}
	out := parseJSONOutput(t, r.stdout)
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].Arguments["command"] != "echo rewritten | tee rewritten.txt" {
		t.Errorf("tool calls = %+v: json must show the arguments that ran", out.ToolCalls)
	}
	if got := e.toolResult(1, "call_echo"); !strings.Contains(got, "rewritten") {
		t.Errorf("result = %q", got)
	}
}

func TestE2EChangedCallMeetsTheDenyRules(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	e.config(rewriteHook("touch pwned.txt"))
	r := e.run("--yes", "--deny", "bash(touch *)", "-p", "say hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "pwned.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the rewritten command ran past the deny rule: %v", err)
	}
	if got := e.toolResult(1, "call_echo"); !strings.Contains(got, "bash(touch *)") {
		t.Errorf("the model was not told the deny rule stopped it: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the approved original ran instead: %v", err)
	}
}

// interrupt starts tackle, waits until something in the run writes a line
// to the FIFO ready in the workspace (a hook or a tool: the point where
// the run must be interrupted), sends SIGINT and returns how it ended.
// block.fifo is there for the run to block on: nothing ever writes it.
func (e *e2e) interrupt(args ...string) result {
	e.t.Helper()
	return e.signal(syscall.SIGINT, args...)
}

// signal is interrupt with sig instead of SIGINT.
func (e *e2e) signal(sig syscall.Signal, args ...string) result {
	e.t.Helper()
	ready := filepath.Join(e.workspace, "ready.fifo")
	for _, f := range []string{ready, filepath.Join(e.workspace, "block.fifo")} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			e.t.Fatal(err)
		}
	}
	cmd := e.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	opened := make(chan []byte, 1)
	go func() {
		f, err := os.Open(ready) // blocks until the run opens it to write
		if err != nil {
			opened <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		opened <- b
	}()
	var err error
	select {
	case <-opened:
		if err := cmd.Process.Signal(sig); err != nil {
			e.t.Fatal(err)
		}
		err = <-exited
	case err = <-exited:
		// Unblock the reader, then fail: the run never got there.
		if w, werr := os.OpenFile(ready, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
			w.Close()
		}
		e.t.Fatalf("tackle ended (%v) before the run reached the point to interrupt\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	e.t.Logf("tackle %s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

const e2eKey = "sk-e2e-secret-key" // OPENAI_API_KEY of every e2e run

func TestE2EInterruptedRunRedactsEveryResultAndFinishesEveryCall(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t, "interrupt_redact.json")
			if err := os.WriteFile(filepath.Join(e.workspace, "creds.txt"), []byte("OPENAI_API_KEY="+e2eKey+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// An audit hook ordered before redaction is still running on
			// the read_file result when the run is interrupted; the bash
			// call before it has been handled by then.
			e.config(`{"hooks": {"post_tool_call": [{"name": "audit", "tools": ["read_file"], "priority": -2000000,
			  "command": "echo auditing > ready.fifo; exec cat block.fifo"}]}}`)
			r := e.interrupt("--yes", "--output", format, "-p", "read the credentials")
			if r.code != app.ExitInterrupted {
				t.Fatalf("exit %d, want %d", r.code, app.ExitInterrupted)
			}
			if strings.Contains(r.stdout, e2eKey) || strings.Contains(r.stderr, e2eKey) {
				t.Fatalf("the key reached the output of an interrupted run")
			}
			switch format {
			case "stream-json":
				evs := streamEvents(t, r.stdout)
				finishedOnce(t, evs, "call_cat", "call_read")
				for _, ev := range evs {
					if ev.Type == "tool_call_finished" && !strings.Contains(ev.content(), "OPENAI_API_KEY=[REDACTED]") {
						t.Errorf("%s finished with %q, want its redacted content", ev.Call.ID, ev.content())
					}
				}
			case "json":
				out := parseJSONOutput(t, r.stdout)
				var ids []string
				for _, c := range out.ToolCalls {
					ids = append(ids, c.ID)
					if !strings.Contains(c.Result, "[REDACTED]") {
						t.Errorf("%s result = %q", c.ID, c.Result)
					}
				}
				if out.Status != "aborted" || !slices.Equal(ids, []string{"call_cat", "call_read"}) {
					t.Errorf("status %q, tool calls %v", out.Status, ids)
				}
			}
		})
	}
}

func TestE2EInterruptedBashCallPrintingTheKeyIsRedacted(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t, "interrupt_bash.json")
			// tackle's own key, and a token it knows only by its shape.
			const ghToken = "ghp_" + "R8s2kLmN4pQ7vX1zA9bC3dE5fG6hJ0kL2mN4"
			if err := os.WriteFile(filepath.Join(e.workspace, "creds.txt"), []byte("OPENAI_API_KEY="+e2eKey+"\ngithub: "+ghToken+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.interrupt("--yes", "--output", format, "-p", "print the credentials")
			if r.code != app.ExitInterrupted {
				t.Fatalf("exit %d, want %d", r.code, app.ExitInterrupted)
			}
			for _, secret := range []string{e2eKey, ghToken} {
				if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
					t.Fatalf("%s… reached the output of an interrupted run", secret[:6])
				}
			}
			if format == "stream-json" {
				evs := streamEvents(t, r.stdout)
				finishedOnce(t, evs, "call_slow")
				for _, ev := range evs {
					if ev.Type == "tool_call_finished" && (!strings.Contains(ev.content(), "OPENAI_API_KEY=[REDACTED]") || !strings.Contains(ev.content(), "github: [REDACTED:github]")) {
						t.Errorf("result = %q, want what the command printed, redacted", ev.content())
					}
				}
			}
		})
	}
}

func TestE2EPostToolAbortFinishesEveryCall(t *testing.T) {
	e := newE2E(t, "post_abort.json")
	if err := os.WriteFile(filepath.Join(e.workspace, "creds.txt"), []byte("OPENAI_API_KEY="+e2eKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A hook ordered before redaction aborts the run on the first result;
	// the bash call after it is stopped and must still be finished.
	e.config(`{"hooks": {"post_tool_call": [{"name": "gate", "tools": ["read_file"], "priority": -2000000,
	  "command": ["echo", "{\"action\": \"abort\", \"reason\": \"credentials must not be read\"}"]}]}}`)
	r := e.run("--yes", "--output", "stream-json", "-p", "read the credentials")
	if r.code != app.ExitHookAbort {
		t.Fatalf("exit %d, want %d", r.code, app.ExitHookAbort)
	}
	if strings.Contains(r.stdout, e2eKey) || strings.Contains(r.stderr, e2eKey) {
		t.Fatalf("the key reached the output")
	}
	finishedOnce(t, streamEvents(t, r.stdout), "call_read", "call_cat")
	if !strings.Contains(r.stderr, `hook "gate"`) {
		t.Errorf("stderr does not name the aborting hook: %q", r.stderr)
	}
}

func TestE2EDuplicateToolCallIDsAreMadeUnique(t *testing.T) {
	e := newE2E(t, "dup_ids.json")
	if r := e.run("--yes", "-p", "run two commands"); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	msgs := e.requests()[1].Messages
	var ids []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	if !slices.Equal(ids, []string{"call_dup", "call_dup_2"}) {
		t.Fatalf("assistant tool call IDs sent back = %v", ids)
	}
	if got := e.toolResult(1, "call_dup"); !strings.Contains(got, "first-output") {
		t.Errorf("call_dup result = %q", got)
	}
	if got := e.toolResult(1, "call_dup_2"); !strings.Contains(got, "second-output") {
		t.Errorf("call_dup_2 result = %q", got)
	}
}

func TestE2EMaxParallelTools(t *testing.T) {
	e := newE2E(t, "parallel_order.json")
	// One at a time: each command finds the workspace as the one before
	// left it, in call order.
	if r := e.run("--yes", "--max-parallel-tools", "1", "-p", "run three commands"); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	b, err := os.ReadFile(filepath.Join(e.workspace, "order.txt"))
	if err != nil || string(b) != "a\nb\nc\n" {
		t.Errorf("order.txt = %q (%v), want the calls one after the other", b, err)
	}

	for _, bad := range [][]string{{"--max-parallel-tools", "0"}, {"--max-parallel-tools=-2"}} {
		r := e.run(append(bad, "-p", "x")...)
		if r.code != app.ExitUsage || !strings.Contains(r.stderr, "--max-parallel-tools: got ") || !strings.Contains(r.stderr, "want 1 or more") {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
	e.config(`{"max_parallel_tools": -1}`)
	if r := e.run("-p", "x"); r.code != app.ExitUsage || !strings.Contains(r.stderr, "field max_parallel_tools: got -1; want 1 or more") {
		t.Errorf("config -1: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestE2EFailingPreToolHookIsReportedAndFailsTheRun(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t, "bash_echo.json")
			e.config(`{"hooks": {"pre_tool_call": [{"name": "guard",
			  "command": "echo 'guard: cannot read policy.json' >&2; exit 1"}]}}`)
			r := e.run("--yes", "--output", format, "-p", "say hello")
			if r.code != app.ExitError {
				t.Fatalf("exit %d, want %d", r.code, app.ExitError)
			}
			if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the call ran although its hook failed: %v", err)
			}
			for _, want := range []string{`tackle: warning: pre_tool_call hook "guard" failed`, "cannot read policy.json", "1 tool call(s) skipped because a pre_tool_call hook failed"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not say %q: %q", want, r.stderr)
				}
			}
			if format == "json" {
				out := parseJSONOutput(t, r.stdout)
				if out.ExitCode != app.ExitError || out.HookFailures != 1 || len(out.Warnings) != 1 {
					t.Errorf("json = %+v", out)
				}
			}
		})
	}
}
