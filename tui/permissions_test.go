package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
)

func rule(t *testing.T, s string) approval.Rule {
	t.Helper()
	r, err := approval.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// permissionsHarness opens /permissions over a policy with a rule from
// each source: config (deny and allow), a flag and "approve always".
func permissionsHarness(t *testing.T) (*harness, *approval.Policy) {
	t.Helper()
	reg, _ := testTools(t)
	policy := approval.New(approval.Default, reg, approval.WithPermissions([]approval.Permission{
		{Rule: rule(t, "bash(rm *)"), Deny: true, Source: approval.FromConfig, Origin: "/home/user/.config/tackle/config.json: deny[0]"},
		{Rule: rule(t, "bash(go test *)"), Source: approval.FromConfig, Origin: "/home/user/.config/tackle/config.json: allow[0]"},
		{Rule: rule(t, "edit_file(docs/**)"), Source: approval.FromFlag, Origin: "--allow"},
	}))
	policy.Remember(bashCall("c1", "git status --short"))
	h := newHarness(t, func(o *Options) { o.Policy = policy })
	h.typeText("/permissions").keys("enter")
	if len(h.m.dialogs) != 1 {
		t.Fatalf("no dialog after /permissions:\n%s", h.screen())
	}
	return h, policy
}

func TestPermissionsDialogListsRulesWithSources(t *testing.T) {
	h, _ := permissionsHarness(t)
	screen := h.screen()
	for _, want := range []string{
		"▸ deny  bash(rm *)          config ~/.config/tackle/config.json: deny[0]",
		"  allow bash(go test *)     config ~/.config/tackle/config.json: allow[0]",
		"  allow edit_file(docs/**)  flag --allow",
		"  allow bash(git status *)  this session (approve always)",
		"d revoke for this session",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, screen)
		}
	}
	golden(t, "permissions_80x24", screen)
}

func TestPermissionsDialogRevokesASessionRule(t *testing.T) {
	h, policy := permissionsHarness(t)
	call := bashCall("c2", "git status")
	if got := policy.Decide(call); got.Action != hooks.ToolContinue {
		t.Fatalf("before: %+v", got)
	}
	h.keys("down", "down", "down", "d")
	if got := policy.Decide(call); got.Action != hooks.ToolPause {
		t.Errorf("the revoked session rule still allows the call: %+v", got)
	}
	for _, p := range policy.Permissions() {
		if p.Source == approval.FromSession {
			t.Errorf("a session rule is left: %v", p)
		}
	}
	if view := ansi.Strip(h.m.dialogs[0].view(&h.m.styles)); strings.Contains(view, "git status") || !strings.Contains(view, "▸ allow edit_file(docs/**)") {
		t.Errorf("the dialog still lists the rule, or the selection did not move to the one before it:\n%s", view)
	}
	h.keys("esc")
	if len(h.m.dialogs) != 0 {
		t.Fatal("esc did not close the dialog")
	}
	if screen := h.screen(); !strings.Contains(screen, "revoked the session rule bash(git status *)") {
		t.Errorf("the transcript does not say what was revoked:\n%s", screen)
	}
}

func TestPermissionsDialogDropsAConfigRuleForTheSession(t *testing.T) {
	h, policy := permissionsHarness(t)
	rm := bashCall("c3", "rm -rf build")
	policy.SetMode(approval.Yolo)
	if got := policy.Decide(rm); got.Action != hooks.ToolSkip {
		t.Fatalf("before: %+v", got)
	}
	h.keys("d") // the first rule: the config's deny rule
	if got := policy.Decide(rm); got.Action != hooks.ToolContinue {
		t.Errorf("the dropped deny rule still applies: %+v", got)
	}
	h.keys("esc")
	if screen := strings.Join(strings.Fields(h.screen()), " "); !strings.Contains(screen, "dropped the deny rule bash(rm *) for this session; the config file still has it") {
		t.Errorf("transcript:\n%s", screen)
	}
	// Down past the end and back up stays on the list.
	h.typeText("/permissions").keys("enter", "down", "down", "down", "down", "down", "up", "d", "esc")
	got := policy.Permissions()
	if len(got) != 2 || got[0].Rule != rule(t, "bash(go test *)") || got[1].Rule != rule(t, "bash(git status *)") {
		t.Errorf("permissions = %v, want the flag rule gone", got)
	}
}

