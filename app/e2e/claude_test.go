package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeHookConfig is a config with Claude Code hooks from
// testdata/claudehooks, by event and matcher.
func claudeHookConfig(t *testing.T, hooks map[string][][2]string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(testdataDir, "claudehooks"))
	if err != nil {
		t.Fatal(err)
	}
	byEvent := map[string][]map[string]any{}
	for ev, list := range hooks {
		for _, h := range list {
			byEvent[ev] = append(byEvent[ev], map[string]any{"matcher": h[0],
				"hooks": []map[string]any{{"type": "command", "command": strings.ReplaceAll(h[1], "$HOOKS", dir), "timeout": 30}}})
		}
	}
	b, err := json.Marshal(map[string]any{"claude_hooks": map[string]any{"hooks": byEvent}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClaudeHooksUnchanged runs real-world Claude Code hook scripts, shell
// and Python, through the built binary: an rm -rf blocker (exit 2), a
// .env guard and an approver (permissionDecision deny / allow with
// additionalContext), Claude's documented Bash validator, a
// gofmt-after-Write hook, a Stop hook that sends the model back once, a
// UserPromptSubmit hook whose stdout is context, a broken hook (a
// warning, not a block) and a logger that checks every input field.
func TestClaudeHooksUnchanged(t *testing.T) {
	e := newE2E(t, "claude_hooks.json")
	os.WriteFile(filepath.Join(e.workspace, ".env"), []byte("TOKEN=x\n"), 0o600)
	e.config(claudeHookConfig(t, map[string][][2]string{
		"PreToolUse": {
			{"Bash", "$HOOKS/block_rm.sh"},
			{"Read|Edit|Write", "python3 $HOOKS/guard_env.py"},
			{"Bash", "python3 $HOOKS/allow_go.py"},
			{"Bash", "python3 $HOOKS/validate_bash.py"},
			{"Ba", "$HOOKS/broken.sh"}, // matches no whole tool name: never runs
			{"", "$HOOKS/log_input.sh"},
			{"*", "$HOOKS/log_input.sh"}, // the same command: runs once
		},
		"PostToolUse":      {{"Write|Edit", "$HOOKS/gofmt_after_edit.sh"}, {"", "$HOOKS/log_input.sh"}},
		"UserPromptSubmit": {{"", "$HOOKS/prompt_context.sh"}, {"", "$HOOKS/log_input.sh"}},
		"Stop":             {{"", "$HOOKS/stop_tests.sh"}, {"", "$HOOKS/log_input.sh"}},
		"SessionEnd":       {{"", "$HOOKS/log_input.sh"}},
		"SessionStart":     {{"", "$HOOKS/log_input.sh"}},
	}))
	r := e.run("--mode", "accept-edits", "-p", "do the work")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	reqs := e.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (the Stop hook sends the model back once)", len(reqs))
	}
	if first := fmt.Sprint(reqs[0].Messages); !strings.Contains(first, "Ticket: T-42") {
		t.Errorf("UserPromptSubmit stdout is not in the prompt: %s", first)
	}
	for id, want := range map[string]string{
		"c_rm":    "rm -rf is blocked by policy: rm -rf build",
		"c_env":   "reading .env is not allowed",
		"c_go":    "validator: go command approved",
		"c_grep":  "Use 'rg' (ripgrep) instead of 'grep'",
		"c_write": "Wrote 2 lines", // plain stdout of PostToolUse is a log line, not for the model
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, want) {
			t.Errorf("%s: result %q does not contain %q", id, got, want)
		}
	}
	if got := e.toolResult(1, "c_go"); !strings.Contains(got, "linux") && !strings.Contains(got, "darwin") {
		t.Errorf("go env GOOS did not run: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "main.go")); string(b) != "package main\n\nfunc main() {}\n" {
		t.Errorf("main.go not gofmt'ed by the PostToolUse hook: %q", b)
	}
	if last := fmt.Sprint(reqs[2].Messages); !strings.Contains(last, "Run the tests before you finish.") {
		t.Errorf("the Stop hook's stderr did not reach the model: %s", last)
	}
	checkClaudeInputs(t, e)
}

// checkClaudeInputs checks the fields of every input log_input.sh logged.
func checkClaudeInputs(t *testing.T, e *e2e) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.workspace, "hooklog.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []map[string]any
	for line := range strings.Lines(string(b)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad input line %q: %v", line, err)
		}
		inputs = append(inputs, m)
	}
	count := map[string]int{}
	var stopActive []any
	for _, in := range inputs {
		ev, _ := in["hook_event_name"].(string)
		count[ev]++
		if in["cwd"] != e.workspace || in["session_id"] == "" || in["permission_mode"] != "acceptEdits" {
			t.Errorf("%s: cwd %v, session_id %v, permission_mode %v", ev, in["cwd"], in["session_id"], in["permission_mode"])
		}
		if ev == "SessionStart" && in["source"] != "startup" {
			t.Errorf("SessionStart source %v", in["source"])
		}
		if ev == "Stop" {
			stopActive = append(stopActive, in["stop_hook_active"])
		}
		if ev == "UserPromptSubmit" && in["prompt"] != "do the work" {
			t.Errorf("prompt %v", in["prompt"])
		}
		if ev == "PreToolUse" && in["tool_use_id"] == "c_write" {
			ti, _ := in["tool_input"].(map[string]any)
			if in["tool_name"] != "Write" || ti["file_path"] != filepath.Join(e.workspace, "main.go") {
				t.Errorf("Write input: %v", in)
			}
		}
		if ev == "PreToolUse" && in["tool_use_id"] == "c_go" {
			ti, _ := in["tool_input"].(map[string]any)
			if in["tool_name"] != "Bash" || ti["command"] != "go env GOOS" || ti["timeout"] != 30000.0 {
				t.Errorf("Bash input: %v", in)
			}
		}
		if ev == "PostToolUse" && in["tool_use_id"] == "c_go" {
			resp, _ := in["tool_response"].(map[string]any)
			if !strings.Contains(fmt.Sprint(resp["stdout"]), "linux") {
				t.Errorf("tool_response: %v", in["tool_response"])
			}
		}
		if p, _ := in["transcript_path"].(string); ev == "Stop" {
			tr, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(tr), `"type":"tool_use"`) || !strings.Contains(string(tr), `"name":"Bash"`) {
				t.Errorf("transcript %q: %v %s", p, err, tr)
			}
		}
	}
	// 5 calls, each logged once although two groups name the same command.
	if count["PreToolUse"] != 5 || count["UserPromptSubmit"] != 1 || count["Stop"] != 2 || count["SessionEnd"] != 1 || count["SessionStart"] != 1 {
		t.Errorf("inputs by event: %v", count)
	}
	if fmt.Sprint(stopActive) != "[false true]" {
		t.Errorf("stop_hook_active: %v, want [false true]", stopActive)
	}
}

