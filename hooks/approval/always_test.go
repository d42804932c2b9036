package approval

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// TestAlwaysCoversTheWholeCall: "always" offers rules only when together
// they cover the whole call, so that "always allow" says what it does:
// after Remember the same call runs without asking, and a call with a
// part no rule can cover (rm -rf build && echo removed) is offered none
// (it used to be offered bash(echo *), a rule for a fragment, while the
// whole command was approved).
func TestAlwaysCoversTheWholeCall(t *testing.T) {
	for _, tt := range []struct {
		name       string
		allow, ask []string
		mode       Mode
		call       chat.ToolCall
		want       []string
	}{
		{name: "the issue's command", call: bashCall("rm -rf build && echo removed")},
		{name: "a redirect that writes, then a read", call: bashCall("go test ./... > out.txt; ls")},
		{name: "a pipe into sh", call: bashCall("curl -s x | sh")},
		{name: "code, then a read", call: bashCall("go test ./... && git status")},
		{name: "reads only", call: bashCall("git status && git diff --stat"), want: []string{"bash(git status *)", "bash(git diff *)"}},
		{name: "one read", call: bashCall("ls -la"), want: []string{"bash(ls *)"}},
		{name: "an unknown command, exactly", call: bashCall("mytool build -v"), want: []string{"bash(mytool build -v)"}},
		{name: "an allow rule covers the rest", allow: []string{"bash(go test *)"}, call: bashCall("go test ./... && git status"), want: []string{"bash(git status *)"}},
		{name: "an ask rule asks anyway", ask: []string{"bash(git status *)"}, call: bashCall("git status")},
		{name: "a protected path asks anyway", call: fileCall("edit_file", ".git/config")},
		{name: "a file", call: fileCall("edit_file", "main.go"), want: []string{"edit_file(main.go)"}},
		{name: "whatever the mode", mode: Plan, call: bashCall("ls -la"), want: []string{"bash(ls *)"}},
		{name: "yolo too", mode: Yolo, call: bashCall("rm -rf build && echo removed")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var perms []Permission
			for _, s := range tt.allow {
				perms = append(perms, Permission{Rule: mustRule(t, s), Source: FromFlag})
			}
			for _, s := range tt.ask {
				perms = append(perms, Permission{Rule: mustRule(t, s), Ask: true, Source: FromClaude})
			}
			p := New(cmpMode(tt.mode), inspector{}, WithPermissions(perms))
			var got []string
			for _, r := range p.Always(tt.call) {
				got = append(got, r.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Always = %q, want %q", got, tt.want)
			}
			added := p.Remember(tt.call)
			if fmt.Sprint(added) != fmt.Sprint(p.Always(tt.call)) && len(tt.want) > 0 {
				t.Errorf("Remember added %v", added)
			}
			if len(tt.want) == 0 {
				if len(added) != 0 || len(p.SessionRules()) != 0 {
					t.Errorf("Remember added %v", added)
				}
				return
			}
			p.SetMode(Default)
			if d := p.Decide(tt.call); d.Action != cont {
				t.Errorf("after always, the call still asks: %s %q", actionNames[d.Action], d.Reason)
			}
		})
	}
}

// TestSessionRulesRestoredNeverCoverEveryCommand: a session continued
// later gets its "always" rules back (AddSessionRules), but never a rule
// for every bash command, whatever the session file says.
func TestSessionRulesRestoredNeverCoverEveryCommand(t *testing.T) {
	p := New(Default, inspector{})
	var rules []Rule
	for _, s := range []string{"bash", "bash(*)", "bash(* x)", "bash(git status *)", "edit_file(main.go)", "bash(git status *)"} {
		rules = append(rules, mustRule(t, s))
	}
	added := p.AddSessionRules(rules...)
	if fmt.Sprint(added) != "[bash(git status *) edit_file(main.go)]" || !slices.Equal(p.SessionRules(), []string{"bash(git status *)", "edit_file(main.go)"}) {
		t.Fatalf("added %v; session rules %q", added, p.SessionRules())
	}
	if d := p.Decide(bashCall("rm -rf x")); d.Action == cont {
		t.Errorf("rm runs: %q", d.Reason)
	}
}

// TestAddPermission: a rule saved to a config file joins the policy's
// allow rules with its file, at once.
func TestAddPermission(t *testing.T) {
	p := mustPolicy(t, Default, []string{"bash(go test *)"}, []string{"bash(rm *)"})
	perm := Permission{Rule: mustRule(t, "bash(git status *)"), Source: FromConfig, Origin: "/home/u/.config/tackle/config.json: allow"}
	if !p.AddPermission(perm) || p.AddPermission(perm) {
		t.Fatal("AddPermission: want true once")
	}
	if p.AddPermission(Permission{Rule: mustRule(t, "bash(ls *)"), Deny: true, Source: FromConfig}) {
		t.Error("a deny rule was added")
	}
	if d := p.Decide(bashCall("git status")); d.Action != cont {
		t.Errorf("git status: %s %q", actionNames[d.Action], d.Reason)
	}
	if d := p.Decide(bashCall("rm x")); d.Action != skip {
		t.Errorf("rm: %s %q", actionNames[d.Action], d.Reason)
	}
	perms := p.Permissions()
	if len(perms) != 3 || perms[2] != perm {
		t.Errorf("permissions %v", perms)
	}
}

func cmpMode(m Mode) Mode {
	if m == "" {
		return Default
	}
	return m
}

// TestSetSessionRules: a conversation's own session rules replace the
// ones before, with the same check as AddSessionRules.
func TestSetSessionRules(t *testing.T) {
	p := New(Default, inspector{})
	p.Remember(bashCall("ls -la"))
	p.SetSessionRules(mustRule(t, "bash(git status *)"), mustRule(t, "bash"))
	if got := p.SessionRules(); !slices.Equal(got, []string{"bash(git status *)"}) {
		t.Errorf("session rules %q", got)
	}
	p.SetSessionRules()
	if got := p.SessionRules(); len(got) != 0 {
		t.Errorf("session rules %q", got)
	}
}
