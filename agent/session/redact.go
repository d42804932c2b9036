package session

import (
	"encoding/json"
	"slices"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// redactRecord returns r with every free-text string passed through
// redact. It copies what it changes: the caller's messages are the live
// conversation.
func redactRecord(r Record, redact func(string) string) Record {
	if m := r.Message; m != nil {
		c := redactMessage(*m, redact)
		r.Message = &c
	}
	if d := r.Decision; d != nil {
		c := *d
		c.Reason, c.Error = redact(c.Reason), redact(c.Error)
		r.Decision = &c
	}
	if len(r.Pending) > 0 {
		r.Pending = slices.Clone(r.Pending)
		for i := range r.Pending {
			p := &r.Pending[i]
			p.Call.Arguments, p.Reason = redact(p.Call.Arguments), redact(p.Reason)
		}
	}
	if r.Paused != nil {
		r.Paused = redactPaused(*r.Paused, redact)
	}
	r.Note = redact(r.Note)
	if c := r.Rule; c != nil {
		cc := *c
		cc.Rule = redact(cc.Rule)
		r.Rule = &cc
	}
	if c := r.Check; c != nil {
		cc := *c
		cc.Summary = redact(cc.Summary)
		r.Check = &cc
	}
	if len(r.Answers) > 0 {
		r.Answers = slices.Clone(r.Answers)
		for i := range r.Answers {
			r.Answers[i].Reason = redact(r.Answers[i].Reason)
		}
	}
	if c := r.Compaction; c != nil {
		cc := *c
		cc.Summary = redact(cc.Summary)
		if c.Messages != nil {
			cc.Messages = make([]chat.Message, len(c.Messages))
			for i, m := range c.Messages {
				cc.Messages[i] = redactMessage(m, redact)
			}
		}
		if c.Parts != nil {
			cc.Parts = slices.Clone(c.Parts)
			for i, p := range cc.Parts {
				if p.Message != nil {
					m := redactMessage(*p.Message, redact)
					cc.Parts[i].Message = &m
				}
			}
		}
		r.Compaction = &cc
	}
	if len(r.Todos) > 0 {
		r.Todos = slices.Clone(r.Todos)
		for i := range r.Todos {
			r.Todos[i].Content = redact(r.Todos[i].Content)
		}
	}
	if o := r.Outcome; o != nil {
		oc := *o
		oc.Reason = redact(oc.Reason)
		r.Outcome = &oc
	}
	return r
}

// redactMessage returns m with its text, reasoning, provider fields and
// tool-call arguments redacted, sharing nothing with m that it changed.
func redactMessage(m chat.Message, redact func(string) string) chat.Message {
	m.Content = redact(m.Content)
	m.Reasoning = redact(m.Reasoning)
	m.Extra = redactExtra(m.Extra, redact)
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range m.ToolCalls {
		m.ToolCalls[i].Arguments = redact(m.ToolCalls[i].Arguments)
		m.ToolCalls[i].Extra = redactExtra(m.ToolCalls[i].Extra, redact)
	}
	return m
}

// redactExtra redacts the raw JSON of provider fields (the reasoning sent
// back, signatures). A field the redaction leaves invalid JSON is dropped:
// a resumed session then lacks it, but the file never holds a secret.
func redactExtra(extra map[string]json.RawMessage, redact func(string) string) map[string]json.RawMessage {
	if len(extra) == 0 {
		return extra
	}
	out := make(map[string]json.RawMessage, len(extra))
	for k, v := range extra {
		if r := redact(string(v)); json.Valid([]byte(r)) {
			out[k] = json.RawMessage(r)
		}
	}
	return out
}

// redactPaused returns a copy of p with its texts redacted: the calls'
// arguments (a call resumed from the file runs with what is left),
// results and reasons, the retry feedback and the last text.
func redactPaused(p agent.PausedRun, redact func(string) string) *agent.PausedRun {
	p.LastText = redact(p.LastText)
	p.Calls = slices.Clone(p.Calls)
	for i := range p.Calls {
		c := &p.Calls[i]
		c.Call.Arguments, c.Current.Arguments, c.Reason = redact(c.Call.Arguments), redact(c.Current.Arguments), redact(c.Reason)
		if c.Result != nil {
			res := *c.Result
			res.Content = redact(res.Content)
			c.Result = &res
		}
	}
	if te := p.TurnEnd; te != nil {
		tc := *te
		tc.Reason, tc.Final = redact(tc.Reason), redactMessage(tc.Final, redact)
		p.TurnEnd = &tc
	}
	p.Retry.Last = slices.Clone(p.Retry.Last)
	for i := range p.Retry.Last {
		p.Retry.Last[i] = redactMessage(p.Retry.Last[i], redact)
	}
	return &p
}
