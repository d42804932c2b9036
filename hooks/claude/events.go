package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Priorities of the set's hooks: PreToolUse runs before the approval
// policy (100), so that its permissionDecision and updatedInput reach it;
// PostToolUse after secret redaction.
const (
	PrePriority  = 50
	PostPriority = 50
)

// timeoutMargin lets each command's own timeout fire before the tackle
// hook's, so that the warning names the command.
const timeoutMargin = 5 * time.Second

// HookName is the name of the tackle hook that runs the commands of a
// Claude event, e.g. "claude:PreToolUse".
func HookName(event string) string { return "claude:" + event }

// Chain is the tackle hook that runs the commands of Claude events: the
// chain it is in, its name and its priority.
type Chain struct {
	Event    hooks.Event
	Hook     string
	Priority int
}

// chains are the tackle hooks of the Claude events run in a chain; one
// hook runs the commands of several events (SessionStart's with
// UserPromptSubmit's, PostToolUseFailure's with PostToolUse's).
// Notification and SessionEnd run outside the chains (Set.Notify, Set.End).
var chains = map[string]Chain{
	SessionStart:       {hooks.OnPromptSubmit, HookName(UserPromptSubmit), 0},
	UserPromptSubmit:   {hooks.OnPromptSubmit, HookName(UserPromptSubmit), 0},
	SubagentStart:      {hooks.OnPromptSubmit, HookName(UserPromptSubmit), 0},
	PreToolUse:         {hooks.PreToolCall, HookName(PreToolUse), PrePriority},
	PostToolUse:        {hooks.PostToolCall, HookName(PostToolUse), PostPriority},
	PostToolUseFailure: {hooks.PostToolCall, HookName(PostToolUse), PostPriority},
	Stop:               {hooks.OnTurnEnd, HookName(Stop), 0},
	SubagentStop:       {hooks.OnTurnEnd, HookName(Stop), 0},
	PreCompact:         {hooks.PreCompact, HookName(PreCompact), 0},
}

// ChainOf returns the tackle hook that runs the commands of a Claude
// event, as Register registers it; false for the events run outside the
// chains.
func ChainOf(event string) (Chain, bool) {
	c, ok := chains[event]
	return c, ok
}

// Register registers a tackle hook for each event the set has commands
// for (ChainOf names each). Every one fails open: a failing command is a
// warning, never a block (Claude Code's "non-blocking error").
func (s *Set) Register(reg *hooks.Registry) {
	if s.Has(UserPromptSubmit) || s.Has(SessionStart) || s.Has(SubagentStart) {
		c := chains[UserPromptSubmit]
		reg.OnPromptSubmit(hooks.Hook[hooks.PromptInput, hooks.PromptResult]{Name: c.Hook, Priority: c.Priority, OnError: hooks.FailOpen, Timeout: s.maxTimeout(SessionStart, UserPromptSubmit, SubagentStart), Run: s.prompt})
	}
	if s.Has(PreToolUse) {
		c := chains[PreToolUse]
		reg.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: c.Hook, Priority: c.Priority, OnError: hooks.FailOpen, Timeout: s.maxTimeout(PreToolUse), Run: s.preTool})
	}
	if s.Has(PreToolUse) || s.Has(PostToolUse) || s.Has(PostToolUseFailure) {
		c := chains[PostToolUse]
		reg.PostToolCall(hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: c.Hook, Priority: c.Priority, OnError: hooks.FailOpen, Timeout: s.maxTimeout(PostToolUse, PostToolUseFailure), Run: s.postTool})
	}
	if s.Has(Stop) || s.Has(SubagentStop) {
		c := chains[Stop]
		reg.OnTurnEnd(hooks.Hook[hooks.TurnEndInput, hooks.TurnEndResult]{Name: c.Hook, Priority: c.Priority, OnError: hooks.FailOpen, Timeout: s.maxTimeout(Stop, SubagentStop), Run: s.stop})
	}
	if s.Has(PreCompact) {
		c := chains[PreCompact]
		reg.PreCompact(hooks.Hook[hooks.CompactInput, hooks.CompactResult]{Name: c.Hook, Priority: c.Priority, OnError: hooks.FailOpen, Timeout: s.maxTimeout(PreCompact), Run: s.compact})
	}
}

