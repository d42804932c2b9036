//go:build unix

package e2e

// End-to-end tests of Claude Code's permissions: the rules of a
// project's (trusted) .claude/settings.json and of the user's
// ~/.claude/settings.json applied by the built tackle.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

const claudeSecret = "hunter2-the-password"

// claudePermissionsProject writes a workspace with a secret and a Claude
// Code settings file denying what the user denied.
func claudePermissionsProject(t *testing.T, e *e2e) {
	t.Helper()
	mustWrite(t, filepath.Join(e.workspace, "my_secret.txt"), claudeSecret+"\n")
	mustWrite(t, filepath.Join(e.workspace, "notes.txt"), "notes\n")
	mustWrite(t, filepath.Join(e.workspace, ".claude", "settings.json"), `{"permissions": {
  "deny": ["Read(**/*secret*)", "Bash(cat:*)", "Bash(git push:*)"],
  "allow": ["WebSearch", "Bash(git * main)"]
}}`)
}

// A trusted .claude/settings.json denies reading *secret* files (with
// read_file, and in a grep of the workspace), cat and git push, even with
// --yes; the rules it cannot translate are warnings naming them;
// untrusted, it applies nothing.
func TestE2EClaudePermissionsDeny(t *testing.T) {
	e := newE2E(t, "claude_permissions.json")
	claudePermissionsProject(t, e)
	r := e.run("--trust-project", "--yes", "-p", "look around")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	for id, want := range map[string]string{
		"c_read": "denied by the rule read_file(**/*secret*)",
		"c_cat":  "denied by the rule bash(cat *)",
		"c_push": "denied by the rule bash(git push *)",
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	for _, req := range e.requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, claudeSecret) {
				t.Fatalf("the secret reached the model: %q", m.Content)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "ok.txt")); err != nil || string(b) != "fine\n" {
		t.Errorf("the call no rule denies did not run: %q %v", b, err)
	}
	settings := filepath.Join(e.workspace, ".claude", "settings.json")
	for _, want := range []string{
		settings + ": permissions.allow[0] WebSearch: not applied: tackle has no WebSearch tool",
		settings + ": permissions.allow[1] Bash(git * main): not applied: the * in",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no warning %q:\n%s", want, r.stderr)
		}
	}

	// tackle permissions lists them with their source.
	r = e.run("permissions")
	for _, want := range []string{
		"Rules from Claude Code settings",
		"deny  read_file(**/*secret*)  " + settings + ": permissions.deny[0] Read(**/*secret*)",
		"deny  bash(git push *)        " + settings + ": permissions.deny[2] Bash(git push:*)",
		settings + ": permissions.allow[0] WebSearch: not applied",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("tackle permissions lacks %q:\n%s", want, r.stdout)
		}
	}

	// Untrusted, the file applies nothing (and says so).
	e2 := newE2E(t, "claude_permissions.json")
	claudePermissionsProject(t, e2)
	r = e2.run("--yes", "-p", "look around")
	if !strings.Contains(r.stderr, "not using "+filepath.Join(e2.workspace, ".claude", "settings.json")) || !strings.Contains(e2.toolResult(1, "c_read"), claudeSecret) {
		t.Errorf("untrusted: %q / %q", r.stderr, e2.toolResult(1, "c_read"))
	}
	if r := e2.run("permissions"); !strings.Contains(r.stdout, filepath.Join(e2.workspace, ".claude", "settings.json")+" is not trusted: its rules do not apply") {
		t.Errorf("tackle permissions, untrusted: %s", r.stdout)
	}
}

