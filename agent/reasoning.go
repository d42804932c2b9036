package agent

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"
)

// How servers stream a reply's reasoning, as fields of the delta that
// openai-go does not know (they land in its JSON.ExtraFields):
//
//   - reasoning_content, a string: DeepSeek, vLLM (older), llama.cpp,
//     LM Studio. DeepSeek's thinking mode needs it back on an assistant
//     message that made tool calls, so it is kept in Message.Extra.
//   - reasoning, a string: Ollama, OpenRouter, vLLM, Groq. Not sent back
//     (Groq rejects an assistant message with it).
//   - reasoning_details, an array of objects: OpenRouter, alongside
//     reasoning. Its items ({"type":"reasoning.text","text":…,
//     "signature":…,"index":0}, reasoning.summary, reasoning.encrypted)
//     arrive in pieces, merged by index, and go back whole (OpenRouter
//     needs them to go on reasoning after a tool call).
const (
	fieldReasoningContent = "reasoning_content"
	fieldReasoning        = "reasoning"
	fieldReasoningDetails = "reasoning_details"
)

// reasoning collects the reasoning and the unknown fields of one reply's
// deltas.
type reasoning struct {
	text    strings.Builder
	content bool // the server used reasoning_content
	details []map[string]json.RawMessage
	byIndex map[string]int // a details item's index → its place in details
	extra   map[string]json.RawMessage
}

// delta takes in the unknown fields of one delta and returns the
// reasoning text it carried.
func (r *reasoning) delta(fields map[string]respjson.Field) string {
	var text string
	for name, f := range fields {
		raw := f.Raw()
		if raw == "" || raw == "null" {
			continue
		}
		switch name {
		case fieldReasoningContent, fieldReasoning:
			var s string
			if json.Unmarshal([]byte(raw), &s) != nil {
				continue
			}
			text += s
			r.content = r.content || name == fieldReasoningContent
		case fieldReasoningDetails:
			r.addDetails(raw)
		default:
			if r.extra == nil {
				r.extra = make(map[string]json.RawMessage)
			}
			r.extra[name] = json.RawMessage(raw)
		}
	}
	// OpenRouter repeats the text of reasoning_details in reasoning; the
	// details speak only when no string field did.
	if text == "" {
		if f, ok := fields[fieldReasoningDetails]; ok {
			text = detailsText(f.Raw())
		}
	}
	r.text.WriteString(text)
	return text
}

// addDetails merges the items of one delta's reasoning_details: an item
// with the index of an earlier one continues it (its text and summary
// appended, other fields replaced), any other is a new item.
func (r *reasoning) addDetails(raw string) {
	var items []map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &items) != nil {
		return
	}
	for _, item := range items {
		idx, ok := item["index"]
		at, seen := r.byIndex[string(idx)]
		if !ok || !seen {
			if ok {
				if r.byIndex == nil {
					r.byIndex = make(map[string]int)
				}
				r.byIndex[string(idx)] = len(r.details)
			}
			r.details = append(r.details, maps.Clone(item))
			continue
		}
		old := r.details[at]
		for k, v := range item {
			if k == "text" || k == "summary" {
				old[k] = appendJSONString(old[k], v)
			} else {
				old[k] = v
			}
		}
	}
}

// appendJSONString returns the JSON string a+b, or b when either is not a
// string.
func appendJSONString(a, b json.RawMessage) json.RawMessage {
	var x, y string
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return b
	}
	out, _ := json.Marshal(x + y)
	return out
}

// detailsText is the readable text of reasoning_details items.
func detailsText(raw string) string {
	var items []struct {
		Text    string `json:"text"`
		Summary string `json:"summary"`
	}
	if json.Unmarshal([]byte(raw), &items) != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.Text)
		b.WriteString(it.Summary)
	}
	return b.String()
}

// message returns the reasoning text and the fields to send back with the
// assistant message.
func (r *reasoning) message() (string, map[string]json.RawMessage) {
	extra := maps.Clone(r.extra)
	set := func(name string, v any) {
		raw, err := json.Marshal(v)
		if err != nil {
			return
		}
		if extra == nil {
			extra = make(map[string]json.RawMessage)
		}
		extra[name] = raw
	}
	if r.content {
		set(fieldReasoningContent, r.text.String())
	}
	if len(r.details) > 0 {
		set(fieldReasoningDetails, r.details)
	}
	return r.text.String(), extra
}

// callExtra adds the unknown fields of one tool-call entry to extra
// (the last value of a field wins) and returns it.
func callExtra(extra map[string]json.RawMessage, fields map[string]respjson.Field) map[string]json.RawMessage {
	for name, f := range fields {
		if raw := f.Raw(); raw != "" && raw != "null" {
			if extra == nil {
				extra = make(map[string]json.RawMessage)
			}
			extra[name] = json.RawMessage(raw)
		}
	}
	return extra
}

// extraFields returns extra as openai-go's extra fields of a parameter.
func extraFields(extra map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(extra))
	for k, v := range extra {
		out[k] = v
	}
	return out
}
