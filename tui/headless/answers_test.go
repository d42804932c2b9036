package headless

import (
	"reflect"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// TestDecisions: --approve and --deny answer a saved pause call by call or
// all at once, a named call winning over all; whatever would leave a call
// unanswered, answer it twice or answer a call that does not wait is an
// error naming it.
func TestDecisions(t *testing.T) {
	pending := []agent.PendingCall{
		{Call: chat.ToolCall{ID: "call_a", Name: "bash"}},
		{Call: chat.ToolCall{ID: "call_b", Name: "write_file"}},
	}
	approve := func(id string) agent.Decision {
		return agent.Decision{CallID: id, Verdict: agent.Approve, By: ByApprove}
	}
	deny := func(id, reason string) agent.Decision {
		return agent.Decision{CallID: id, Verdict: agent.Deny, Reason: reason, By: ByDeny}
	}
	for _, tc := range []struct {
		name    string
		approve []string
		denies  []Denial
		want    []agent.Decision
		err     string
	}{
		{"each", []string{"call_b"}, []Denial{{"call_a", "not now"}}, []agent.Decision{deny("call_a", "not now"), approve("call_b")}, ""},
		{"all", []string{"all"}, nil, []agent.Decision{approve("call_a"), approve("call_b")}, ""},
		{"a named call wins over all", []string{"all"}, []Denial{{"call_b", ""}}, []agent.Decision{approve("call_a"), deny("call_b", "")}, ""},
		{"deny all", nil, []Denial{{"all", "stop"}}, []agent.Decision{deny("call_a", "stop"), deny("call_b", "stop")}, ""},
		{"unanswered", []string{"call_a"}, nil, nil, "no answer for call_b (write_file): answer every pending call with --approve CALL_ID|all or --deny CALL_ID"},
		{"unknown", []string{"call_x"}, nil, nil, "--approve call_x: no such pending call (pending: call_a, call_b)"},
		{"twice", []string{"call_a"}, []Denial{{"call_a", ""}}, nil, "call call_a is answered twice"},
		{"all twice", []string{"all"}, []Denial{{"all", ""}}, nil, "all is answered twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decisions(pending, tc.approve, tc.denies)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Decisions = %+v, %v; want the error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decisions = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