// maxTimeout bounds the tackle hook of events: the longest of their
// commands' timeouts (each command has its own) plus a margin.
func (s *Set) maxTimeout(events ...string) time.Duration {
	var d time.Duration
	for _, ev := range events {
		for _, h := range s.byEvent[ev] {
			d = max(d, h.timeout)
		}
	}
	return d + timeoutMargin
}

type toolInput struct {
	common
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
}

func (s *Set) toolInput(ctx context.Context, event string, call chat.ToolCall) toolInput {
	return toolInput{common: s.common(ctx, event), ToolName: claudeName(call.Name), ToolInput: claudeInput(call.Name, call.Arguments, s.opts.Workspace), ToolUseID: call.ID}
}

func (s *Set) preTool(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
	tool := claudeName(in.Call.Name)
	answers := s.fire(ctx, PreToolUse, tool, s.toolInput(ctx, PreToolUse, in.Call))
	var deny, ask, allow []string
	var asked, allowed bool
	var extra []string
	for _, a := range answers {
		switch {
		case a.blocked:
			deny = append(deny, stderrOr(a.stderr, "blocked by a Claude Code PreToolUse hook"))
			continue
		case a.stopped():
			return hooks.PreToolResult{Action: hooks.ToolAbort, Reason: a.stopReason(PreToolUse)}, nil
		case !a.isJSON:
			continue
		}
		sp := a.out.Specific
		extra = append(extra, sp.AdditionalContext)
		decision := sp.PermissionDecision
		reason := sp.PermissionDecisionReason
		if decision == "" { // the older top-level form
			switch a.out.Decision {
			case "block":
				decision = "deny"
			case "approve":
				decision = "allow"
			case "ask":
				decision = "ask"
			}
			reason = a.out.Reason
		}
		switch decision {
		case "deny":
			deny = append(deny, stderrOr(reason, "denied by a Claude Code PreToolUse hook"))
		case "ask", "defer":
			// defer hands the call to a person later (Claude Code's -p):
			// tackle asks, and a piped run answers as it answers any
			// question (--yes, --on-pause save, or a denial).
			asked, ask = true, append(ask, reason)
		case "allow":
			allowed, allow = true, append(allow, reason)
		}
		if sp.UpdatedInput != nil {
			args, err := tackleArgs(in.Call.Name, sp.UpdatedInput, s.opts.Workspace)
			if err != nil {
				s.warn(fmt.Sprintf("Claude Code hook PreToolUse: updatedInput: %v", err))
			} else {
				in.Call.Arguments = args
			}
		}
	}
	if len(deny) > 0 {
		return hooks.PreToolResult{Action: hooks.ToolSkip, Reason: strings.Join(deny, "\n")}, nil
	}
	if more := joinNonEmpty(extra...); more != "" {
		s.mu.Lock()
		s.pending[in.Call.ID] = more
		s.mu.Unlock()
	}
	switch {
	case asked:
		in.Approval = hooks.NewApproval(HookName(PreToolUse), in.Call, true, joinNonEmpty(ask...))
	case allowed && (in.Approval == nil || !in.Approval.Ask):
		in.Approval = hooks.NewApproval(HookName(PreToolUse), in.Call, false, joinNonEmpty(allow...))
	}
	return hooks.PreToolResult{Reason: logOf(answers)}, nil
}

type postInput struct {
	toolInput
	ToolResponse any    `json:"tool_response,omitempty"`
	Error        string `json:"error,omitempty"`
	IsInterrupt  *bool  `json:"is_interrupt,omitempty"`
}