// An ask rule asks in yolo mode, and so does a Claude Code hook's ask (in
// the older decision form): a piped run without --yes denies both; the
// call neither covers runs.
func TestE2EClaudeAsk(t *testing.T) {
	e := newE2E(t, "claude_ask.json")
	hook := `c=$(jq -r .tool_input.command); case "$c" in *hooked*) echo '{"decision": "ask", "reason": "check this first"}';; esac`
	e.config(`{"mode": "yolo", "claude_hooks": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` + jsonString(hook) + `}]}]}}}`)
	mustWrite(t, filepath.Join(e.workspace, ".claude", "settings.local.json"), `{"permissions": {"ask": ["Bash(npm publish:*)"]}}`)
	r := e.run("--trust-project", "-p", "publish")
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d", r.code, app.ExitDenied)
	}
	for id, want := range map[string]string{
		"c_pub":  "the rule ask bash(npm publish *) covers it",
		"c_hook": `hook "claude:PreToolUse" asks: check this first`,
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, "denied") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want a denial saying %q", id, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "hooked.txt")); err == nil {
		t.Error("the call the hook asked about ran")
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ok.txt")); err != nil {
		t.Errorf("yolo did not run the other call: %v", err)
	}
}

// The user's own ~/.claude/settings.json, when claude_hooks.user is set:
// its deny rules apply, its defaultMode sets the mode where no tackle
// config does, and a project's local defaultMode wins over it.
func TestE2EClaudeUserPermissions(t *testing.T) {
	e := newE2E(t, "claude_permissions.json")
	mustWrite(t, filepath.Join(e.workspace, "my_secret.txt"), claudeSecret+"\n")
	mustWrite(t, filepath.Join(e.workspace, "notes.txt"), "notes\n")
	mustWrite(t, filepath.Join(e.home, ".claude", "settings.json"), `{"permissions": {"deny": ["Read(./my_secret.txt)"], "defaultMode": "plan"}}`)
	e.config(`{"claude_hooks": {"user": true}}`)
	r := e.run("-p", "look around")
	if got := e.toolResult(1, "c_read"); !strings.Contains(got, "denied by the rule read_file(my_secret.txt)") {
		t.Errorf("c_read: %q", got)
	}
	if got := e.toolResult(1, "c_ok"); !strings.Contains(got, "plan mode is read-only") {
		t.Errorf("defaultMode plan: c_ok %q (exit %d)", got, r.code)
	}
	// The project's settings.local.json says bypassPermissions: it wins
	// over the user's plan, and a flag over both.
	e2 := newE2E(t, "claude_permissions.json")
	mustWrite(t, filepath.Join(e2.home, ".claude", "settings.json"), `{"permissions": {"defaultMode": "plan"}}`)
	mustWrite(t, filepath.Join(e2.workspace, ".claude", "settings.local.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	e2.config(`{"claude_hooks": {"user": true}}`)
	e2.run("--trust-project", "-p", "look around")
	if _, err := os.Stat(filepath.Join(e2.workspace, "ok.txt")); err != nil {
		t.Errorf("the project's bypassPermissions (yolo) did not apply: %v", err)
	}
	e3 := newE2E(t, "claude_permissions.json")
	mustWrite(t, filepath.Join(e3.workspace, ".claude", "settings.local.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	e3.run("--trust-project", "--mode", "plan", "-p", "look around")
	if got := e3.toolResult(1, "c_ok"); !strings.Contains(got, "plan mode is read-only") {
		t.Errorf("--mode plan lost to the settings' defaultMode: %q", got)
	}
}

// A model cannot widen the Claude Code permissions it runs under: writing
// the settings files asks in every mode, and --yes does not approve it
// (nor does yolo mode); the files stay as they are.
func TestE2EClaudePermissionsModelCannotWiden(t *testing.T) {
	e := newE2E(t, "claude_widen.json")
	claudePermissionsProject(t, e)
	settings := filepath.Join(e.workspace, ".claude", "settings.json")
	before, _ := os.ReadFile(settings)
	r := e.run("--trust-project", "--yes", "--mode", "yolo", "-p", "loosen up")
	for _, id := range []string{"c_write", "c_edit", "c_bash"} {
		if got := e.toolResult(2, id); !strings.Contains(got, "denied") || !strings.Contains(got, "protected") {
			t.Errorf("%s: %q", id, got)
		}
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf("the settings file changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, ".claude", "settings.local.json")); err == nil {
		t.Error("the model wrote .claude/settings.local.json")
	}
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d", r.code, app.ExitDenied)
	}
}
