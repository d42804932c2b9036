package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

// agentEvent is a line of stream-json as the tests read it.
type agentEvent struct {
	Type  string `json:"type"`
	Agent struct {
		ID, Parent, Type string
	} `json:"agent"`
	Call chat.ToolCall `json:"call"`
	// Result is a tool call's result ({"status", "content"}) or a hook
	// decision's ("continue").
	Result  json.RawMessage `json:"result"`
	Outcome struct {
		Status string
	} `json:"outcome"`
	Todos []struct {
		Content, Status string
	} `json:"todos"`
	// Status is a tool call's result's status.
	Status string `json:"-"`
}

// agentEvents reads stream-json output, failing on a line that is not
// an event with an agent.
func agentEvents(t *testing.T, stdout string) []agentEvent {
	t.Helper()
	var out []agentEvent
	for line := range strings.Lines(stdout) {
		var e agentEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stream-json line %q: %v", line, err)
		}
		var res struct{ Status string }
		if json.Unmarshal(e.Result, &res) == nil {
			e.Status = res.Status
		}
		if e.Type != "session" && e.Agent.ID == "" {
			t.Errorf("an event names no agent: %s", line)
		}
		out = append(out, e)
	}
	return out
}

// conversation is the server's requests of the conversation whose first
// user message contains marker.
func conversation(srv *llmtest.Server, marker string) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == chat.RoleUser {
				if strings.Contains(m.Content, marker) {
					out = append(out, r)
				}
				break
			}
		}
	}
	return out
}

func resultIn(t *testing.T, r llmtest.Request, callID string) string {
	t.Helper()
	for _, m := range r.Messages {
		if m.Role == chat.RoleTool && m.ToolCallID == callID {
			return m.Content
		}
	}
	t.Fatalf("no result for %s in %+v", callID, r.Messages)
	return ""
}

