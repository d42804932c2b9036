package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// ---- what a hook reads on stdin ----

type header struct {
	Event     string `json:"event"`
	Workspace string `json:"workspace"`
}

type wireCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the arguments object, or the raw text as a JSON string
	// when the model sent something that is not JSON.
	Arguments json.RawMessage `json:"arguments"`
}

type wireMessage struct {
	Role       chat.Role  `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type wireResult struct {
	Status  chat.ResultStatus `json:"status"`
	Content string            `json:"content"`
}

type promptInput struct {
	header
	Prompt string `json:"prompt"`
}

type requestInput struct {
	header
	Model    string        `json:"model"`
	Request  int           `json:"request"`
	Messages []wireMessage `json:"messages"`
}

type preToolInput struct {
	header
	ToolCall wireCall `json:"tool_call"`
}

type postToolInput struct {
	header
	ToolCall wireCall   `json:"tool_call"`
	Result   wireResult `json:"result"`
}

type turnEndInput struct {
	header
	Final    string        `json:"final"`
	Round    int           `json:"round"`
	Messages []wireMessage `json:"messages"`
}

type compactInput struct {
	header
	Trigger     hooks.CompactTrigger `json:"trigger"`
	Focus       string               `json:"focus,omitempty"`
	Summary     string               `json:"summary"`
	Replaced    int                  `json:"replaced"`
	Pruned      int                  `json:"pruned"`
	Tokens      int64                `json:"tokens"`
	TokensAfter int64                `json:"tokens_after"`
	Window      int64                `json:"window"`
	Messages    []wireMessage        `json:"messages"`
}

type abortInput struct {
	header
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
}

func (r *runner) header() header {
	return header{Event: r.event.String(), Workspace: r.dir}
}

func toWireCall(c chat.ToolCall) wireCall {
	return wireCall{ID: c.ID, Name: c.Name, Arguments: argumentsJSON(c.Arguments)}
}

// argumentsJSON is args itself if it is JSON, else args as a JSON string.
func argumentsJSON(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(args) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

func toWireMessages(ms []chat.Message) []wireMessage {
	out := make([]wireMessage, len(ms))
	for i, m := range ms {
		out[i] = wireMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			out[i].ToolCalls = make([]wireCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				out[i].ToolCalls[j] = toWireCall(c)
			}
		}
	}
	return out
}

// ---- what a hook writes on stdout ----

// output is a hook's answer. Unknown fields are ignored; so are fields
// that do not belong to the hook's event.
type output struct {
	Action    *string         `json:"action"`
	Reason    string          `json:"reason"`
	Prompt    *string         `json:"prompt"`    // on_prompt_submit
	Arguments json.RawMessage `json:"arguments"` // pre_tool_call
	Output    *string         `json:"output"`    // post_tool_call
	Messages  json.RawMessage `json:"messages"`  // on_turn_end
	Summary   *string         `json:"summary"`   // pre_compact
}

// decodeOutput parses stdout: nothing (white space only) gives ok false;
// anything but exactly one JSON object is an error.
func decodeOutput(stdout []byte) (out output, ok bool, err error) {
	stdout = bytes.TrimSpace(stdout)
	if len(stdout) == 0 {
		return output{}, false, nil
	}
	if stdout[0] != '{' {
		return output{}, false, fmt.Errorf("stdout is not a JSON object (write logs to stderr): %s", head(stdout))
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	if err := dec.Decode(&out); err != nil {
		return output{}, false, fmt.Errorf("stdout: invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return output{}, false, fmt.Errorf("stdout: unexpected data after the JSON object: %s", head(stdout[dec.InputOffset():]))
	}
	return out, true, nil
}

// head quotes the start of b for an error message.
func head(b []byte) string {
	const n = 200
	s := string(bytes.TrimSpace(b))
	if len(s) > n {
		s = s[:n] + "…"
	}
	return fmt.Sprintf("%q", s)
}

type choice[A any] struct {
	name  string
	value A
}

// parseAction maps the action named by got to its value.
func parseAction[A any](ev hooks.Event, got *string, choices ...choice[A]) (A, error) {
	names := make([]string, len(choices))
	for i, c := range choices {
		if got != nil && *got == c.name {
			return c.value, nil
		}
		names[i] = c.name
	}
	var zero A
	if got == nil {
		return zero, fmt.Errorf(`stdout: missing "action" (want %s)`, orList(names))
	}
	return zero, fmt.Errorf("stdout: invalid action %q for %s (want %s)", *got, ev, orList(names))
}

// blockReason is the reason of an exit status 2: the hook's stderr, or a
// stand-in if it wrote nothing.
func (r *runner) blockReason(x exit) string {
	if x.stderr != "" {
		return x.stderr
	}
	return fmt.Sprintf("blocked by hook %q (exit status 2)", r.name)
}

// summary is the first line of s, shortened, for a decision's reason.
func summary(s string) string {
	const n = 200
	line, rest, _ := strings.Cut(strings.TrimSpace(s), "\n")
	more := rest != ""
	if len(line) > n {
		line, more = strings.ToValidUTF8(line[:n], ""), true
	}
	if more {
		line += " …"
	}
	return line
}

// ---- the hooks' Run funcs, one per event ----

func (r *runner) prompt(ctx context.Context, in *hooks.PromptInput) (hooks.PromptResult, error) {
	x, err := r.run(ctx, promptInput{r.header(), in.Message.Content})
	if err != nil {
		return hooks.PromptResult{}, err
	}
	if x.blocked {
		return hooks.PromptResult{Action: hooks.PromptCancel, Reason: r.blockReason(x)}, nil
	}
	out, ok, err := decodeOutput(x.stdout)
	if !ok {
		return hooks.PromptResult{}, err
	}
	act, err := parseAction(r.event, out.Action,
		choice[hooks.PromptAction]{"continue", hooks.PromptContinue},
		choice[hooks.PromptAction]{"cancel", hooks.PromptCancel})
	if err != nil {
		return hooks.PromptResult{}, err
	}
	if out.Prompt != nil {
		if strings.TrimSpace(*out.Prompt) == "" {
			return hooks.PromptResult{}, errors.New(`stdout: "prompt" is empty (use action "cancel" to drop the prompt)`)
		}
		in.Message.Content = *out.Prompt
	}
	return hooks.PromptResult{Action: act, Reason: out.Reason}, nil
}

func (r *runner) request(ctx context.Context, in *hooks.LLMRequestInput) (hooks.RequestResult, error) {
	x, err := r.run(ctx, requestInput{r.header(), in.Model, in.Request, toWireMessages(in.Messages)})
	if err != nil {
		return hooks.RequestResult{}, err
	}
	if x.blocked {
		return hooks.RequestResult{Action: hooks.RequestCancel, Reason: r.blockReason(x)}, nil
	}
	out, ok, err := decodeOutput(x.stdout)
	if !ok {
		return hooks.RequestResult{}, err
	}
	act, err := parseAction(r.event, out.Action,
		choice[hooks.RequestAction]{"continue", hooks.RequestContinue},
		choice[hooks.RequestAction]{"cancel", hooks.RequestCancel})
	if err != nil {
		return hooks.RequestResult{}, err
	}
	return hooks.RequestResult{Action: act, Reason: out.Reason}, nil
}

// matches reports whether the hook is for the tool named name.
func (r *runner) matches(name string) bool {
	if r.tools == nil {
		return true
	}
	for _, p := range r.tools {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func (r *runner) preTool(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
	if !r.matches(in.Call.Name) {
		return hooks.PreToolResult{}, nil
	}
	x, err := r.run(ctx, preToolInput{r.header(), toWireCall(in.Call)})
	if err != nil {
		return hooks.PreToolResult{}, err
	}
	if x.blocked {
		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: r.blockReason(x)}, nil
	}
	out, ok, err := decodeOutput(x.stdout)
	if !ok {
		return hooks.PreToolResult{}, err
	}
	act, err := parseAction(r.event, out.Action,
		choice[hooks.PreToolAction]{"continue", hooks.ToolContinue},
		choice[hooks.PreToolAction]{"skip", hooks.ToolSkip},
		choice[hooks.PreToolAction]{"abort", hooks.ToolAbort},
		choice[hooks.PreToolAction]{"pause", hooks.ToolPause})
	if err != nil {
		return hooks.PreToolResult{}, err
	}
	if a := bytes.TrimSpace(out.Arguments); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
		if a[0] != '{' {
			return hooks.PreToolResult{}, fmt.Errorf(`stdout: "arguments" must be a JSON object, got %s`, head(a))
		}
		var b bytes.Buffer
		if err := json.Compact(&b, a); err != nil {
			return hooks.PreToolResult{}, fmt.Errorf(`stdout: "arguments": %w`, err)
		}
		in.Call.Arguments = b.String()
	}
	return hooks.PreToolResult{Action: act, Reason: out.Reason}, nil
}

func (r *runner) postTool(ctx context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
	if !r.matches(in.Call.Name) {
		return hooks.PostToolResult{}, nil
	}
	x, err := r.run(ctx, postToolInput{
		header:   r.header(),
		ToolCall: toWireCall(in.Call),
		Result:   wireResult{Status: in.Result.Status, Content: in.Result.Content},
	})
	if err != nil {
		return hooks.PostToolResult{}, err
	}
	if x.blocked {
		// The tool already ran: the feedback goes to the model with its
		// result, and the turn goes on.
		if x.stderr == "" {
			return hooks.PostToolResult{}, nil
		}
		feedback := fmt.Sprintf("Hook feedback (%s): %s", r.name, x.stderr)
		if in.Result.Content != "" {
			feedback = strings.TrimRight(in.Result.Content, "\n") + "\n\n" + feedback
		}
		in.Result.Content = feedback
		return hooks.PostToolResult{Action: hooks.PostContinue, Reason: summary(x.stderr)}, nil
	}
	out, ok, err := decodeOutput(x.stdout)
	if !ok {
		return hooks.PostToolResult{}, err
	}
	act, err := parseAction(r.event, out.Action,
		choice[hooks.PostToolAction]{"continue", hooks.PostContinue},
		choice[hooks.PostToolAction]{"abort", hooks.PostAbort})
	if err != nil {
		return hooks.PostToolResult{}, err
	}
	if out.Output != nil {
		in.Result.Content = *out.Output
	}
	return hooks.PostToolResult{Action: act, Reason: out.Reason}, nil
}

func (r *runner) turnEnd(ctx context.Context, in *hooks.TurnEndInput) (hooks.TurnEndResult, error) {
	x, err := r.run(ctx, turnEndInput{r.header(), in.Final.Content, in.Round, toWireMessages(in.Messages)})
	if err != nil {
		return hooks.TurnEndResult{}, err
	}
	if x.blocked {
		// Claude Code's Stop hook: stderr is feedback for the model.
		return hooks.TurnEndResult{
			Action:   hooks.TurnContinueWithMessages,
			Messages: []chat.Message{chat.UserMessage(r.blockReason(x))},
			Reason:   summary(r.blockReason(x)),
		}, nil
	}
	out, ok, err := decodeOutput(x.stdout)
	if !ok {
		return hooks.TurnEndResult{}, err
	}
	act, err := parseAction(r.event, out.Action,
		choice[hooks.TurnEndAction]{"finish", hooks.TurnFinish},
		choice[hooks.TurnEndAction]{"continue_with_messages", hooks.TurnContinueWithMessages},
		choice[hooks.TurnEndAction]{"paused", hooks.TurnPaused})
	if err != nil {
		return hooks.TurnEndResult{}, err
	}
	res := hooks.TurnEndResult{Action: act, Reason: out.Reason}
	if act == hooks.TurnContinueWithMessages {
		if res.Messages, err = parseMessages(out.Messages); err != nil {
			return hooks.TurnEndResult{}, err
		}
	}
	return res, nil
}

// parseMessages reads the "messages" of continue_with_messages: strings
// (user messages) or {"role", "content"} objects, at least one.
func parseMessages(raw json.RawMessage) ([]chat.Message, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, errors.New(`stdout: continue_with_messages needs "messages": a non-empty array of strings or {"role", "content"} objects`)
	}
	msgs := make([]chat.Message, len(items))
	for i, item := range items {
		var m struct {
			Role    chat.Role `json:"role"`
			Content string    `json:"content"`
		}
		switch item[0] {
		case '"':
			if err := json.Unmarshal(item, &m.Content); err != nil {
				return nil, fmt.Errorf("stdout: messages[%d]: %w", i, err)
			}
		case '{':
			if err := json.Unmarshal(item, &m); err != nil {
				return nil, fmt.Errorf("stdout: messages[%d]: %w", i, err)
			}
		default:
			return nil, fmt.Errorf(`stdout: messages[%d]: want a string or a {"role", "content"} object, got %s`, i, head(item))
		}
		switch m.Role {
		case "":
			m.Role = chat.RoleUser
		case chat.RoleUser, chat.RoleSystem:
		default:
			return nil, fmt.Errorf(`stdout: messages[%d]: role %q (want "user" or "system")`, i, m.Role)
		}
		if strings.TrimSpace(m.Content) == "" {
			return nil, fmt.Errorf("stdout: messages[%d] is empty", i)
		}
		msgs[i] = chat.Message{Role: m.Role, Content: m.Content}
	}
	return msgs, nil
}

func (r *runner) compact(ctx context.Context, in *hooks.CompactInput) (hooks.CompactResult, error) {
	x, err := r.run(ctx, compactInput{
		header: r.header(), Trigger: in.Trigger, Focus: in.Focus, Summary: in.Summary,
		Replaced: in.Replaced, Pruned: in.Pruned, Tokens: in.Tokens, TokensAfter: in.After, Window: in.Window,
		Messages: toWireMessages(in.Messages),
	})
	if err != nil {
		return hooks.CompactResult{}, err
	}
	if x.blocked {
		return hooks.CompactResult{Action: hooks.CompactCancel, Reason: r.blockReason(x)}, nil
	}
	out, ok, err := decodeOutput(x.stdout)
	if !ok {
		return hooks.CompactResult{}, err
	}
	act, err := parseAction(r.event, out.Action,
		choice[hooks.CompactAction]{"continue", hooks.CompactContinue},
		choice[hooks.CompactAction]{"cancel", hooks.CompactCancel})
	if err != nil {
		return hooks.CompactResult{}, err
	}
	if out.Summary != nil {
		if strings.TrimSpace(*out.Summary) == "" {
			return hooks.CompactResult{}, errors.New(`stdout: "summary" is empty (use action "cancel" to keep the conversation as it is)`)
		}
		if in.Summary != "" {
			in.Summary = *out.Summary
		}
	}
	return hooks.CompactResult{Action: act, Reason: out.Reason}, nil
}

func (r *runner) abort(ctx context.Context, in *hooks.AbortInput) (struct{}, error) {
	ai := abortInput{header: r.header(), Reason: in.Reason}
	if in.Err != nil {
		ai.Error = in.Err.Error()
	}
	x, err := r.run(ctx, ai)
	if err != nil {
		return struct{}{}, err
	}
	if x.blocked {
		return struct{}{}, fmt.Errorf("exit status 2 (an on_abort hook cannot block)%s", excerpt(x.stderr))
	}
	return struct{}{}, nil // stdout is not read
}
