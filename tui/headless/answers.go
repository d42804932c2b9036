package headless

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tackle-dev/tackle/agent"
)

// Who answered a call of a saved pause, as Decision.By reports it (and
// the session records it).
const (
	ByApprove = "--approve"
	ByDeny    = "--deny"
)

// Denial is one --deny CALL_ID (or all) answering a saved pause, with the
// --reason that follows it (the model is told it).
type Denial struct{ CallID, Reason string }

// Decisions answers every call of a saved pause from the values of
// --approve and the Denials of --deny, each a call's ID or "all": a call
// named wins over "all"; an unknown call, one answered twice or one left
// unanswered is an error that names it. The decisions, in the order of
// pending, are Continue's.
func Decisions(pending []agent.PendingCall, approve []string, denies []Denial) ([]agent.Decision, error) {
	byID := map[string]agent.Decision{}
	var all *agent.Decision
	set := func(id string, d agent.Decision) error {
		if id == "all" {
			if all != nil {
				return errors.New("all is answered twice")
			}
			all = &d
			return nil
		}
		if _, dup := byID[id]; dup {
			return fmt.Errorf("call %s is answered twice", id)
		}
		byID[id] = d
		return nil
	}
	known := map[string]bool{"all": true}
	for _, p := range pending {
		known[p.Call.ID] = true
	}
	for _, id := range approve {
		if !known[id] {
			return nil, fmt.Errorf("--approve %s: no such pending call (pending: %s)", id, PendingList(pending))
		}
		if err := set(id, agent.Decision{Verdict: agent.Approve, By: ByApprove}); err != nil {
			return nil, err
		}
	}
	for _, d := range denies {
		if err := set(d.CallID, agent.Decision{Verdict: agent.Deny, Reason: d.Reason, By: ByDeny}); err != nil {
			return nil, err
		}
	}
	var out []agent.Decision
	var missing []string
	for _, p := range pending {
		d, ok := byID[p.Call.ID]
		if !ok && all != nil {
			d, ok = *all, true
		}
		if !ok {
			missing = append(missing, p.Call.ID+" ("+p.Call.Name+")")
			continue
		}
		d.CallID = p.Call.ID
		out = append(out, d)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no answer for %s: answer every pending call with --approve CALL_ID|all or --deny CALL_ID", strings.Join(missing, ", "))
	}
	return out, nil
}

// PendingList names the pending calls by ID, as messages list them:
// "call_a, call_b".
func PendingList(pending []agent.PendingCall) string {
	ids := make([]string, len(pending))
	for i, p := range pending {
		ids[i] = p.Call.ID
	}
	return strings.Join(ids, ", ")
}
