//go:build unix

package e2e

// End-to-end tests of picoclaw's process hooks: the built tackle with a
// picoclaw_hooks block in its config, running picoclaw's published
// example hook (testdata/picoclaw) and variants of it.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// pythonExe is the Python interpreter's own path (not a shim that needs
// the test's HOME); the test is skipped without one.
func pythonExe(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 is not installed")
	}
	return strings.TrimSpace(string(out))
}

func picoFixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(testdataDir, "picoclaw", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// guideConfig is the config of picoclaw's hook guide, as its Quick Start
// gives it, under picoclaw_hooks, for script (the example's path) and
// its log file.
func guideConfig(py, script, logFile string) string {
	return `{"picoclaw_hooks": {
    "enabled": true,
    "processes": {
      "py_review_gate": {
        "enabled": true,
        "priority": 100,
        "transport": "stdio",
        "command": [` + jsonString(py) + `, ` + jsonString(script) + `],
        "observe": ["agent.tool.exec_start", "agent.tool.exec_end", "agent.tool.exec_skipped"],
        "intercept": ["before_tool", "approve_tool"],
        "env": {"PICOCLAW_HOOK_LOG_FILE": ` + jsonString(logFile) + `}
      }
    }
  }}`
}

// hookLog is what the example hook logged: each request and notification
// it received ("in") by method, and the kinds of the runtime events.
func hookLog(t *testing.T, path string) (methods, kinds []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook's log: %v", err)
	}
	for l := range strings.Lines(string(b)) {
		var e struct {
			Direction string         `json:"direction"`
			Method    string         `json:"method"`
			Params    map[string]any `json:"params"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if e.Direction != "in" {
			continue
		}
		methods = append(methods, e.Method)
		if e.Method == "hook.runtime_event" {
			kind, _ := e.Params["kind"].(string)
			kinds = append(kinds, kind)
		}
	}
	return methods, kinds
}

// picoclaw's published example hook runs unchanged from its own config
// block: it receives hook.hello, before_tool, approve_tool, after_tool
// and the runtime events it observes, with their kind. Its
// "approved": true is no objection: with --yes the command runs; without
// it, the piped run still denies the command that needs approval.
func TestE2EPicoclawGuideExample(t *testing.T) {
	py := pythonExe(t)
	script := picoFixture(t, "review_gate.py")
	for _, yes := range []bool{true, false} {
		e := newE2E(t, "picoclaw_example.json")
		logFile := filepath.Join(t.TempDir(), "picoclaw-hook-review-gate.log")
		e.config(guideConfig(py, script, logFile))
		args := []string{"-p", "write hello"}
		if yes {
			args = append([]string{"--yes"}, args...)
		}
		r := e.run(args...)
		methods, kinds := hookLog(t, logFile)
		if want := []string{"hook.hello", "hook.before_tool", "hook.approve_tool"}; len(methods) < 3 || !slices.Equal(methods[:3], want) {
			t.Errorf("yes=%v: the hook received %q, want %q first", yes, methods, want)
		}
		_, err := os.Stat(filepath.Join(e.workspace, "out.txt"))
		if yes {
			if r.code != 0 || err != nil {
				t.Errorf("--yes: exit %d, out.txt: %v", r.code, err)
			}
			if !slices.Contains(methods, "hook.after_tool") || !slices.Equal(kinds, []string{"agent.tool.exec_start", "agent.tool.exec_end"}) {
				t.Errorf("--yes: methods %q, kinds %q", methods, kinds)
			}
		} else {
			if r.code != app.ExitDenied || err == nil {
				t.Errorf("without --yes: exit %d (want %d), out.txt: %v (want none): approved: true approved the call", r.code, app.ExitDenied, err)
			}
			if slices.Contains(methods, "hook.after_tool") || !slices.Equal(kinds, []string{"agent.tool.exec_skipped"}) {
				t.Errorf("without --yes: methods %q, kinds %q", methods, kinds)
			}
		}
		if strings.Contains(r.stderr, "warning") || strings.Contains(r.stderr, "picoclaw hook") {
			t.Errorf("stderr: %s", r.stderr)
		}
	}
}

// The example made to refuse: deny_tool and approved: false stop those
// calls even with --yes, and the model reads why; the call neither
// refuses runs.
func TestE2EPicoclawRefusals(t *testing.T) {
	py := pythonExe(t)
	e := newE2E(t, "picoclaw_deny.json")
	e.config(`{"picoclaw_hooks": {"processes": {"gate": {"enabled": true, "command": [` + jsonString(py) + `, ` + jsonString(picoFixture(t, "deny_gate.py")) + `],
		"intercept": ["before_tool", "approve_tool"]}}}}`)
	r := e.run("--yes", "-p", "clean up and push")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	for id, want := range map[string]string{
		"call_rm":   `Skipped by hook "picoclaw:gate"; the tool did not run. Reason: Tool execution denied by hook: rm -rf is not allowed here`,
		"call_push": `Skipped by hook "picoclaw:gate.approve_tool"; the tool did not run. Reason: Tool execution denied by approval hook: pushing needs a review first`,
	} {
		if got := e.toolResult(1, id); got != want {
			t.Errorf("%s: the model read %q, want %q", id, got, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "ok.txt")); err != nil || string(b) != "fine\n" {
		t.Errorf("the call nobody refused did not run: %q %v", b, err)
	}
}

// A call a Claude Code hook allowed and a picoclaw hook then changed is
// put to the user again (here: denied, as a piped run without --yes
// does); the call it did not change runs on the Claude hook's allow.
func TestE2EPicoclawModifyVoidsAnApproval(t *testing.T) {
	py := pythonExe(t)
	e := newE2E(t, "picoclaw_modify.json")
	allow := `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'`
	e.config(`{"claude_hooks": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` + jsonString(allow) + `}]}]}},
		"picoclaw_hooks": {"processes": {"s": {"enabled": true, "command": [` + jsonString(py) + `, ` + jsonString(picoFixture(t, "scripted.py")) + `],
		"intercept": ["before_tool"]}}}}`)
	r := e.run("-p", "write both")
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d", r.code, app.ExitDenied)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("a.txt: %q %v (the Claude hook's allow should let it run)", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "b.txt")); err == nil {
		t.Error("b.txt was written: the changed call ran on an approval given to the call before the change")
	}
	if got := e.toolResult(1, "call_b"); !strings.Contains(got, "denied") {
		t.Errorf("call_b: %q", got)
	}
}

// A project's picoclaw hooks (its .tackle/config.json) run only once the
// project is trusted.
func TestE2EPicoclawFromTrustedProject(t *testing.T) {
	py := pythonExe(t)
	for _, trust := range []bool{false, true} {
		e := newE2E(t, "picoclaw_deny.json")
		mustWrite(t, filepath.Join(e.workspace, ".tackle", "config.json"), `{"picoclaw_hooks": {"processes": {"gate": {"enabled": true,
			"command": [`+jsonString(py)+`, `+jsonString(picoFixture(t, "deny_gate.py"))+`], "intercept": ["before_tool", "approve_tool"]}}}}`)
		args := []string{"--yes", "-p", "clean up and push"}
		if trust {
			args = append([]string{"--trust-project"}, args...)
		}
		r := e.run(args...)
		denied := strings.Contains(e.toolResult(1, "call_rm"), "Tool execution denied by hook: rm -rf is not allowed here")
		if denied != trust {
			t.Errorf("trusted=%v: the project's hook denied rm: %v (exit %d)", trust, denied, r.code)
		}
		if !trust && !strings.Contains(r.stderr, "not using "+filepath.Join(e.workspace, ".tackle", "config.json")) {
			t.Errorf("untrusted: stderr %q", r.stderr)
		}
	}
}

// tackle hooks list shows a picoclaw hook's tackle hooks: the stage, the
// event and priority it runs at, and what it observes.
func TestE2EPicoclawHooksList(t *testing.T) {
	e := newE2E(t, "plain.json")
	e.config(guideConfig("python3", "/tmp/review_gate.py", "/tmp/x.log"))
	r := e.run("hooks", "list")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	want := map[string][]string{
		"picoclaw:py_review_gate (before_tool)":                                                               {"pre_tool_call", " 60 ", "picoclaw", "user"},
		"picoclaw:py_review_gate (after_tool)":                                                                {"post_tool_call", " 60 "},
		"picoclaw:py_review_gate.approve_tool (approve_tool)":                                                 {"pre_tool_call", " 90 "},
		"picoclaw:py_review_gate (observe agent.tool.exec_start,agent.tool.exec_end,agent.tool.exec_skipped)": {"(events)"},
	}
	for name, parts := range want {
		found := false
		for line := range strings.Lines(r.stdout) {
			if strings.Contains(line, name) {
				found = true
				for _, p := range parts {
					if !strings.Contains(line, p) {
						t.Errorf("row %q lacks %q", line, p)
					}
				}
			}
		}
		if !found {
			t.Errorf("no row %q:\n%s", name, r.stdout)
		}
	}
}
