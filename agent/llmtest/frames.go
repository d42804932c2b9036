package llmtest

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// created is the timestamp of every chunk, fixed so streams are
// reproducible.
const created = 1700000000

// The wire shapes of a chat.completion.chunk, with fields in the order the
// OpenAI API sends them.
type (
	chunk struct {
		ID      string          `json:"id"`
		Object  string          `json:"object"`
		Created int64           `json:"created"`
		Model   string          `json:"model"`
		Choices []chunkChoice   `json:"choices"`
		Usage   json.RawMessage `json:"usage,omitempty"`
	}
	chunkChoice struct {
		Index        int             `json:"index"`
		Delta        delta           `json:"delta"`
		Logprobs     json.RawMessage `json:"logprobs"`
		FinishReason *string         `json:"finish_reason"`
	}
	delta struct {
		Role      string          `json:"role,omitempty"`
		Content   *string         `json:"content,omitempty"`
		Reasoning *string         `json:"reasoning_content,omitempty"`
		ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
	}
	toolCallDelta struct {
		Index    int           `json:"index"`
		ID       string        `json:"id,omitempty"`
		Type     string        `json:"type,omitempty"`
		Function functionDelta `json:"function"`
	}
	functionDelta struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	usageJSON struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
)

var jsonNull = json.RawMessage("null")

// stream describes the request a reply answers.
type stream struct {
	id           string
	model        string
	includeUsage bool
	requestBytes int
}

// frames returns the data of every frame of r's reply except [DONE]: the
// role chunk, content chunks, tool-call chunks, the finish chunk and, when
// asked for, the usage chunk.
func (s stream) frames(r Response) [][]byte {
	size := r.ChunkSize
	if size == 0 {
		size = DefaultChunkSize
	}
	var out [][]byte
	add := func(d delta, finish *string) {
		c := chunk{
			ID: s.id, Object: "chat.completion.chunk", Created: created, Model: s.model,
			Choices: []chunkChoice{{Delta: d, Logprobs: jsonNull, FinishReason: finish}},
		}
		if s.includeUsage {
			c.Usage = jsonNull
		}
		out = append(out, encode(c))
	}

	empty := ""
	add(delta{Role: "assistant", Content: &empty}, nil)
	for _, piece := range splitText(r.Reasoning, size) {
		add(delta{Reasoning: &piece}, nil)
	}
	for _, piece := range splitText(r.Content, size) {
		add(delta{Content: &piece}, nil)
	}
	for _, tc := range toolCallDeltas(r.ToolCalls, size, r.Interleave) {
		add(delta{ToolCalls: []toolCallDelta{tc}}, nil)
	}
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
		if len(r.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	add(delta{}, &finish)

	if s.includeUsage {
		u := s.usage(r)
		out = append(out, encode(chunk{
			ID: s.id, Object: "chat.completion.chunk", Created: created, Model: s.model,
			Choices: []chunkChoice{}, Usage: encode(u),
		}))
	}
	return out
}

// emptyDelta is a chunk whose delta carries nothing: no text, no
// reasoning, no tool call, no finish.
func (s stream) emptyDelta() []byte {
	empty := ""
	c := chunk{
		ID: s.id, Object: "chat.completion.chunk", Created: created, Model: s.model,
		Choices: []chunkChoice{{Delta: delta{Content: &empty}, Logprobs: jsonNull}},
	}
	if s.includeUsage {
		c.Usage = jsonNull
	}
	return encode(c)
}

// usage is r's scripted usage, or about four bytes a token.
func (s stream) usage(r Response) usageJSON {
	if r.Usage != nil {
		return usageJSON{
			PromptTokens:     r.Usage.PromptTokens,
			CompletionTokens: r.Usage.CompletionTokens,
			TotalTokens:      r.Usage.PromptTokens + r.Usage.CompletionTokens,
		}
	}
	out := len(r.Content)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := usageJSON{
		PromptTokens:     int64(max(1, s.requestBytes/4)),
		CompletionTokens: int64(max(1, out/4)),
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// toolCallDeltas returns the deltas of the calls: for each call a first
// delta with its index, id, type, name and empty arguments, then one delta
// per piece of the arguments. Interleaved, the calls take turns.
func toolCallDeltas(calls []ToolCall, size int, interleave bool) []toolCallDelta {
	perCall := make([][]toolCallDelta, len(calls))
	for i, c := range calls {
		ds := []toolCallDelta{{
			Index: i, ID: c.ID, Type: "function",
			Function: functionDelta{Name: c.Name},
		}}
		for _, piece := range splitText(c.Arguments, size) {
			ds = append(ds, toolCallDelta{Index: i, Function: functionDelta{Arguments: piece}})
		}
		perCall[i] = ds
	}
	var out []toolCallDelta
	if !interleave {
		for _, ds := range perCall {
			out = append(out, ds...)
		}
		return out
	}
	for round := 0; ; round++ {
		more := false
		for _, ds := range perCall {
			if round < len(ds) {
				out = append(out, ds[round])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// splitText cuts s into pieces of at most size bytes without splitting a
// UTF-8 character; a character wider than size makes a piece of its own.
func splitText(s string, size int) []string {
	var parts []string
	for len(s) > 0 {
		end := min(size, len(s))
		for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == 0 {
			_, end = utf8.DecodeRuneInString(s)
		}
		parts = append(parts, s[:end])
		s = s[end:]
	}
	return parts
}

// encode is json.Marshal without HTML escaping and without a newline.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the wire types always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
