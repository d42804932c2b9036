package tui

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
)

// TestApprovalOffersAlwaysOnlyWhenARuleFits: for a call that deletes,
// writes, runs code or reaches outside the workspace the dialog offers no
// "always", and the a key does nothing; for a read it names the rule.
func TestApprovalOffersAlwaysOnlyWhenARuleFits(t *testing.T) {
	for _, cmd := range []string{"rm -rf build", "sed -i s/a/b/ main.go", "go test ./...", "cat ../secret", "awk 'BEGIN{system(\"id\")}'"} {
		t.Run(cmd, func(t *testing.T) {
			h := ask(t, bashCall("c1", cmd))
			screen := h.screen()
			if strings.Contains(screen, "always") || !strings.Contains(screen, "y approve once") {
				t.Fatalf("the dialog offers always for %q:\n%s", cmd, screen)
			}
			h.keys("a")
			if len(h.agent.resumes) != 0 || len(h.m.dialogs) != 1 {
				t.Fatalf("a answered the dialog: resumes %+v", h.agent.resumes)
			}
			h.keys("y")
			if got := h.agent.resumes; len(got) != 1 || got[0][0].Verdict != agent.Approve {
				t.Fatalf("resumes = %+v", got)
			}
		})
	}
	h := ask(t, bashCall("c1", "git status --short"))
	if screen := h.screen(); !strings.Contains(screen, "a always allow bash(git status *)") {
		t.Fatalf("the dialog does not name the rule:\n%s", screen)
	}
	h.keys("a")
	if got := h.agent.resumes; len(got) != 1 || got[0][0].Verdict != agent.ApproveAlways {
		t.Fatalf("resumes = %+v", got)
	}
}

// TestApprovalAlwaysPerCall: with several pending calls, "always" is
// offered or not for each call on its own.
func TestApprovalAlwaysPerCall(t *testing.T) {
	h := ask(t, bashCall("c1", "ls -la"), bashCall("c2", "rm -rf ../elsewhere"))
	if !strings.Contains(h.screen(), "always allow bash(ls *)") {
		t.Fatalf("first call:\n%s", h.screen())
	}
	h.keys("a")
	if strings.Contains(h.screen(), "always") {
		t.Fatalf("second call offers always:\n%s", h.screen())
	}
	h.keys("a") // ignored
	h.keys("n")
	want := []agent.Verdict{agent.ApproveAlways, agent.Deny}
	if got := h.agent.resumes; len(got) != 1 || len(got[0]) != 2 || got[0][0].Verdict != want[0] || got[0][1].Verdict != want[1] {
		t.Fatalf("resumes = %+v", got)
	}
}
