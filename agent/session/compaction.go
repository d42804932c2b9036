package session

import (
	"reflect"

	"github.com/tackle-dev/tackle/tools/chat"
)

// after returns the conversation after the compaction c of before. A part
// naming messages before does not have (a file that lost lines) keeps
// what it can.
func (c *Compaction) after(before []chat.Message) []chat.Message {
	if c.Parts == nil {
		return append([]chat.Message(nil), c.Messages...)
	}
	var out []chat.Message
	for _, p := range c.Parts {
		if p.Message != nil {
			out = append(out, *p.Message)
			continue
		}
		from, to := max(p.From, 0), min(p.To, len(before))
		if from < to {
			out = append(out, before[from:to]...)
		}
	}
	return out
}

// compactParts encodes the conversation after a compaction, now, against
// the conversation before it: a run of messages kept as they were is
// named by its place in before, any other message is given whole.
func compactParts(before, now []chat.Message) []CompactedPart {
	// Candidates by a cheap key, so that finding a kept message does not
	// compare it with every message before.
	type key struct {
		role chat.Role
		n    int
		id   string
	}
	keyOf := func(m *chat.Message) key { return key{m.Role, len(m.Content), m.ToolCallID} }
	at := make(map[key][]int, len(before))
	for i := range before {
		k := keyOf(&before[i])
		at[k] = append(at[k], i)
	}
	var parts []CompactedPart
	next := 0 // before is searched from here on: kept messages keep their order
	for i := range now {
		m := &now[i]
		found := -1
		if next < len(before) && reflect.DeepEqual(before[next], *m) {
			found = next
		} else {
			for _, j := range at[keyOf(m)] {
				if j >= next && reflect.DeepEqual(before[j], *m) {
					found = j
					break
				}
			}
		}
		if found < 0 {
			parts = append(parts, CompactedPart{Message: m})
			continue
		}
		if n := len(parts); n > 0 && parts[n-1].Message == nil && parts[n-1].To == found {
			parts[n-1].To++
		} else {
			parts = append(parts, CompactedPart{From: found, To: found + 1})
		}
		next = found + 1
	}
	return parts
}