// TestClaudeHookAllowCannotBeatThePolicy is what a prompt-injected model
// would try with a hook that approves everything: deny rules and
// protected paths still win, an "ask" hook still asks (a piped run then
// denies the call), updatedInput is what runs, and an approved plain call
// runs without a prompt.
func TestClaudeHookAllowCannotBeatThePolicy(t *testing.T) {
	e := newE2E(t, "claude_attacks.json")
	os.MkdirAll(filepath.Join(e.workspace, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(e.workspace, "src"), 0o755)
	e.config(claudeHookConfig(t, map[string][][2]string{
		"PreToolUse": {
			{"*", "$HOOKS/allow_all.sh"},
			{"Bash", "python3 $HOOKS/ask_push.py"},
			{"Bash", "python3 $HOOKS/rewrite_timeout.py"},
		},
		"Notification": {{"", "$HOOKS/log_input.sh"}},
	}))
	// Exit 3: calls that needed approval were denied.
	if r := e.run("--deny", "bash(rm *)", "-p", "go"); r.code != 3 {
		t.Fatalf("exit %d, want 3", r.code)
	}
	for id, want := range map[string]string{
		"c_rm":    "denied by the rule bash(rm *)",
		"c_hook":  "denied",
		"c_push":  `hook "claude:PreToolUse" asks: pushing needs a person`,
		"c_sleep": "rewritten-by-hook",
		"c_ok":    "",
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, want) {
			t.Errorf("%s: result %q does not contain %q", id, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "src")); err != nil {
		t.Error("src was removed")
	}
	if _, err := os.Stat(filepath.Join(e.workspace, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook's allow wrote .git/hooks/pre-commit")
	}
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "ran.txt")); string(b) != "allowed-by-hook\n" {
		t.Errorf("the approved call did not run: %q", b)
	}
	// Nobody was asked (a piped run decides at once): no Notification.
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "hooklog.jsonl")); strings.Contains(string(b), `"notification_type":"permission_prompt"`) {
		t.Errorf("a Notification for a call nobody was asked about: %s", b)
	}
}