func (s *Set) postTool(ctx context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
	s.mu.Lock()
	feedback := []string{s.pending[in.Call.ID]}
	delete(s.pending, in.Call.ID)
	s.mu.Unlock()

	event := PostToolUse
	pi := postInput{toolInput: s.toolInput(ctx, event, in.Call)}
	switch in.Result.Status {
	case chat.StatusOK:
		pi.ToolResponse = s.toolResponse(in.Call, in.Result.Content)
	case chat.StatusError:
		event = PostToolUseFailure
		pi.toolInput = s.toolInput(ctx, event, in.Call)
		f := false
		pi.Error, pi.IsInterrupt = in.Result.Content, &f
	default: // skipped or denied: the tool did not run
		event = ""
	}
	var res hooks.PostToolResult
	if event != "" {
		answers := s.fire(ctx, event, pi.ToolName, pi)
		res.Reason = logOf(answers)
		for _, a := range answers {
			switch {
			case a.blocked:
				feedback = append(feedback, a.stderr)
			case a.stopped():
				res = hooks.PostToolResult{Action: hooks.PostAbort, Reason: a.stopReason(event)}
			case a.isJSON:
				if a.out.Decision == "block" {
					feedback = append(feedback, a.out.Reason)
				}
				feedback = append(feedback, a.out.Specific.AdditionalContext)
			}
		}
	}
	if fb := joinNonEmpty(feedback...); fb != "" {
		in.Result.Content = joinNonEmpty(in.Result.Content, "Hook feedback (Claude Code "+PostToolUse+"): "+fb)
		res.Reason = strings.TrimSuffix(firstLine(fb)+"; "+res.Reason, "; ")
	}
	return res, nil
}

// toolResponse is a result as Claude Code's tool_response: a file tool's
// names the file (filePath, absolute).
func (s *Set) toolResponse(call chat.ToolCall, content string) any {
	if call.Name == tools.Bash {
		return map[string]any{"stdout": content, "stderr": "", "interrupted": false}
	}
	r := map[string]any{"success": true, "output": content}
	t, builtin := claudeTools()[call.Name]
	var args map[string]any
	if builtin && t.path != "" && json.Unmarshal([]byte(call.Arguments), &args) == nil {
		if p, ok := args[t.path].(string); ok && p != "" {
			r["filePath"] = absPath(p, s.opts.Workspace)
		}
	}
	return r
}

type promptInput struct {
	common
	Prompt string `json:"prompt"`
}

type startInput struct {
	common
	Source string `json:"source"`
}

func (s *Set) prompt(ctx context.Context, in *hooks.PromptInput) (hooks.PromptResult, error) {
	if hooks.AgentOf(ctx).Child() {
		return s.subagentStart(ctx, in)
	}
	var extra []string
	s.startOnce.Do(func() {
		source := s.opts.Source
		if source == "" {
			source = "startup"
		}
		for _, a := range s.fire(ctx, SessionStart, "", startInput{s.common(ctx, SessionStart), source}) {
			extra = append(extra, a.plain, a.out.Specific.AdditionalContext)
		}
	})
	for _, a := range s.fire(ctx, UserPromptSubmit, "", promptInput{s.common(ctx, UserPromptSubmit), in.Message.Content}) {
		switch {
		case a.blocked:
			return hooks.PromptResult{Action: hooks.PromptCancel, Reason: stderrOr(a.stderr, "blocked by a Claude Code UserPromptSubmit hook")}, nil
		case a.stopped():
			return hooks.PromptResult{Action: hooks.PromptCancel, Reason: a.stopReason(UserPromptSubmit)}, nil
		case a.out.Decision == "block":
			return hooks.PromptResult{Action: hooks.PromptCancel, Reason: stderrOr(a.out.Reason, "blocked by a Claude Code UserPromptSubmit hook")}, nil
		}
		extra = append(extra, a.plain, a.out.Specific.AdditionalContext)
	}
	if more := joinNonEmpty(extra...); more != "" {
		in.Message.Content = joinNonEmpty(in.Message.Content, more)
		return hooks.PromptResult{Reason: "context added by Claude Code hooks"}, nil
	}
	return hooks.PromptResult{}, nil
}

