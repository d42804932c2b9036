package e2e

// Custom slash commands through the built binary: the user's (tackle's
// and Claude Code's, namespaced by subdirectory) expanded in a piped run,
// a project's used only once trusted, its allowed-tools letting the
// commands it names run unasked and nothing protected, and a command
// with arguments picked from the slash menu in a real terminal.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
)

func TestE2ECustomCommandPiped(t *testing.T) {
	e := &e2e{t: t, srv: llmtest.NewServer(t, llmtest.NewScript(llmtest.Repeat(llmtest.Text("Done.")))), workspace: t.TempDir(), home: t.TempDir()}
	mustWrite(t, filepath.Join(e.home, "tackle", "commands", "fix.md"), "---\ndescription: Fix an issue\nargument-hint: <issue> <area>\n---\nFix issue #$1 in the $2 code. All: $ARGUMENTS\n")
	mustWrite(t, filepath.Join(e.home, ".claude", "commands", "git", "commit.md"), "---\nallowed-tools: Bash(git commit:*)\nargument-hint: [message]\n---\nCommit the staged changes.\n")

	r := e.run("-p", `/fix 42 "parser and lexer"`)
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if got := e.lastUser(0); got != `Fix issue #42 in the parser and lexer code. All: 42 "parser and lexer"` {
		t.Errorf("the prompt: %q", got)
	}
	// Claude Code's file in a subdirectory: a namespaced command; its
	// arguments follow a prompt without placeholders; stdin is context.
	e.stdin = "diff --git a/x b/x\n"
	r = e.run("-p", "/git:commit fix the parser")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if got := e.lastUser(1); got != "Commit the staged changes.\n\nARGUMENTS: fix the parser\n\n<stdin>\ndiff --git a/x b/x\n</stdin>" {
		t.Errorf("the prompt: %q", got)
	}
	// Not a command: sent as it is.
	e.stdin = ""
	e.run("-p", "/etc/hosts is broken")
	if got := e.lastUser(2); got != "/etc/hosts is broken" {
		t.Errorf("the prompt: %q", got)
	}
}

func TestE2ECustomCommandOfTheProject(t *testing.T) {
	gitRepo(t, t.TempDir()) // skips without git
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	gitRepo(t, e.workspace)
	e.srv = llmtest.NewServer(t, llmtest.NewScript(
		llmtest.Text("Not a command I know."),
		// The model reads the file first: an edit of a file never read
		// is refused before any rule is looked at.
		llmtest.ToolCalls(llmtest.Call("call_read", "read_file", `{"path":".git/config"}`)),
		llmtest.ToolCalls(
			llmtest.Call("call_status", "bash", `{"command":"git status --short"}`),
			llmtest.Call("call_config", "edit_file", `{"path":".git/config","old_string":"[core]","new_string":"[core]\n\thooksPath = /tmp/evil"}`),
			llmtest.Call("call_push", "bash", `{"command":"git push origin main"}`),
		),
		llmtest.Text("Done."),
	))
	// The project's command names a protected file exactly and git status.
	mustWrite(t, filepath.Join(e.workspace, ".tackle", "commands", "ship.md"),
		"---\ndescription: Ship it\nallowed-tools: [\"bash(git status *)\", \"edit_file(.git/config)\", \"read_file(.git/config)\"]\n---\nShip $ARGUMENTS now.\n")

	r := e.run("-p", "/ship v2")
	if !strings.Contains(r.stderr, "not using "+filepath.Join(e.workspace, ".tackle", "commands", "ship.md")) || e.lastUser(0) != "/ship v2" {
		t.Errorf("an untrusted project command: stderr %q, prompt %q", r.stderr, e.lastUser(0))
	}

	r = e.run("--trust-project", "-p", "/ship v2")
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d (the protected edit and git push denied)", r.code, app.ExitDenied)
	}
	if got := e.lastUser(1); got != "Ship v2 now." {
		t.Errorf("the prompt: %q", got)
	}
	if got := e.toolResult(3, "call_status"); strings.Contains(got, "denied") || !strings.Contains(got, "?? .tackle/") {
		t.Errorf("git status, allowed by the command: %q", got)
	}
	for _, id := range []string{"call_config", "call_push"} {
		if got := e.toolResult(3, id); !strings.Contains(got, "denied") && !strings.Contains(got, "not approved") {
			t.Errorf("%s: %q", id, got)
		}
	}
	if cfg := mustRead(t, filepath.Join(e.workspace, ".git", "config")); strings.Contains(cfg, "evil") {
		t.Errorf(".git/config was changed:\n%s", cfg)
	}
}

func TestE2ETUICustomCommandFromTheMenu(t *testing.T) {
	e := &e2e{t: t, srv: llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("Fixed it."))), workspace: t.TempDir(), home: t.TempDir()}
	mustWrite(t, filepath.Join(e.home, "tackle", "commands", "fix.md"), "---\ndescription: Fix an issue by number\nargument-hint: <issue> <area>\n---\nFix issue #$1 in the $2 code.\n")
	s := e.startTUI()
	s.waitFor("Ask tackle to do something")
	s.typeText("/fi")
	s.waitFor("/fix <issue> <area>")
	s.waitFor("Fix an issue by number (user)")
	s.keys("Enter") // completes the command: it takes arguments
	s.waitUntil("the command completed", func(sc string) bool { return strings.Contains(sc, "› /fix") && !strings.Contains(sc, "(user)") })
	s.typeText("7 lexer")
	s.keys("Enter")
	s.waitFor("Fixed it.")
	if got := e.lastUser(0); got != "Fix issue #7 in the lexer code." {
		t.Errorf("the prompt: %q", got)
	}
	screen := s.capture(true)
	if !strings.Contains(screen, "/fix 7 lexer") || !strings.Contains(screen, fmt.Sprintf("/fix: the prompt of %s", filepath.Join(e.home, "tackle", "commands", "fix.md"))) {
		t.Errorf("the transcript:\n%s", screen)
	}
	s.keys("C-d")
	s.waitExit()
}
