package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools/chat"
)

func writeCall(id, path string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: "write_file", Arguments: `{"path":"` + path + `","content":"x"}`}
}

// TestApproveTheseCalls: with several calls waiting, the dialog lists them
// (escapes visible) and Y approves them all at once; a call that writes a
// protected path is not among them: it is asked about on its own.
func TestApproveTheseCalls(t *testing.T) {
	h := ask(t, bashCall("c1", "make build"), bashCall("c2", "echo \x1b[8mhidden"), writeCall("c3", ".git/config"), bashCall("c4", "make test"))
	s := h.screen()
	for _, want := range []string{"4 calls wait for approval:", "make build", `\x1b[8mhidden`, ".git/config  (protected: asked on its own)", "Y approve 3 of these 4 (not the protected)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	h.keys("Y")
	if len(h.agent.resumes) != 0 {
		t.Fatal("resumed before the protected call was decided")
	}
	s = h.screen()
	if !strings.Contains(s, "Allow write_file?") || strings.Contains(s, "calls wait for approval") || strings.Contains(s, "approve these") {
		t.Fatalf("the protected call is not asked on its own:\n%s", s)
	}
	h.keys("n")
	want := []agent.Decision{
		{CallID: "c1", Verdict: agent.Approve}, {CallID: "c2", Verdict: agent.Approve},
		{CallID: "c4", Verdict: agent.Approve}, {CallID: "c3", Verdict: agent.Deny},
	}
	if len(h.agent.resumes) != 1 || !slices.Equal(h.agent.resumes[0], want) {
		t.Fatalf("resumes = %+v, want %+v", h.agent.resumes, want)
	}
}

// TestApproveTheseNeverApprovesProtected: when every call waiting writes a
// protected path, Y is not offered and does nothing.
func TestApproveTheseNeverApprovesProtected(t *testing.T) {
	h := ask(t, writeCall("c1", ".git/config"), writeCall("c2", ".tackle/config.json"))
	if s := h.screen(); strings.Contains(s, "approve these") || strings.Contains(s, "Y approve") {
		t.Errorf("Y offered for protected calls:\n%s", s)
	}
	h.keys("Y")
	if len(h.agent.resumes) != 0 || h.m.dialogs[0].(*approvalDialog).idx != 0 {
		t.Fatalf("Y decided a protected call: %+v", h.agent.resumes)
	}
	h.keys("y", "y")
	if len(h.agent.resumes) != 1 || len(h.agent.resumes[0]) != 2 {
		t.Fatalf("resumes = %+v", h.agent.resumes)
	}
}

// TestApproveTheseAfterOneByOne: Y after answering some calls one by one
// approves only those still waiting.
func TestApproveTheseAfterOneByOne(t *testing.T) {
	h := ask(t, bashCall("c1", "a"), bashCall("c2", "b"), bashCall("c3", "c"))
	h.keys("n", "Y")
	want := []agent.Decision{{CallID: "c1", Verdict: agent.Deny}, {CallID: "c2", Verdict: agent.Approve}, {CallID: "c3", Verdict: agent.Approve}}
	if len(h.agent.resumes) != 1 || !slices.Equal(h.agent.resumes[0], want) {
		t.Fatalf("resumes = %+v, want %+v", h.agent.resumes, want)
	}
}

func TestGoldenApproveThese(t *testing.T) {
	h := ask(t, bashCall("c1", "go build ./..."), bashCall("c2", "go test ./..."), writeCall("c3", ".git/config"))
	golden(t, "approval_batch_80x24", h.screen())
}

// TestApproveTheseHoldsBackWhatThePolicyHoldsBack: "approve these" leaves
// to be asked on its own exactly what the policy holds back
// (approval.Policy.HeldBack), the calls --yes does not approve either
// (tui/headless TestYesHoldsBackWhatThePolicyHoldsBack has the same
// calls): writes to protected paths, by a file tool or a shell redirect,
// but not one an allow rule names exactly.
func TestApproveTheseHoldsBackWhatThePolicyHoldsBack(t *testing.T) {
	reg, _ := testTools(t)
	allow, _, err := approval.Rules{Allow: []string{"write_file(.env)"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	policy := approval.New(approval.Default, reg, approval.WithRules(allow, nil))
	h := newHarness(t, func(o *Options) { o.Policy = policy })
	h.agent.outcomes = []fakeOutcome{paused(
		bashCall("c1", "make test"), writeCall("c2", "a.go"), writeCall("c3", ".git/config"),
		bashCall("c4", "echo x > .env"), editCall("c5", ".tackle/config.json"), writeCall("c6", ".env"),
	)}
	h.typeText("do it").keys("enter")
	h.keys("Y")
	if len(h.agent.resumes) != 0 {
		t.Fatal("resumed before the held-back calls were decided")
	}
	h.keys("n", "n", "n")
	want := []agent.Decision{
		{CallID: "c1", Verdict: agent.Approve}, {CallID: "c2", Verdict: agent.Approve}, {CallID: "c6", Verdict: agent.Approve},
		{CallID: "c3", Verdict: agent.Deny}, {CallID: "c4", Verdict: agent.Deny}, {CallID: "c5", Verdict: agent.Deny},
	}
	if len(h.agent.resumes) != 1 || !slices.Equal(h.agent.resumes[0], want) {
		t.Fatalf("resumes = %+v, want %+v", h.agent.resumes, want)
	}
}

func editCall(id, path string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: "edit_file", Arguments: `{"path":"` + path + `","old_string":"a","new_string":"b"}`}
}