// subagentStart fires SubagentStart for a subagent's prompt: its
// matchers match the subagent's type, and the context its commands add
// joins the subagent's prompt. It cannot block (as in Claude Code).
func (s *Set) subagentStart(ctx context.Context, in *hooks.PromptInput) (hooks.PromptResult, error) {
	a := hooks.AgentOf(ctx)
	var extra []string
	for _, ans := range s.fire(ctx, SubagentStart, a.Type, s.common(ctx, SubagentStart)) {
		if ans.isJSON {
			extra = append(extra, ans.out.Specific.AdditionalContext)
		}
	}
	if more := joinNonEmpty(extra...); more != "" {
		in.Message.Content = joinNonEmpty(in.Message.Content, more)
		return hooks.PromptResult{Reason: "context added by Claude Code hooks"}, nil
	}
	return hooks.PromptResult{}, nil
}

type stopInput struct {
	common
	StopHookActive bool `json:"stop_hook_active"`
	// LastAssistantMessage is a subagent's final message (SubagentStop).
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
}

// stop fires Stop at the end of the main agent's turn, SubagentStop
// (matched by the subagent's type) at the end of a subagent's.
func (s *Set) stop(ctx context.Context, in *hooks.TurnEndInput) (hooks.TurnEndResult, error) {
	var feedback []string
	event, match := Stop, ""
	input := stopInput{StopHookActive: in.Round > 0}
	if a := hooks.AgentOf(ctx); a.Child() {
		event, match, input.LastAssistantMessage = SubagentStop, a.Type, in.Final.Content
	}
	input.common = s.common(ctx, event)
	answers := s.fire(ctx, event, match, input)
	for _, a := range answers {
		switch {
		case a.stopped():
			return hooks.TurnEndResult{Reason: a.stopReason(event)}, nil
		case a.blocked:
			feedback = append(feedback, stderrOr(a.stderr, "a Claude Code "+event+" hook asks you to go on"))
		case a.out.Decision == "block":
			feedback = append(feedback, stderrOr(a.out.Reason, "a Claude Code "+event+" hook asks you to go on"))
		}
	}
	if fb := joinNonEmpty(feedback...); fb != "" {
		return hooks.TurnEndResult{Action: hooks.TurnContinueWithMessages, Messages: []chat.Message{chat.UserMessage(fb)}, Reason: firstLine(fb)}, nil
	}
	return hooks.TurnEndResult{Reason: logOf(answers)}, nil
}

type compactInput struct {
	common
	Trigger            string `json:"trigger"`
	CustomInstructions string `json:"custom_instructions"`
}

func (s *Set) compact(ctx context.Context, in *hooks.CompactInput) (hooks.CompactResult, error) {
	trigger := "auto"
	if in.Trigger == hooks.CompactManual {
		trigger = "manual"
	}
	answers := s.fire(ctx, PreCompact, "", compactInput{s.common(ctx, PreCompact), trigger, in.Focus})
	for _, a := range answers {
		switch {
		case a.stopped():
			return hooks.CompactResult{Action: hooks.CompactCancel, Reason: a.stopReason(PreCompact)}, nil
		case a.blocked && a.stderr != "":
			s.warn("Claude Code hook PreCompact: " + a.stderr) // exit 2 only shows stderr to the user
		}
	}
	return hooks.CompactResult{Reason: logOf(answers)}, nil
}

type notifyInput struct {
	common
	Message          string `json:"message"`
	NotificationType string `json:"notification_type"`
}

// Notify runs the Notification hooks: tackle waits for the user to
// approve a call (message says which).
func (s *Set) Notify(ctx context.Context, message string) {
	if s.Has(Notification) {
		s.fire(ctx, Notification, "", notifyInput{s.common(ctx, Notification), message, "permission_prompt"})
	}
}

type endInput struct {
	common
	Reason string `json:"reason"`
}

// End runs the SessionEnd hooks once; reason is Claude's ("clear",
// "logout", "prompt_input_exit", "other").
func (s *Set) End(ctx context.Context, reason string) {
	s.endOnce.Do(func() {
		if s.Has(SessionEnd) {
			s.fire(ctx, SessionEnd, "", endInput{s.common(ctx, SessionEnd), reason})
		}
	})
}

func stderrOr(s, otherwise string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return otherwise
}

// firstLine is the first line of s, for a decision's reason.
func firstLine(s string) string {
	line, rest, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if rest != "" {
		line += " …"
	}
	return line
}
