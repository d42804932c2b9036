package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

// The model is told the project's instructions (the workspace's
// AGENTS.md, the user's own) with their paths, and the environment.
func TestE2ESystemPromptHasProjectInstructionsAndEnvironment(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "plain.json")
	if err := os.WriteFile(filepath.Join(e.workspace, "AGENTS.md"), []byte("Always run `make check` before you finish.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	userDir := filepath.Join(e.home, "tackle")
	if err := os.MkdirAll(userDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userDir, "AGENTS.md"), []byte("Keep answers short.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("-p", "hi"); r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	reqs := e.requests()
	if len(reqs) == 0 || len(reqs[0].Messages) == 0 || reqs[0].Messages[0].Role != chat.RoleSystem {
		t.Fatalf("no system message: %+v", reqs)
	}
	sys := reqs[0].Messages[0].Content
	for _, want := range []string{
		"You are tackle",
		"# Project instructions",
		"## " + filepath.Join(userDir, "AGENTS.md"), "Keep answers short.",
		"Always run `make check` before you finish.",
		"# Environment", "workspace: ", "git: not a git repository",
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Index(sys, "Keep answers short.") > strings.Index(sys, "make check") {
		t.Error("the user's instructions come after the project's")
	}
}

// Prompts outlive the process: the next tackle in the workspace recalls
// them with up and finds them with ctrl+r.
func TestE2ETUIPromptHistorySurvivesARestart(t *testing.T) {
	e := newE2E(t, "plain.json")
	s := e.startTUI()
	s.waitFor("Ask tackle to do something")
	s.typeText("what is the answer to everything?")
	s.keys("Enter")
	s.waitFor("The answer is")
	s.waitUntil("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc to interrupt") })
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Fatalf("exit status %d", code)
	}

	s = e.startTUI()
	s.waitFor("Ask tackle to do something")
	s.keys("Up")
	s.waitFor("› what is the answer to everything?")
	s.keys("C-u", "C-r")
	s.waitFor("Search earlier prompts")
	s.typeText("everything")
	s.waitFor("▸ what is the answer to everything?")
	s.keys("Escape")
	s.waitUntil("the search to close", func(screen string) bool { return !strings.Contains(screen, "Search earlier prompts") })
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Errorf("exit status %d", code)
	}
}
