package hooks_test

import (
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

func feedback(texts ...string) []chat.Message {
	msgs := make([]chat.Message, len(texts))
	for i, s := range texts {
		msgs[i] = chat.UserMessage(s)
	}
	return msgs
}

func TestRetryBudget(t *testing.T) {
	type step struct {
		reset  bool // call Reset instead of Admit
		msgs   []chat.Message
		ok     bool
		reason string
		rounds int // Rounds() afterwards
	}
	usedUp := "retry budget of 3 rounds used up"
	same := "the same feedback was given twice in a row"
	for _, tc := range []struct {
		name  string
		max   int
		steps []step
	}{
		{"rounds up to the default max", 0, []step{
			{msgs: feedback("a.go:1: x"), ok: true, rounds: 1},
			{msgs: feedback("a.go:2: x"), ok: true, rounds: 2},
			{msgs: feedback("a.go:3: x"), ok: true, rounds: 3},
			{msgs: feedback("a.go:4: x"), reason: usedUp, rounds: 3},
		}},
		{"no retries", hooks.NoRetries, []step{
			{msgs: feedback("x"), reason: "retries are off (a retry budget of 0 rounds)", rounds: 0},
		}},
		{"a custom max", 1, []step{
			{msgs: feedback("x"), ok: true, rounds: 1},
			{msgs: feedback("y"), reason: "retry budget of 1 rounds used up", rounds: 1},
		}},
		{"the same feedback twice in a row", 0, []step{
			{msgs: feedback("a.go:1: x", "b.go:2: y"), ok: true, rounds: 1},
			{msgs: feedback("a.go:1: x", "b.go:2: y"), reason: same, rounds: 1},
			{msgs: feedback("a.go:1: x"), ok: true, rounds: 2},
		}},
		{"same contents with another role differ", 0, []step{
			{msgs: []chat.Message{{Role: chat.RoleUser, Content: "x"}}, ok: true, rounds: 1},
			{msgs: []chat.Message{{Role: chat.RoleSystem, Content: "x"}}, ok: true, rounds: 2},
		}},
		{"feedback only counts when admitted", 1, []step{
			{msgs: feedback("x"), ok: true, rounds: 1},
			{msgs: feedback("y"), reason: "retry budget of 1 rounds used up", rounds: 1},
			{reset: true},
			{msgs: feedback("x"), ok: true, rounds: 1}, // x, not y, was admitted last, but Reset forgot it
		}},
		{"reset ends a streak", 0, []step{
			{msgs: feedback("a"), ok: true, rounds: 1},
			{msgs: feedback("b"), ok: true, rounds: 2},
			{msgs: feedback("c"), ok: true, rounds: 3},
			{reset: true},
			{msgs: feedback("c"), ok: true, rounds: 1},
			{msgs: feedback("d"), ok: true, rounds: 2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := hooks.NewRetryBudget(tc.max)
			want := tc.max
			switch {
			case tc.max == 0:
				want = hooks.DefaultRetryBudget
			case tc.max < 0:
				want = 0
			}
			if b.Max() != want {
				t.Fatalf("Max() = %d for NewRetryBudget(%d)", b.Max(), tc.max)
			}
			for i, s := range tc.steps {
				if s.reset {
					b.Reset()
					if b.Rounds() != 0 {
						t.Fatalf("step %d: Rounds() = %d after Reset", i, b.Rounds())
					}
					continue
				}
				ok, reason := b.Admit(s.msgs)
				if ok != s.ok || reason != s.reason || b.Rounds() != s.rounds {
					t.Fatalf("step %d: Admit = %v, %q with %d rounds; want %v, %q with %d", i, ok, reason, b.Rounds(), s.ok, s.reason, s.rounds)
				}
			}
		})
	}
}

func TestRetryBudgetKeepsItsOwnCopy(t *testing.T) {
	b := hooks.NewRetryBudget(3)
	msgs := feedback("x")
	b.Admit(msgs)
	msgs[0].Content = "changed"
	if ok, reason := b.Admit(feedback("x")); ok {
		t.Errorf("Admit after the caller changed its slice = %v, %q; want the repeat of x refused", ok, reason)
	}
}

// A budget carried to another process counts on: the same rounds, and
// the same feedback twice is still refused.
func TestRetryBudgetStateRoundTrip(t *testing.T) {
	b := hooks.NewRetryBudget(3)
	b.Admit(feedback("x"))
	b.Admit(feedback("y"))
	st := b.State()
	if st.Rounds != 2 || len(st.Last) != 1 || st.Last[0].Content != "y" {
		t.Fatalf("State = %+v", st)
	}
	c := hooks.NewRetryBudget(3)
	c.Restore(st)
	if c.Rounds() != 2 {
		t.Errorf("Rounds = %d", c.Rounds())
	}
	if ok, _ := c.Admit(feedback("y")); ok {
		t.Error("the repeated feedback was admitted after Restore")
	}
	if ok, _ := c.Admit(feedback("z")); !ok {
		t.Error("the third round was refused")
	}
	if ok, _ := c.Admit(feedback("w")); ok {
		t.Error("a fourth round of three was admitted")
	}
	c.Restore(hooks.BudgetState{})
	if c.Rounds() != 0 {
		t.Errorf("Restore of a zero state: %d rounds", c.Rounds())
	}
}