// TestE2ECommandHookExit2BlocksASubagentsCall: a command hook that exits
// 2 for a subagent's call (its input names the agent and its parent)
// blocks that call, and only it: the subagent reads the hook's reason,
// the parent's own call of the same tool runs, and the task call itself
// went through the same hook as the main agent's.
func TestE2ECommandHookExit2BlocksASubagentsCall(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "subagent_hook_block.json")
	mustWrite(t, filepath.Join(e.workspace, "notes.txt"), "the notes\n")
	log := filepath.Join(t.TempDir(), "inputs.jsonl")
	e.config(`{"hooks": {"pre_tool_call": [{"name": "no-subagent-reads", "env": {"LOG": "` + log + `"},
		"command": "input=$(cat); printf '%s\\n' \"$input\" >> \"$LOG\"; case \"$input\" in *'\"parent\":\"main\"'*) echo 'subagents may not read files' >&2; exit 2;; esac"}]}}`)
	r := e.runBounded(time.Minute, "--output", "stream-json", "-p", "read the notes through a subagent")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}

	child := conversation(e.srv, "CHILD-READ")
	if len(child) != 2 {
		t.Fatalf("the subagent made %d requests", len(child))
	}
	if got := resultIn(t, child[1], "c_read"); !strings.Contains(got, `Skipped by hook "no-subagent-reads"`) || !strings.Contains(got, "subagents may not read files") {
		t.Errorf("the subagent's read: %q", got)
	}
	main := e.requests()[len(e.requests())-1]
	if got := resultIn(t, main, "p_read"); got != "the notes" && !strings.Contains(got, "the notes") {
		t.Errorf("the parent's own read: %q", got)
	}
	if got := resultIn(t, main, "call_task"); got != "The hook blocked my read." {
		t.Errorf("the task's result: %q", got)
	}

	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]string{} // call → the agent its hook input named
	for line := range strings.Lines(string(b)) {
		var in struct {
			Agent    map[string]string   `json:"agent"`
			ToolCall struct{ ID string } `json:"tool_call"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("hook input %q: %v", line, err)
		}
		agents[in.ToolCall.ID] = in.Agent["id"] + "/" + in.Agent["parent"] + "/" + in.Agent["type"]
	}
	want := map[string]string{"call_task": "main//", "p_read": "main//", "c_read": "call_task/main/general"}
	for id, a := range want {
		if agents[id] != a {
			t.Errorf("the hook's input for %s named agent %q, want %q (all: %v)", id, agents[id], a, agents)
		}
	}

	evs := agentEvents(t, r.stdout)
	blocked := slices.ContainsFunc(evs, func(e agentEvent) bool {
		return e.Type == "tool_call_finished" && e.Call.ID == "c_read" && e.Agent.ID == "call_task" && e.Agent.Parent == "main" && e.Status == "skipped"
	})
	if !blocked {
		t.Errorf("stream-json has no skipped tool_call_finished of the subagent:\n%s", r.stdout)
	}
}

// TestE2EHookRewritesTheTaskCall: a pre_tool_call hook that rewrites the
// task call's prompt and model changes what the subagent gets.
func TestE2EHookRewritesTheTaskCall(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "subagent_rewrite.json")
	e.config(`{"hooks": {"pre_tool_call": [{"name": "steer", "tools": ["task"],
		"command": "cat >/dev/null; echo '{\"action\": \"continue\", \"arguments\": {\"description\": \"survey\", \"prompt\": \"REWRITTEN-BY-HOOK: look at main.go only\", \"model\": \"small-model\"}}'"}]}}`)
	r := e.runBounded(time.Minute, "-p", "survey the code")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	child := conversation(e.srv, "REWRITTEN-BY-HOOK")
	if len(child) != 1 {
		t.Fatalf("the subagent's requests: %d (all: %d)", len(child), len(e.requests()))
	}
	if child[0].Model != "small-model" {
		t.Errorf("the subagent used model %q", child[0].Model)
	}
	if len(conversation(e.srv, "ORIGINAL-PROMPT")) != 0 {
		t.Error("a subagent got the model's own prompt")
	}
	if got := resultIn(t, e.requests()[len(e.requests())-1], "call_task"); got != "I got the hook's prompt." {
		t.Errorf("the task's result: %q", got)
	}
}

// TestE2ETwoSubagentsRunInParallel: two task calls of one reply run at
// once. Each subagent's reply awaits the other's request (llmtest's
// await): run one after the other, the first would wait forever and the
// run would be killed. Their events interleave in stream-json, each
// naming its subagent.
func TestE2ETwoSubagentsRunInParallel(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "subagent_parallel.json")
	r := e.runBounded(time.Minute, "--output", "stream-json", "-p", "find the parser and the printer")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	main := e.requests()[len(e.requests())-1]
	if a, b := resultIn(t, main, "t_alpha"), resultIn(t, main, "t_beta"); a != "alpha found the parser" || b != "beta found the printer" {
		t.Errorf("results %q, %q", a, b)
	}
	// Both subagents asked before either answered: each request came
	// before the other's reply.
	var order []string
	for _, ev := range agentEvents(t, r.stdout) {
		if ev.Agent.Parent == "main" && (ev.Type == "usage" || ev.Type == "turn_finished") {
			order = append(order, ev.Agent.ID+" "+ev.Type)
		}
	}
	if len(order) != 4 {
		t.Fatalf("subagent events %v", order)
	}
	if !slices.Contains(order, "t_alpha turn_finished") || !slices.Contains(order, "t_beta turn_finished") {
		t.Errorf("subagent events %v", order)
	}
}

// TestE2ESubagentWriteAsksLikeTheParents: a subagent that may write (a
// custom agent naming write_file) asks for its write as the main agent
// would: a piped run denies it (nobody can approve) or approves it with
// --yes, and plan mode skips it.
func TestE2ESubagentWriteAsksLikeTheParents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		status string
		code   int
		want   string
	}{
		{"default", nil, "denied", app.ExitDenied, "nobody can approve this call"},
		{"yes", []string{"--yes"}, "ok", 0, "Wrote"},
		{"plan", []string{"--mode", "plan", "--yes"}, "skipped", 0, "plan mode is read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newE2E(t, "subagent_write.json")
			mustWrite(t, filepath.Join(e.home, "tackle", "agents", "writer.md"), "---\ndescription: Writes files.\ntools: read_file, write_file\n---\nWrite what you are asked to.\n")
			r := e.runBounded(time.Minute, append(tc.args, "--output", "stream-json", "-p", "have a subagent write out.txt")...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d", r.code, tc.code)
			}
			child := conversation(e.srv, "CHILD-WRITE")
			if len(child) != 2 {
				t.Fatalf("the subagent made %d requests", len(child))
			}
			if got := resultIn(t, child[1], "c_write"); !strings.Contains(got, tc.want) {
				t.Errorf("the subagent's write: %q, want %q in it", got, tc.want)
			}
			_, err := os.Stat(filepath.Join(e.workspace, "out.txt"))
			if written := err == nil; written != (tc.status == "ok") {
				t.Errorf("out.txt written: %v", written)
			}
			finished := slices.ContainsFunc(agentEvents(t, r.stdout), func(ev agentEvent) bool {
				return ev.Type == "tool_call_finished" && ev.Call.ID == "c_write" && ev.Agent.ID == "call_task" && ev.Agent.Type == "writer" && ev.Status == tc.status
			})
			if !finished {
				t.Errorf("no tool_call_finished of the subagent's write with status %s:\n%s", tc.status, r.stdout)
			}
			if tc.name == "default" && !strings.Contains(r.stderr, "tackle: denied write_file") {
				t.Errorf("stderr does not say the write was denied:\n%s", r.stderr)
			}
		})
	}
}

// TestE2ESubagentCancelledWithTheParent: interrupted while a subagent
// waits for its model, tackle stops the subagent with the run: its
// request is abandoned, its run ends aborted, and tackle exits 130.
func TestE2ESubagentCancelledWithTheParent(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "subagent_cancel.json")
	cmd := e.command("--output", "stream-json", "-p", "think")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// The subagent's request is held by the server: it has started when
	// its first event (the task call's start is the parent's) arrives
	// and the server has its request.
	var out []string
	for line := range lines {
		out = append(out, line)
		if strings.Contains(line, `"type":"tool_call_started"`) && strings.Contains(line, `"call_task"`) {
			break
		}
	}
	if err := e.srv.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	if len(conversation(e.srv, "CHILD-HOLD")) != 1 {
		t.Fatalf("the subagent's request did not come: %+v", e.requests())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for line := range lines {
		out = append(out, line)
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != app.ExitInterrupted {
		t.Fatalf("tackle ended with %v, want exit %d\n%s", err, app.ExitInterrupted, stderr.String())
	}
	var childEnd, parentEnd string
	for _, ev := range agentEvents(t, strings.Join(out, "\n")+"\n") {
		if ev.Type != "turn_finished" {
			continue
		}
		if ev.Agent.ID == "call_task" {
			childEnd = ev.Outcome.Status
		} else {
			parentEnd = ev.Outcome.Status
		}
	}
	if childEnd != "aborted" || parentEnd != "aborted" {
		t.Errorf("the subagent's run ended %q, the parent's %q; want both aborted:\n%s", childEnd, parentEnd, strings.Join(out, "\n"))
	}
	if n := len(e.requests()); n != 2 {
		t.Errorf("%d requests: something went on after the interrupt", n)
	}
}

// TestE2ETodoInStreamJSON: each todo call's plan is a todo_updated event
// of stream-json, between the call's start and its end.
func TestE2ETodoInStreamJSON(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "todo_plan.json")
	e.srv.Release() // the last reply holds only for the terminal test
	r := e.runBounded(time.Minute, "--output", "stream-json", "-p", "fix the parser")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	var seq []string
	var plans [][]string
	for _, ev := range agentEvents(t, r.stdout) {
		switch ev.Type {
		case "tool_call_started", "tool_call_finished":
			seq = append(seq, ev.Type+" "+ev.Call.ID)
		case "todo_updated":
			seq = append(seq, "todo_updated")
			var p []string
			for _, td := range ev.Todos {
				p = append(p, td.Status+": "+td.Content)
			}
			plans = append(plans, p)
		}
	}
	want := []string{"tool_call_started p_plan1", "todo_updated", "tool_call_finished p_plan1", "tool_call_started p_plan2", "todo_updated", "tool_call_finished p_plan2"}
	if !slices.Equal(seq, want) {
		t.Errorf("events %v, want %v", seq, want)
	}
	if len(plans) != 2 || !slices.Equal(plans[1], []string{"completed: read the code", "completed: fix the parser bug", "in_progress: run the tests"}) {
		t.Errorf("plans %q", plans)
	}
}

// TestE2ETodoPinnedInTheUI: in the terminal, the plan is pinned above the
// editor and follows the model's updates while the turn runs.
func TestE2ETodoPinnedInTheUI(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "todo_plan.json")
	s := e.startTUI()
	s.waitFor("Ask tackle")
	s.typeText("fix the parser")
	s.keys("Enter")
	screen := s.waitFor("Plan  2/3 done")
	rows := strings.Split(screen, "\n")
	plan := slices.IndexFunc(rows, func(l string) bool { return strings.HasPrefix(l, "Plan  2/3 done") })
	wantRows := []string{"✓ read the code", "✓ fix the parser bug", "▸ run the tests"}
	for i, w := range wantRows {
		if plan+1+i >= len(rows) || strings.TrimSpace(rows[plan+1+i]) != w {
			t.Fatalf("the plan's rows are not %q:\n%s", wantRows, screen)
		}
	}
	if !strings.HasPrefix(rows[plan+4], "───") || !strings.Contains(rows[plan+5], "›") {
		t.Errorf("the plan is not pinned right above the editor:\n%s", screen)
	}
	// The turn ends with a step still in progress: the plan stays.
	e.srv.Release()
	s.waitUntil("the turn's end", func(screen string) bool {
		return strings.Contains(screen, "Tests next.") && !strings.Contains(screen, "esc to interrupt")
	})
	if screen := s.capture(false); !strings.Contains(screen, "Plan  2/3 done") {
		t.Errorf("an open plan went with the turn:\n%s", screen)
	}
}

// TestE2ESubagentAsksInTheUI: in the terminal, a subagent's write asks in
// the approval dialog, named by its task, its calls show under the task
// line, and the answer goes to the subagent.
func TestE2ESubagentAsksInTheUI(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "subagent_write.json")
	mustWrite(t, filepath.Join(e.home, "tackle", "agents", "writer.md"), "---\ndescription: Writes files.\ntools: [read_file, write_file]\n---\nWrite what you are asked to.\n")
	s := e.startTUI()
	s.waitFor("Ask tackle")
	s.typeText("have a subagent write out.txt")
	s.keys("Enter")
	screen := s.waitFor("Allow write_file?")
	if !strings.Contains(screen, "asked by subagent writer: write a file") || !strings.Contains(screen, "written by the subagent") {
		t.Fatalf("the dialog does not name the subagent or show the write:\n%s", screen)
	}
	s.keys("y")
	screen = s.waitFor("Done.")
	if !strings.Contains(screen, "task  writer: write a file") || !strings.Contains(screen, "1 tool call (ctrl+o to expand)") {
		t.Errorf("the task's line:\n%s", screen)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "out.txt")); err != nil || string(b) != "written by the subagent\n" {
		t.Errorf("out.txt: %q %v", b, err)
	}
}
