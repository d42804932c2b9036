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

// TestApprovalAlwaysOnlyForTheWholeCall: "always" is offered only with
// rules that cover the whole call. rm -rf build && echo removed used to
// offer "always allow bash(echo *)": pressing it approved the whole
// command and added a rule for a fragment.
func TestApprovalAlwaysOnlyForTheWholeCall(t *testing.T) {
	h := ask(t, bashCall("c1", "rm -rf build && echo removed"))
	if s := h.screen(); strings.Contains(s, "always") || strings.Contains(s, "echo *") || !strings.Contains(s, "y approve once") {
		t.Fatalf("the dialog offers a rule for a fragment:\n%s", s)
	}
	h.keys("a", "y")
	if got := h.agent.resumes; len(got) != 1 || got[0][0].Verdict != agent.Approve || len(h.m.opts.Policy.Permissions()) != 0 {
		t.Fatalf("resumes = %+v, rules %v", got, h.m.opts.Policy.Permissions())
	}
	h = ask(t, bashCall("c1", "git status && git diff --stat"))
	if s := h.screen(); !strings.Contains(s, "a always allow bash(git status *), bash(git diff *)") {
		t.Fatalf("the dialog does not name both rules:\n%s", s)
	}
}

// fakeRuleFiles records the rules the UI saves.
type fakeRuleFiles struct {
	projectWhy string
	saved      []ruleSave
}

func (f *fakeRuleFiles) Where(project bool) (string, string) {
	if project {
		return "/home/user/src/proj/.tackle/config.json", f.projectWhy
	}
	return "/home/user/.config/tackle/config.json", ""
}

func (f *fakeRuleFiles) Save(project bool, rules []string) error {
	f.saved = append(f.saved, ruleSave{project: project, rules: rules})
	return nil
}

// TestApprovalAlwaysAsksWhereTheRuleGoes: with config files to save to,
// a shows the rule and where it can go: this session, the user's config
// file, the project's (or why not); esc goes back; u approves "always"
// and saves the rule in the user's file.
func TestApprovalAlwaysAsksWhereTheRuleGoes(t *testing.T) {
	files := &fakeRuleFiles{projectWhy: "it is not trusted as it is now"}
	h := newHarness(t, func(o *Options) { o.RuleFiles = files })
	h.agent.outcomes = []fakeOutcome{paused(bashCall("c1", "git status --short"))}
	h.typeText("do it").keys("enter", "a")
	s := h.screen()
	for _, want := range []string{
		"approve, and always allow bash(git status *):",
		"a, enter for this session",
		"u and save it in ~/.config/tackle/config.json",
		"(the project's config: it is not trusted as it is now)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the chooser lacks %q:\n%s", want, s)
		}
	}
	h.keys("p") // the project's config is not trusted: nothing
	if len(h.agent.resumes) != 0 || len(files.saved) != 0 {
		t.Fatalf("p answered: %+v %+v", h.agent.resumes, files.saved)
	}
	h.keys("esc")
	if s := h.screen(); !strings.Contains(s, "a always allow bash(git status *)") {
		t.Fatalf("esc did not go back:\n%s", s)
	}
	h.keys("a", "u")
	if got := h.agent.resumes; len(got) != 1 || got[0][0].Verdict != agent.ApproveAlways {
		t.Fatalf("resumes = %+v", got)
	}
	if len(files.saved) != 1 || files.saved[0].project || strings.Join(files.saved[0].rules, ",") != "bash(git status *)" {
		t.Fatalf("saved %+v", files.saved)
	}
	if s := h.screen(); !strings.Contains(s, "saved allow bash(git status *) in ~/.config/tackle/config.json") {
		t.Errorf("the transcript does not say where the rule went:\n%s", s)
	}

	// A trusted project config: p saves there.
	files = &fakeRuleFiles{}
	h = newHarness(t, func(o *Options) { o.RuleFiles = files })
	h.agent.outcomes = []fakeOutcome{paused(bashCall("c1", "ls -la"))}
	h.typeText("do it").keys("enter", "a", "p")
	if len(files.saved) != 1 || !files.saved[0].project || strings.Join(files.saved[0].rules, ",") != "bash(ls *)" {
		t.Fatalf("saved %+v", files.saved)
	}
	// a twice: this session only.
	files = &fakeRuleFiles{}
	h = newHarness(t, func(o *Options) { o.RuleFiles = files })
	h.agent.outcomes = []fakeOutcome{paused(bashCall("c1", "ls -la"))}
	h.typeText("do it").keys("enter", "a", "a")
	if got := h.agent.resumes; len(got) != 1 || got[0][0].Verdict != agent.ApproveAlways || len(files.saved) != 0 {
		t.Fatalf("resumes = %+v, saved %+v", got, files.saved)
	}
}