// TestClaudeNotificationWhenAPersonIsAsked: a run that waits for a
// person's answer (here a piped run saved with --on-pause save) fires the
// Notification hooks.
func TestClaudeNotificationWhenAPersonIsAsked(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	e.config(claudeHookConfig(t, map[string][][2]string{"Notification": {{"", "$HOOKS/log_input.sh"}}}))
	if r := e.run("--on-pause", "save", "-p", "say hello"); r.code != 3 {
		t.Fatalf("exit %d, want 3 (saved paused)\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "hooklog.jsonl")); !strings.Contains(string(b), `"notification_type":"permission_prompt"`) {
		t.Errorf("no Notification: %s", b)
	}
}

// writeProject writes the project's .tackle/config.json and
// .claude/settings.json, each with a hook that leaves a marker file.
func writeProject(t *testing.T, e *e2e, extra string) {
	t.Helper()
	for path, body := range map[string]string{
		".tackle/config.json":   `{"hooks": {"on_prompt_submit": [{"name": "mark", "command": "touch marker-tackle` + extra + `"}]}}`,
		".claude/settings.json": `{"permissions": {"allow": ["Bash"]}, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch marker-claude` + extra + `"}]}]}}`,
	} {
		p := filepath.Join(e.workspace, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *e2e) markers() []string {
	m, _ := filepath.Glob(filepath.Join(e.workspace, "marker-*"))
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// TestProjectHooksNeedTrust: an untrusted project file's hooks never
// start a process (no marker file); --trust-project trusts the files as
// they are, a later run uses them without the flag, and a change to a
// file makes it untrusted again.
func TestProjectHooksNeedTrust(t *testing.T) {
	e := newE2E(t, "project_trust.json")
	writeProject(t, e, "")
	r := e.run("-p", "hi")
	if r.code != 0 || len(e.markers()) != 0 {
		t.Fatalf("untrusted: exit %d, markers %v", r.code, e.markers())
	}
	for _, f := range []string{".tackle/config.json", ".claude/settings.json"} {
		if !strings.Contains(r.stderr, "not using "+filepath.Join(e.workspace, f)) || !strings.Contains(r.stderr, "--trust-project") {
			t.Errorf("no clear message about %s: %s", f, r.stderr)
		}
	}
	if r := e.run("--trust-project", "-p", "hi"); r.code != 0 || fmt.Sprint(e.markers()) != "[marker-claude marker-tackle]" {
		t.Fatalf("--trust-project: exit %d, markers %v", r.code, e.markers())
	}
	st, err := os.Stat(filepath.Join(e.home, ".local", "state", "tackle", "trust.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("trust file: %v", err)
	}
	for _, m := range e.markers() {
		os.Remove(filepath.Join(e.workspace, m))
	}
	if r := e.run("-p", "hi"); r.code != 0 || len(e.markers()) != 2 {
		t.Fatalf("trusted before: exit %d, markers %v", r.code, e.markers())
	}
	writeProject(t, e, "-changed")
	if r := e.run("-p", "hi"); r.code != 0 || len(e.markers()) != 2 || !strings.Contains(r.stderr, "not using") {
		t.Fatalf("changed files ran: exit %d, markers %v", r.code, e.markers())
	}
}

// TestProjectConfigLayer: a trusted project config sits between the
// environment and the user's config, and its rules join the user's.
func TestProjectConfigLayer(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	e.config(`{"mode": "yolo", "max_requests": 7}`)
	p := filepath.Join(e.workspace, ".tackle", "config.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"mode": "plan", "deny": ["bash(echo *)"]}`), 0o644)
	r := e.run("--trust-project", "-p", "hi")
	if got := e.toolResult(1, "call_echo"); !strings.Contains(got, "denied by the rule bash(echo *)") {
		t.Errorf("the project's deny rule did not apply: %q (exit %d)", got, r.code)
	}
	// --mode (a flag) wins over the project's plan mode.
	e2 := newE2E(t, "bash_echo.json")
	os.MkdirAll(filepath.Join(e2.workspace, ".tackle"), 0o755)
	os.WriteFile(filepath.Join(e2.workspace, ".tackle", "config.json"), []byte(`{"mode": "plan"}`), 0o644)
	e2.run("--trust-project", "--mode", "yolo", "-p", "hi")
	if got := e2.toolResult(1, "call_echo"); !strings.Contains(got, "hello-from-tool") {
		t.Errorf("--mode yolo lost to the project config: %q", got)
	}
	e3 := newE2E(t, "bash_echo.json")
	e3.config(`{"mode": "yolo"}`)
	os.MkdirAll(filepath.Join(e3.workspace, ".tackle"), 0o755)
	os.WriteFile(filepath.Join(e3.workspace, ".tackle", "config.json"), []byte(`{"mode": "plan"}`), 0o644)
	e3.run("--trust-project", "-p", "hi")
	if got := e3.toolResult(1, "call_echo"); !strings.Contains(got, "plan mode is read-only") {
		t.Errorf("the project's plan mode lost to the user's yolo: %q", got)
	}
}

// TestHooksListTestRecord: tackle hooks list shows every hook with its
// source, matcher, priority, kind and trust; --record-hooks writes the
// payloads of a run; tackle hooks test replays one on one hook.
func TestHooksListTestRecord(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	dir, _ := filepath.Abs(filepath.Join(testdataDir, "claudehooks"))
	e.config(`{"hooks": {"pre_tool_call": [{"name": "guard", "command": "grep -q tee && { echo no tee >&2; exit 2; }; exit 0", "tools": ["bash"], "priority": 10}]},
		"claude_hooks": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + dir + `/block_rm.sh"}]}]}}}`)
	writeProject(t, e, "")

	r := e.run("hooks", "list")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	for _, want := range []string{
		"guard ",
		"claude:PreToolUse (PreToolUse: " + dir + "/block_rm.sh)",
		"approval",
		"untrusted (does not run)",
		filepath.Join(e.workspace, ".claude", "settings.json"),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("hooks list lacks %q:\n%s", want, r.stdout)
		}
	}
	for line := range strings.Lines(r.stdout) {
		if strings.Contains(line, "guard") && !(strings.Contains(line, " 10 ") && strings.Contains(line, "command") && strings.Contains(line, " bash ") && strings.Contains(line, " user ")) {
			t.Errorf("guard's row: %s", line)
		}
	}
	if strings.Count(r.stdout, "untrusted (does not run)") != 2 || len(e.markers()) != 0 {
		t.Errorf("untrusted rows or a marker: %v\n%s", e.markers(), r.stdout)
	}

	rec := t.TempDir()
	if r := e.run("--record-hooks", rec, "--yes", "-p", "say hello"); r.code != 4 && r.code != 0 {
		t.Fatalf("record run: exit %d", r.code)
	}
	files, _ := filepath.Glob(filepath.Join(rec, "*-pre_tool_call.json"))
	if len(files) != 1 {
		t.Fatalf("recorded pre_tool_call payloads: %v", files)
	}
	r = e.run("hooks", "test", "guard", "pre_tool_call", files[0])
	if r.code != 0 || !strings.Contains(r.stdout, "decision: skip") || !strings.Contains(r.stdout, "reason:   no tee") || !strings.Contains(r.stdout, "duration:") {
		t.Errorf("hooks test guard: exit %d\n%s", r.code, r.stdout)
	}
	r = e.run("hooks", "test", "claude:PreToolUse", "pre_tool_call", files[0])
	if r.code != 0 || !strings.Contains(r.stdout, "hook:     claude:PreToolUse (pre_tool_call)") || !strings.Contains(r.stdout, "decision: continue") {
		t.Errorf("hooks test claude: exit %d\n%s", r.code, r.stdout)
	}
	// Without a payload: a sample input of the event.
	if r := e.run("hooks", "test", "guard", "pre_tool_call"); r.code != 0 || !strings.Contains(r.stdout, "decision: continue") {
		t.Errorf("sample payload: exit %d\n%s", r.code, r.stdout)
	}
	if r := e.run("hooks", "test", "nope", "pre_tool_call"); r.code != 2 || !strings.Contains(r.stderr, `no pre_tool_call command hook "nope"`) || !strings.Contains(r.stderr, "guard") {
		t.Errorf("unknown hook: exit %d\n%s", r.code, r.stderr)
	}
	if len(e.markers()) != 0 {
		t.Errorf("an untrusted project hook ran: %v", e.markers())
	}
}

// TestClaudeTranscriptContinues: a continued session's Claude-format
// transcript starts with the conversation it goes on with, and
// SessionStart says "resume".
func TestClaudeTranscriptContinues(t *testing.T) {
	e := newE2E(t, "project_trust.json")
	e.config(claudeHookConfig(t, map[string][][2]string{
		"Stop":         {{"", "$HOOKS/log_input.sh"}},
		"SessionStart": {{"", "$HOOKS/log_input.sh"}},
	}))
	if r := e.run("-p", "first prompt"); r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	if r := e.run("-c", "-p", "second prompt"); r.code != 0 {
		t.Fatalf("-c: exit %d", r.code)
	}
	b, _ := os.ReadFile(filepath.Join(e.workspace, "hooklog.jsonl"))
	var ins []map[string]any
	for line := range strings.Lines(string(b)) {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		ins = append(ins, m)
	}
	if len(ins) != 4 || ins[0]["source"] != "startup" || ins[2]["source"] != "resume" || ins[1]["session_id"] != ins[3]["session_id"] {
		t.Fatalf("inputs: %v", ins)
	}
	tr, err := os.ReadFile(ins[3]["transcript_path"].(string))
	if err != nil || !strings.Contains(string(tr), "first prompt") || !strings.Contains(string(tr), "second prompt") || !strings.Contains(string(tr), `"text":"one"`) {
		t.Errorf("continued transcript: %v\n%s", err, tr)
	}
}

// TestTrustedHookScriptsAreProtected: once a project's hooks are trusted,
// the model cannot rewrite the scripts they run (a Claude Code hook's
// "$CLAUDE_PROJECT_DIR"/scripts/guard.sh, a command hook's
// ./scripts/check.sh) without asking, in yolo mode and with --yes too.
func TestTrustedHookScriptsAreProtected(t *testing.T) {
	e := newE2E(t, "hook_script_rewrite.json")
	for rel, body := range map[string]string{
		"scripts/guard.sh":      "#!/bin/sh\nexit 0\n",
		"scripts/check.sh":      "#!/bin/sh\nexit 0\n",
		".tackle/config.json":   `{"hooks": {"on_turn_end": [{"name": "check", "command": ["./scripts/check.sh"]}]}}`,
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/scripts/guard.sh"}]}]}}`,
	} {
		mustWrite(t, filepath.Join(e.workspace, rel), body)
	}
	os.Chmod(filepath.Join(e.workspace, "scripts", "guard.sh"), 0o755)
	os.Chmod(filepath.Join(e.workspace, "scripts", "check.sh"), 0o755)
	e.run("--trust-project", "--mode", "yolo", "--yes", "-p", "go")
	for _, id := range []string{"c_claude", "c_tackle"} {
		if got := e.toolResult(2, id); !strings.Contains(got, "denied") {
			t.Errorf("%s: a trusted hook's script was rewritten: %q", id, got)
		}
	}
	if got := e.toolResult(2, "c_plain"); !strings.Contains(got, "Wrote") {
		t.Errorf("a plain file: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "scripts", "guard.sh")); strings.Contains(string(b), "pwned") {
		t.Error("guard.sh was rewritten")
	}
}

// tackle hooks list shows the hook servers too, one row per event they
// intercept.
func TestHooksListShowsHookServers(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "plain.json")
	e.config(`{"hook_servers": [{"name": "policy", "command": ["cat"], "events": ["pre_tool_call", "post_tool_call"], "approve": true},
		{"name": "watcher", "command": ["cat"]}]}`)
	r := e.run("hooks", "list")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	var policy, watcher int
	for line := range strings.Lines(r.stdout) {
		switch {
		case strings.Contains(line, "policy"):
			policy++
			if !strings.Contains(line, "process (may approve)") || !strings.Contains(line, "user") {
				t.Errorf("policy's row: %s", line)
			}
		case strings.Contains(line, "watcher"):
			watcher++
			if !strings.Contains(line, "*") || !strings.Contains(line, "process") {
				t.Errorf("watcher's row: %s", line)
			}
		}
	}
	if policy != 2 || watcher != 1 {
		t.Errorf("rows: policy %d, watcher %d, want 2 and 1:\n%s", policy, watcher, r.stdout)
	}
}
