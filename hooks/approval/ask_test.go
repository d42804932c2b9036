package approval

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// askPolicy is a policy in mode with permissions: "deny R", "ask R" or
// "allow R" each.
func askPolicy(t *testing.T, mode Mode, rules ...string) *Policy {
	t.Helper()
	var perms []Permission
	for _, s := range rules {
		effect, rule, _ := strings.Cut(s, " ")
		r, err := ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		perms = append(perms, Permission{Rule: r, Deny: effect == "deny", Ask: effect == "ask", Source: FromClaude, Origin: "settings.json: permissions." + effect})
	}
	return New(mode, inspector{}, WithPermissions(perms))
}

// An ask rule asks where the mode would run the call (yolo too), over an
// allow rule and a hook's allow; a deny rule still wins, plan mode still
// skips writes; it is matched as deny rules are, so it is as hard to
// dodge; a program it cannot see through asks.
func TestAskRules(t *testing.T) {
	for _, c := range []struct {
		mode  Mode
		rules []string
		call  chat.ToolCall
		hook  bool // a hook allowed exactly this call
		want  hooks.PreToolAction
		why   string
	}{
		{Yolo, []string{"ask bash(git push *)"}, bashCall("git push origin main"), false, pause, "the rule ask bash(git push *) covers it (git push origin main); asking in every mode"},
		{Yolo, []string{"ask bash(git push *)"}, bashCall("git -C repo --no-pager push"), false, pause, "the rule ask bash(git push *)"},
		{Yolo, []string{"ask bash(git push *)"}, bashCall("cd x && /usr/bin/git push"), false, pause, "the rule ask bash(git push *)"},
		{Yolo, []string{"ask bash(git push *)"}, bashCall(`eval "$CMD"`), false, pause, "an ask rule may cover it and tackle cannot tell"},
		{Yolo, []string{"ask bash(git push *)"}, bashCall("git status"), false, cont, ""},
		{Default, []string{"ask bash(git push *)", "allow bash(git push *)"}, bashCall("git push"), false, pause, "the rule ask bash(git push *)"},
		{Default, []string{"ask bash(git push *)"}, bashCall("git push"), true, pause, "the rule ask bash(git push *)"},
		{Yolo, []string{"ask bash(git push *)", "deny bash(git *)"}, bashCall("git push"), false, skip, "denied by the rule bash(git *)"},
		// A path rule: reads run in default mode, not this one.
		{Default, []string{"ask read_file(**/*.pem)"}, fileCall("read_file", "certs/server.pem"), false, pause, "the rule ask read_file(**/*.pem) covers it (certs/server.pem)"},
		{Default, []string{"ask read_file(**/*.pem)"}, fileCall("grep", "certs/server.pem"), false, pause, "the rule ask read_file(**/*.pem)"},
		{Default, []string{"ask read_file(**/*.pem)"}, bashCall("cat certs/server.pem"), false, pause, "the rule ask read_file(**/*.pem)"},
		{Default, []string{"ask read_file(**/*.pem)"}, fileCall("read_file", "main.go"), false, cont, ""},
		{Yolo, []string{"ask write_file"}, fileCall("edit_file", "main.go"), false, pause, "the rule ask write_file covers it (every write_file call)"},
		{Plan, []string{"ask edit_file(**)"}, fileCall("edit_file", "main.go"), false, skip, "plan mode is read-only"},
		{Plan, []string{"ask read_file(secret.txt)"}, fileCall("read_file", "secret.txt"), false, pause, "the rule ask read_file(secret.txt)"},
		{Yolo, []string{"ask mcp__github"}, chat.ToolCall{ID: "c", Name: "mcp__github__create_issue", Arguments: `{}`}, false, pause, "the rule ask mcp__github"},
	} {
		p := askPolicy(t, c.mode, c.rules...)
		in := &hooks.PreToolInput{Call: c.call}
		if c.hook {
			in.Approval = hooks.NewApproval("claude:PreToolUse", c.call, false, "")
		}
		got, _ := p.Hook().Run(t.Context(), in)
		if got.Action != c.want || !strings.Contains(got.Reason, c.why) {
			t.Errorf("%s %v %s %s (hook allow %v): got %s %q, want %s %q", c.mode, c.rules, c.call.Name, c.call.Arguments, c.hook, actionNames[got.Action], got.Reason, actionNames[c.want], c.why)
		}
	}
}

// Ask rules are listed between deny and allow rules, with their source,
// and one dropped with Revoke asks no more; they never hide a file from
// grep (ReadAllowed) as deny rules do.
func TestAskRulesListedAndRevoked(t *testing.T) {
	p := askPolicy(t, Yolo, "allow bash(go test *)", "ask bash(git push *)", "deny read_file(.env)")
	var got []string
	for _, perm := range p.Permissions() {
		got = append(got, perm.String())
	}
	want := []string{
		"deny read_file(.env) (claude settings.json: permissions.deny)",
		"ask bash(git push *) (claude settings.json: permissions.ask)",
		"allow bash(go test *) (claude settings.json: permissions.allow)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Permissions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !p.ReadAllowed("x.pem") || p.ReadAllowed(".env") {
		t.Error("ReadAllowed")
	}
	if !p.Revoke(p.Permissions()[1]) {
		t.Fatal("Revoke failed")
	}
	if got := p.Decide(bashCall("git push")); got.Action != cont {
		t.Errorf("after Revoke: %s %q", actionNames[got.Action], got.Reason)
	}
}
