package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools/chat"
)

func bashCall(cmd string) chat.ToolCall {
	return chat.ToolCall{ID: "c", Name: "bash", Arguments: `{"command":"` + cmd + `"}`}
}

// TestSessionRulesLastAcrossContinue: a rule "approve always" gave in a
// session is recorded with it, and a run continuing the session (-c) has
// it again; a rule revoked in /permissions stays revoked. Without the
// rules both of the model's commands would be denied (a piped run, the
// default mode).
func TestSessionRulesLastAcrossContinue(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join("..", "testdata", "e2e", "session_rules.json")))
	env := environ{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-test", "TACKLE_MODEL=m", "TACKLE_SANDBOX=off"}

	// The UI's session: the user approved both commands "always", then
	// revoked one rule.
	h := wiredHarness(t, env, "-w", ws)
	cv := h.newConversation(sessionStore(env), func(err error) { t.Error(err) })
	h.current.Store(cv)
	h.remember(cv)(bashCall("mytool build"))
	h.remember(cv)(bashCall("mytool lint"))
	if !(uiPolicy{h.policy, h}).Revoke(approval.Permission{Rule: mustParse(t, "bash(mytool lint)"), Source: approval.FromSession}) {
		t.Fatal("revoke failed")
	}
	if err := cv.close(); err != nil {
		t.Fatal(err)
	}
	h.Close()

	var out, errOut bytes.Buffer
	code := Main([]string{"-w", ws, "-c", "-p", "build and lint"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: env})
	t.Logf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == chat.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	if strings.Contains(results["call_build"], "denied") || !strings.Contains(results["call_build"], "mytool") {
		t.Errorf("mytool build did not run under the restored rule: %q", results["call_build"])
	}
	if !strings.Contains(results["call_lint"], "denied") && !strings.Contains(results["call_lint"], "approval") {
		t.Errorf("mytool lint ran: its rule was revoked: %q", results["call_lint"])
	}
	if code != ExitDenied {
		t.Errorf("exit %d, want %d (the lint call was denied)", code, ExitDenied)
	}
}

// TestRuleFilesSave: a rule saved goes into the user's config file, or
// into the project's while the user trusts it as it is (its pin moves to
// the new contents), and applies at once as a rule of that file. A
// project config changed since it was trusted (by the model, with an
// approval, or by anyone) takes no rule, and is not trusted because of
// one.
func TestRuleFilesSave(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	env := environ{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "OPENAI_API_KEY=sk-test", "TACKLE_SANDBOX=off"}
	h := wiredHarness(t, env, "-w", ws)
	defer h.Close()
	rf := newRuleFiles(h, env)
	trust, err := config.OpenTrust(env.get)
	if err != nil {
		t.Fatal(err)
	}

	// The user's config, created.
	if err := rf.Save(false, []string{"bash(git status *)"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(home, "tackle", "config.json"))
	if err != nil || !slices.Equal(cfg.Allow, []string{"bash(git status *)"}) {
		t.Fatalf("user config: %+v, %v", cfg, err)
	}
	if d := h.policy.Decide(bashCall("git status")); d.Action != 0 || !strings.Contains(d.Reason, "allowed by bash(git status *)") {
		t.Errorf("the saved rule does not apply: %+v", d)
	}
	perms := h.policy.Permissions()
	if last := perms[len(perms)-1]; last.Source != approval.FromConfig || !strings.HasPrefix(last.Origin, filepath.Join(home, "tackle", "config.json")) {
		t.Errorf("listed as %+v", last)
	}

	// The project's: no file yet, so the user makes it, trusted.
	proj := filepath.Join(ws, ".tackle", "config.json")
	if _, why := rf.Where(true); why != "" {
		t.Fatalf("Where(project) = %q", why)
	}
	if err := rf.Save(true, []string{"bash(make lint)"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(proj)
	if ok, _ := trust.Trusted(proj, b); !ok || !strings.Contains(string(b), `"bash(make lint)"`) {
		t.Fatalf("project config %s, trusted %v", b, ok)
	}
	// A second rule: the pin follows the file.
	if err := rf.Save(true, []string{"edit_file(docs/a.md)"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(proj)
	if ok, _ := trust.Trusted(proj, b); !ok {
		t.Fatalf("the pin did not follow the change: %s", b)
	}

	// Changed since it was trusted: refused, and left as it was.
	planted := strings.Replace(string(b), `"bash(make lint)"`, `"bash(make lint)", "bash"`, 1)
	if err := os.WriteFile(proj, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, why := rf.Where(true); !strings.Contains(why, "not trusted") {
		t.Errorf("Where(project) after a change = %q", why)
	}
	err = rf.Save(true, []string{"bash(ls *)"})
	if err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Fatalf("Save into a changed project config: %v", err)
	}
	if after, _ := os.ReadFile(proj); string(after) != planted {
		t.Errorf("the file was changed: %s", after)
	}
	if ok, _ := trust.Trusted(proj, []byte(planted)); ok {
		t.Error("the planted contents became trusted")
	}
	if d := h.policy.Decide(bashCall("rm -rf x")); d.Action == 0 {
		t.Errorf("the planted rule applies: %+v", d)
	}
	// A rule that does not parse is not saved.
	if err := rf.Save(false, []string{"bash("}); err == nil {
		t.Error("an invalid rule was saved")
	}
}

func mustParse(t *testing.T, s string) approval.Rule {
	t.Helper()
	r, err := approval.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSessionRulesFollowTheConversation: in the UI, /new starts without
// the rules "always" gave the conversation before, and /resume brings
// back the resumed session's own.
func TestSessionRulesFollowTheConversation(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	env := environ{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "OPENAI_API_KEY=sk-test", "TACKLE_SANDBOX=off"}
	h := wiredHarness(t, env, "-w", ws)
	defer h.Close()
	u := &uiConversations{h: h, store: sessionStore(env), sink: func(agent.Event) {}}
	defer u.close(os.Stderr)
	u.fresh()
	first := u.cur
	h.remember(first)(bashCall("mytool build"))
	id := first.id()
	if id == "" || !slices.Equal(h.policy.SessionRules(), []string{"bash(mytool build)"}) {
		t.Fatalf("id %q, rules %q", id, h.policy.SessionRules())
	}
	u.fresh() // /new
	if got := h.policy.SessionRules(); len(got) != 0 {
		t.Errorf("after /new: %q", got)
	}
	if _, err := u.Open(id); err != nil { // /resume
		t.Fatal(err)
	}
	if got := h.policy.SessionRules(); !slices.Equal(got, []string{"bash(mytool build)"}) {
		t.Errorf("after /resume: %q", got)
	}
}
