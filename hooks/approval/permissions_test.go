package approval

import (
	"slices"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
)

func mustRule(t *testing.T, s string) Rule {
	t.Helper()
	r, err := ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPermissionsListsRulesWithSources(t *testing.T) {
	goTest := mustRule(t, "bash(go test *)")
	rm := mustRule(t, "bash(rm *)")
	docs := mustRule(t, "edit_file(docs/**)")
	p := New(Default, inspector{}, WithPermissions([]Permission{
		{Rule: goTest, Source: FromConfig, Origin: "/c.json: allow[0]"},
		{Rule: rm, Deny: true, Source: FromConfig, Origin: "/c.json: deny[0]"},
		{Rule: docs, Source: FromFlag, Origin: "--allow"},
	}))
	p.Remember(bashCall("git status"))
	got := p.Permissions()
	want := []Permission{
		{Rule: rm, Deny: true, Source: FromConfig, Origin: "/c.json: deny[0]"},
		{Rule: goTest, Source: FromConfig, Origin: "/c.json: allow[0]"},
		{Rule: docs, Source: FromFlag, Origin: "--allow"},
		{Rule: mustRule(t, "bash(git status *)"), Source: FromSession},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Permissions =\n%v\nwant\n%v", got, want)
	}
	if s := got[0].String(); s != "deny bash(rm *) (config /c.json: deny[0])" {
		t.Errorf("String = %q", s)
	}
	if s := got[3].String(); s != "allow bash(git status *) (session)" {
		t.Errorf("String = %q", s)
	}
}

func TestRevokeTakesEffectAtOnce(t *testing.T) {
	gitStatus := mustRule(t, "bash(git status *)")
	rm := mustRule(t, "bash(rm *)")
	p := New(Yolo, inspector{}, WithPermissions([]Permission{
		{Rule: rm, Deny: true, Source: FromConfig, Origin: "c: deny[0]"},
	}))
	rmCall := bashCall("rm -f build.log")
	if got := p.Decide(rmCall); got.Action != hooks.ToolSkip {
		t.Fatalf("deny rule: %s", actionNames[got.Action])
	}
	if !p.Revoke(Permission{Rule: rm, Deny: true, Source: FromConfig, Origin: "c: deny[0]"}) {
		t.Fatal("Revoke of a config deny rule = false")
	}
	if got := p.Decide(rmCall); got.Action != cont {
		t.Errorf("after dropping the deny rule: %s (%s)", actionNames[got.Action], got.Reason)
	}

	p = New(Default, inspector{})
	call := bashCall("git status --short")
	p.Remember(call)
	if got := p.Decide(call); got.Action != cont {
		t.Fatalf("session rule: %s", actionNames[got.Action])
	}
	if !p.Revoke(Permission{Rule: gitStatus, Source: FromSession}) {
		t.Fatal("Revoke of a session rule = false")
	}
	if got := p.Decide(call); got.Action != pause {
		t.Errorf("after revoking the session rule: %s (%s)", actionNames[got.Action], got.Reason)
	}
	if len(p.Permissions()) != 0 {
		t.Errorf("Permissions = %v", p.Permissions())
	}
	if p.Revoke(Permission{Rule: gitStatus, Source: FromSession}) {
		t.Error("revoking it twice = true")
	}
}

// TestRevokeOneSourceKeepsTheOther: the same rule from a flag and from the
// config file is two permissions; dropping one leaves the other in force.
func TestRevokeOneSourceKeepsTheOther(t *testing.T) {
	goTest := mustRule(t, "bash(go test *)")
	fromFlag := Permission{Rule: goTest, Source: FromFlag, Origin: "--allow"}
	fromFile := Permission{Rule: goTest, Source: FromConfig, Origin: "c: allow[0]"}
	p := New(Default, inspector{}, WithPermissions([]Permission{fromFile, fromFlag}))
	call := bashCall("go test ./...")
	if !p.Revoke(fromFile) {
		t.Fatal("Revoke = false")
	}
	if got := p.Decide(call); got.Action != cont {
		t.Errorf("the flag's copy no longer applies: %s", actionNames[got.Action])
	}
	if got := p.Permissions(); !slices.Equal(got, []Permission{fromFlag}) {
		t.Errorf("Permissions = %v", got)
	}
	if p.Revoke(Permission{Rule: goTest, Source: FromFlag, Origin: "--deny"}) {
		t.Error("a permission with another origin was revoked")
	}
	if p.Revoke(Permission{Rule: goTest, Deny: true, Source: FromFlag, Origin: "--allow"}) {
		t.Error("an allow rule was revoked as a deny rule")
	}
	if !p.Revoke(fromFlag) {
		t.Fatal("Revoke = false")
	}
	if got := p.Decide(call); got.Action != pause {
		t.Errorf("with no rule left: %s", actionNames[got.Action])
	}
}

func TestRevokeWithRules(t *testing.T) {
	goTest := mustRule(t, "bash(go test *)")
	p := New(Default, inspector{}, WithRules([]Rule{goTest}, nil))
	if got := p.Permissions(); !slices.Equal(got, []Permission{{Rule: goTest}}) {
		t.Fatalf("Permissions = %v", got)
	}
	if !p.Revoke(Permission{Rule: goTest}) {
		t.Fatal("Revoke = false")
	}
	if got := p.Decide(bashCall("go test ./...")); got.Action != pause {
		t.Errorf("after Revoke: %s", actionNames[got.Action])
	}
}