func TestPermissionsDialogEmpty(t *testing.T) {
	h := newHarness(t)
	h.typeText("/permissions").keys("enter")
	if screen := h.screen(); !strings.Contains(screen, "No allow or deny rules") {
		t.Errorf("screen:\n%s", screen)
	}
	h.keys("d", "esc")
	if len(h.m.dialogs) != 0 {
		t.Error("esc did not close the dialog")
	}

	h = newHarness(t, func(o *Options) { o.Policy = nil })
	h.typeText("/permissions").keys("enter")
	if len(h.m.dialogs) != 0 || !strings.Contains(h.screen(), "approval rules are not available here") {
		t.Errorf("without a policy:\n%s", h.screen())
	}
}

// Rules from a Claude Code settings file are listed with the file and
// the rule as written there; an ask rule dropped for the session asks no
// more, and the transcript says the file still has it.
func TestPermissionsDialogShowsClaudeRules(t *testing.T) {
	reg, _ := testTools(t)
	policy := approval.New(approval.Yolo, reg, approval.WithPermissions([]approval.Permission{
		{Rule: rule(t, "read_file(**/*secret*)"), Deny: true, Source: approval.FromClaude, Origin: "/home/user/proj/.claude/settings.json: permissions.deny[0] Read(**/*secret*)"},
		{Rule: rule(t, "bash(git push *)"), Ask: true, Source: approval.FromClaude, Origin: "/home/user/.claude/settings.json: permissions.ask[0] Bash(git push:*)"},
	}))
	h := newHarness(t, func(o *Options) { o.Policy = policy })
	h.typeText("/permissions").keys("enter")
	screen := h.screen()
	for _, want := range []string{
		"deny wins over ask, ask over allow",
		// (cut at the dialog's width)
		"▸ deny  read_file(**/*secret*)  Claude Code ~/proj/.claude/settings.json: p…",
		"  ask   bash(git push *)        Claude Code ~/.claude/settings.json: permis…",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, screen)
		}
	}
	push := bashCall("c", "git push origin main")
	if got := policy.Decide(push); got.Action != hooks.ToolPause || !strings.Contains(got.Reason, "the rule ask bash(git push *) covers it") {
		t.Fatalf("before: %+v", got)
	}
	h.keys("down", "d", "esc")
	if got := policy.Decide(push); got.Action != hooks.ToolContinue {
		t.Errorf("the dropped ask rule still asks: %+v", got)
	}
	if screen := strings.Join(strings.Fields(h.screen()), " "); !strings.Contains(screen, "dropped the ask rule bash(git push *) for this session; the Claude Code settings file still has it") {
		t.Errorf("transcript:\n%s", screen)
	}
}

// TestPermissionsSavesASessionRule: u saves the selected session (or
// flag) allow rule in the user's config file, p in the project's; a rule
// from a config file or a deny rule is not offered.
func TestPermissionsSavesASessionRule(t *testing.T) {
	reg, _ := testTools(t)
	policy := approval.New(approval.Default, reg, approval.WithPermissions([]approval.Permission{
		{Rule: rule(t, "bash(rm *)"), Deny: true, Source: approval.FromConfig, Origin: "/home/user/.config/tackle/config.json: deny[0]"},
	}))
	policy.Remember(bashCall("c1", "git status --short"))
	files := &fakeRuleFiles{}
	h := newHarness(t, func(o *Options) { o.Policy, o.RuleFiles = policy, files })
	h.typeText("/permissions").keys("enter")
	if s := h.screen(); strings.Contains(s, "save in") {
		t.Errorf("a deny rule can be saved:\n%s", s)
	}
	h.keys("u")
	if len(files.saved) != 0 {
		t.Fatalf("u saved a deny rule: %+v", files.saved)
	}
	h.keys("down")
	if s := h.screen(); !strings.Contains(s, "u save in ~/.config/tackle/config.json") || !strings.Contains(s, "p save in ~/src/proj/.tackle/config.json") {
		t.Errorf("the keys are not offered:\n%s", s)
	}
	h.keys("p")
	if len(files.saved) != 1 || !files.saved[0].project || files.saved[0].rules[0] != "bash(git status *)" {
		t.Fatalf("saved %+v", files.saved)
	}
	if s := h.screen(); !strings.Contains(s, "saved allow bash(git status *) in ~/src/proj/.tackle/config.json") {
		t.Errorf("no note:\n%s", s)
	}
}
