package hooks

import (
	"fmt"

	"github.com/tackle-dev/tackle/tools/chat"
)

// DefaultRetryBudget is the number of consecutive ContinueWithMessages
// rounds a Run allows when no budget is configured.
const DefaultRetryBudget = 3

// RetryBudget limits the ContinueWithMessages rounds of one Run: at most
// Max consecutive rounds, and never the same feedback twice in a row. The
// agent asks Admit before appending the messages of an on_turn_end
// ContinueWithMessages result; when Admit refuses, the Run ends as capped.
//
// A RetryBudget belongs to one Run and is not safe for concurrent use.
type RetryBudget struct {
	max    int
	rounds int
	last   []feedback // the previously admitted messages; nil if none
}

// feedback is the part of a message that makes it the same feedback.
type feedback struct {
	role    chat.Role
	content string
}

// NoRetries, given to NewRetryBudget, allows no rounds: the first
// ContinueWithMessages ends the Run as capped.
const NoRetries = -1

// NewRetryBudget returns a budget of maxRounds consecutive rounds. Zero
// means DefaultRetryBudget and a negative value (NoRetries) allows none,
// as with net.Dialer's KeepAlive.
func NewRetryBudget(maxRounds int) *RetryBudget {
	switch {
	case maxRounds == 0:
		maxRounds = DefaultRetryBudget
	case maxRounds < 0:
		maxRounds = 0
	}
	return &RetryBudget{max: maxRounds}
}

// Admit reports whether one more round with msgs may run and, if it may,
// counts it. It refuses, with a reason for the user, when the rounds are
// used up or when msgs are the same (roles and contents) as the messages
// admitted last.
func (b *RetryBudget) Admit(msgs []chat.Message) (ok bool, reason string) {
	if b.last != nil && sameFeedback(b.last, msgs) {
		return false, "the same feedback was given twice in a row"
	}
	if b.max == 0 {
		return false, "retries are off (a retry budget of 0 rounds)"
	}
	if b.rounds >= b.max {
		return false, fmt.Sprintf("retry budget of %d rounds used up", b.max)
	}
	b.rounds++
	b.last = make([]feedback, len(msgs))
	for i, m := range msgs {
		b.last[i] = feedback{m.Role, m.Content}
	}
	return true, ""
}

func sameFeedback(last []feedback, msgs []chat.Message) bool {
	if len(last) != len(msgs) {
		return false
	}
	for i, m := range msgs {
		if last[i] != (feedback{m.Role, m.Content}) {
			return false
		}
	}
	return true
}

// Rounds reports how many rounds were admitted since the last Reset.
func (b *RetryBudget) Rounds() int { return b.rounds }

// Max reports the number of consecutive rounds allowed.
func (b *RetryBudget) Max() int { return b.max }

// Reset ends a streak: the rounds count starts again from zero and the last
// feedback is forgotten. The agent calls it when the model made progress.
func (b *RetryBudget) Reset() {
	b.rounds = 0
	b.last = nil
}

// BudgetState is what a RetryBudget has counted, in a form that outlives
// the process: a run paused in one tackle goes on in another with the
// same streak (State, then Restore on the new budget).
type BudgetState struct {
	Rounds int `json:"rounds"`
	// Last is the feedback admitted last (roles and contents).
	Last []chat.Message `json:"last,omitempty"`
}

// State returns what b has counted.
func (b *RetryBudget) State() BudgetState {
	s := BudgetState{Rounds: b.rounds}
	for _, f := range b.last {
		s.Last = append(s.Last, chat.Message{Role: f.role, Content: f.content})
	}
	return s
}

// Restore sets b's count to s; b keeps its own maximum.
func (b *RetryBudget) Restore(s BudgetState) {
	b.rounds = s.Rounds
	b.last = nil
	if s.Last != nil {
		b.last = make([]feedback, len(s.Last))
		for i, m := range s.Last {
			b.last[i] = feedback{m.Role, m.Content}
		}
	}
}
