package tui

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
)

func TestCallChangedAfterApprovalIsShownWithItsNewArguments(t *testing.T) {
	h := ask(t, bashCall("c1", "ls"))
	// A hook changed the approved call: the run pauses on it again.
	changed := paused(bashCall("c1", "ls && rm -rf build"))
	changed.out.Pending[0].Reason = `hook "rewrite" changed the arguments after they were approved; asked again: bash wants to run`
	h.agent.outcomes = []fakeOutcome{changed}
	h.keys("y")
	if len(h.m.dialogs) != 1 {
		t.Fatalf("no dialog for the changed call:\n%s", h.screen())
	}
	s := h.screen()
	if !strings.Contains(s, "$ ls && rm -rf build") || !strings.Contains(s, `hook "rewrite" changed the arguments`) {
		t.Errorf("the dialog does not show the changed call and why:\n%s", s)
	}
	if got := h.m.tools["c1"].call.Arguments; !strings.Contains(got, "rm -rf build") {
		t.Errorf("the transcript's tool line still shows %s", got)
	}
	h.keys("y")
	if len(h.agent.resumes) != 2 || h.agent.resumes[1][0].Verdict != agent.Approve {
		t.Errorf("resumes = %+v", h.agent.resumes)
	}
}
