package session

import "slices"

// redactRecord returns r with every free-text string passed through
// redact. It copies what it changes: the caller's messages are the live
// conversation.
func redactRecord(r Record, redact func(string) string) Record {
	if m := r.Message; m != nil {
		c := *m
		c.Content = redact(c.Content)
		c.ToolCalls = slices.Clone(c.ToolCalls)
		for i := range c.ToolCalls {
			c.ToolCalls[i].Arguments = redact(c.ToolCalls[i].Arguments)
		}
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
	if len(r.Answers) > 0 {
		r.Answers = slices.Clone(r.Answers)
		for i := range r.Answers {
			r.Answers[i].Reason = redact(r.Answers[i].Reason)
		}
	}
	if c := r.Compaction; c != nil {
		cc := *c
		cc.Summary = redact(cc.Summary)
		r.Compaction = &cc
	}
	if o := r.Outcome; o != nil {
		oc := *o
		oc.Reason = redact(oc.Reason)
		r.Outcome = &oc
	}
	return r
}
