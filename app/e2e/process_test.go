//go:build unix

package e2e

// End-to-end tests of process hooks: the built tackle with a hook server
// (the test server of hooks/process) configured, against the scripted
// model server.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// hookServerBin builds the test hook server once, next to tackle.
var hookServerBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(tackleBin), "hookserver")
	out, err := exec.Command("go", "build", "-o", bin, module+"/hooks/process/testdata/hookserver").CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

func hookServer(t *testing.T) string {
	t.Helper()
	bin, err := hookServerBin()
	if err != nil {
		t.Fatalf("building the test hook server: %v", err)
	}
	return bin
}

// serverConfig is a config with one hook server, "guard", running the test
// server with env.
func serverConfig(t *testing.T, extra string, env map[string]string) string {
	t.Helper()
	spec := map[string]any{"name": "guard", "command": []string{hookServer(t)}, "env": env}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if extra != "" {
		s = s[:len(s)-1] + "," + extra + "}"
	}
	return `{"hook_servers": [` + s + `]}`
}

// A hook server approves what default mode would ask about, but deny
// rules and protected paths still win; it answers a call itself, adds
// context to results, pushes a retry at turn end, observes every event
// and leaves no process behind.
func TestE2EHookServer(t *testing.T) {
	e := newE2E(t, "hook_server.json")
	if err := os.MkdirAll(filepath.Join(e.workspace, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	record, childFile := filepath.Join(dir, "record"), filepath.Join(dir, "child")
	e.config(serverConfig(t, `"approve": true, "priority": -10`, map[string]string{
		"HOOKSERVER_LOG": record, "HOOKSERVER_CHILD": childFile,
		"HOOKSERVER_DEFAULT_PRE": "approve", "HOOKSERVER_POST_CONTEXT": "checked by the guard",
	}))
	r := e.run("--deny", "bash(rm *)", "-p", "tidy up")
	if r.code != app.ExitDenied {
		t.Fatalf("exit %d, want %d (the protected write is denied in a piped run)", r.code, app.ExitDenied)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "out.txt")); err != nil || string(b) != "approved\n" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}
	for id, want := range map[string]string{
		"call_ok":      "Hook context (guard): checked by the guard",
		"call_rm":      "denied by the rule bash(rm *)",
		"call_git":     "denied",
		"call_virtual": "virtual contents\n\nHook context (guard): checked by the guard",
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, want) {
			t.Errorf("%s result = %q, want it to contain %q", id, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the protected file was written")
	}
	// The turn-end retry reached the model.
	reqs := e.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if last := reqs[2].Messages[len(reqs[2].Messages)-1]; last.Content != "Also run the tests." {
		t.Errorf("last message of request 3 = %+v", last)
	}

	// Every kind of event was observed, in order, and shutdown came last.
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var types []string
	for _, l := range lines {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Type string `json:"type"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Method == "hook.event" && !slices.Contains(types, m.Params.Type) {
			types = append(types, m.Params.Type)
		}
	}
	for _, want := range []string{"text_delta", "assistant_message", "hook_decision", "tool_call_started", "tool_call_finished", "usage", "retry_pushed", "turn_finished"} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s event observed; observed %v", want, types)
		}
	}
	if !strings.Contains(lines[len(lines)-1], `"method":"hook.shutdown"`) {
		t.Errorf("last line received: %s", lines[len(lines)-1])
	}
	// The server's own child was killed with its process group.
	cb, err := os.ReadFile(childFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(cb)))
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); err == nil && !strings.Contains(string(stat), ") Z") {
		t.Errorf("the hook server's child %d outlived tackle: %s", child, stat)
	}
	// Its stderr went to its log under the state directory.
	if _, err := os.Stat(filepath.Join(e.home, ".local", "state", "tackle", "hooks", "guard.log")); err != nil {
		t.Errorf("no log file: %v", err)
	}
}

func TestE2EHookServerProblems(t *testing.T) {
	// A program that does not exist is a usage error naming it.
	e := newE2E(t, "plain.json")
	e.config(`{"hook_servers": [{"name": "guard", "command": ["no-such-hook-server"]}]}`)
	r := e.run("-p", "hi")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, `hook_servers[0] "guard": command: program "no-such-hook-server" is not in $PATH`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if len(e.requests()) != 0 {
		t.Error("the model was asked")
	}
	// So is an approving server ordered after the approval policy.
	e.config(serverConfig(t, `"approve": true, "priority": 100`, nil))
	if r := e.run("-p", "hi"); r.code != app.ExitUsage || !strings.Contains(r.stderr, `"approve" needs a priority below the approval policy's (100)`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	// A server that fails its handshake is reported by name and not used.
	e.config(serverConfig(t, "", map[string]string{"HOOKSERVER_HELLO": "exit"}))
	r = e.run("-p", "hi")
	if r.code != app.ExitOK || !strings.Contains(r.stderr, `process hook server "guard" is not used: handshake: the server exited (exit status 4): hookserver: cannot start: config missing`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
