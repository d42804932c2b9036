package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/command"
)

// Options are what the hooks of a Set need to know about the session.
type Options struct {
	// Workspace is cwd and CLAUDE_PROJECT_DIR.
	Workspace string
	// Env is the hooks' base environment (nil: os.Environ());
	// OPENAI_API_KEY is removed from it.
	Env []string
	// SessionID returns tackle's session id ("" before it has one).
	SessionID func() string
	// Mode returns tackle's approval mode (default, accept-edits, yolo,
	// plan), given to hooks as Claude's permission_mode.
	Mode func() string
	// TranscriptPath returns the path of the session's Claude-format
	// transcript (Transcript) for transcript_path; nil gives "".
	TranscriptPath func() string
	// Warn receives the visible, non-blocking errors of hooks (an exit
	// status other than 0 and 2, a timeout, bad JSON) and their
	// systemMessage. Nil discards them.
	Warn func(string)
	// Source is SessionStart's source: "startup" or "resume".
	Source string
	// Guard, if set, is asked before each hook process starts (see
	// command.Options.Guard).
	Guard func() error
}

// Set is the Claude Code hooks of a session, by event.
type Set struct {
	opts    Options
	bash    string
	env     []string
	byEvent map[string][]*hook
	// Notes say what of the settings tackle does not run.
	Notes []string

	startOnce sync.Once
	endOnce   sync.Once
	// pending holds PreToolUse additionalContext by call id, until the
	// call's result carries it to the model.
	mu      sync.Mutex
	pending map[string]string
}

// New checks the sources and returns their hooks. Every command runs
// with bash.
func New(sources []Source, opts Options) (*Set, error) {
	byEvent, notes, err := compile(sources)
	if err != nil {
		return nil, err
	}
	s := &Set{opts: opts, byEvent: byEvent, Notes: notes, pending: map[string]string{}}
	if len(byEvent) == 0 {
		return s, nil
	}
	if s.bash, err = exec.LookPath("bash"); err != nil {
		return nil, fmt.Errorf("claude code hooks need bash: %w", err)
	}
	base := opts.Env
	if base == nil {
		base = os.Environ()
	}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k != "OPENAI_API_KEY" && k != "CLAUDE_PROJECT_DIR" {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env, "CLAUDE_PROJECT_DIR="+opts.Workspace)
	return s, nil
}

// Has reports whether the set has hooks for event.
func (s *Set) Has(event string) bool { return len(s.byEvent[event]) > 0 }

// Hook describes one command for listings.
type Hook struct {
	Source, Event, Matcher, Command string
}

// Hooks lists the set's commands, event by event.
func (s *Set) Hooks() []Hook {
	var out []Hook
	for _, ev := range Events {
		for _, h := range s.byEvent[ev] {
			out = append(out, Hook{Source: h.source, Event: ev, Matcher: h.pattern, Command: h.command})
		}
	}
	return out
}

// common is the input every event has.
type common struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  string `json:"hook_event_name"`
	// AgentID and AgentType name the subagent whose turn the hook runs
	// in (its task call's ID, its kind); absent for the main agent, as
	// in Claude Code.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// permissionModes maps tackle's approval modes to Claude Code's.
var permissionModes = map[string]string{
	"default":      "default",
	"accept-edits": "acceptEdits",
	"yolo":         "bypassPermissions",
	"plan":         "plan",
}

func (s *Set) common(ctx context.Context, event string) common {
	c := common{Cwd: s.opts.Workspace, HookEventName: event}
	if a := hooks.AgentOf(ctx); a.Child() {
		c.AgentID, c.AgentType = a.ID, a.Type
	}
	if s.opts.SessionID != nil {
		c.SessionID = s.opts.SessionID()
	}
	if s.opts.TranscriptPath != nil {
		c.TranscriptPath = s.opts.TranscriptPath()
	}
	if s.opts.Mode != nil {
		c.PermissionMode = permissionModes[s.opts.Mode()]
	}
	return c
}

// output is a hook's JSON answer; every field is optional.
type output struct {
	Continue       *bool   `json:"continue"`
	StopReason     string  `json:"stopReason"`
	SuppressOutput bool    `json:"suppressOutput"`
	SystemMessage  string  `json:"systemMessage"`
	Decision       string  `json:"decision"`
	Reason         string  `json:"reason"`
	Specific       special `json:"hookSpecificOutput"`
}

type special struct {
	PermissionDecision       string         `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason"`
	UpdatedInput             map[string]any `json:"updatedInput"`
	AdditionalContext        string         `json:"additionalContext"`
}

// answer is what one command did: exit 2 (blocked, with stderr), or exit
// 0 with its JSON output or plain stdout.
type answer struct {
	blocked bool
	stderr  string
	out     output
	isJSON  bool
	plain   string // stdout that is not JSON
}

// decisions are the values of "decision" and of
// hookSpecificOutput.permissionDecision Claude Code documents for each
// event. "ask" in the older decision field, which Claude Code's
// PreToolUse never had, is taken for what it says (it only asks).
var decisions = map[string]struct{ decision, permission []string }{
	PreToolUse:         {[]string{"approve", "block", "ask"}, []string{"allow", "deny", "ask", "defer"}},
	PostToolUse:        {[]string{"block"}, nil},
	PostToolUseFailure: {[]string{"block"}, nil},
	UserPromptSubmit:   {[]string{"block"}, nil},
	Stop:               {[]string{"block"}, nil},
	SubagentStop:       {[]string{"block"}, nil},
}

// unknownDecisions says which decision values of the answer Claude Code
// does not document for event: they are ignored, with a warning.
func (a answer) unknownDecisions(event string) []string {
	if !a.isJSON {
		return nil
	}
	known := decisions[event]
	var out []string
	if d := a.out.Decision; d != "" && !slices.Contains(known.decision, d) {
		out = append(out, fmt.Sprintf("%q is not a decision of %s (Claude Code's are %s)", d, event, orNone(known.decision)))
	}
	if d := a.out.Specific.PermissionDecision; d != "" && !slices.Contains(known.permission, d) {
		out = append(out, fmt.Sprintf("%q is not a permissionDecision of %s (Claude Code's are %s)", d, event, orNone(known.permission)))
	}
	return out
}

func orNone(values []string) string {
	if len(values) == 0 {
		return "none"
	}
	return strings.Join(values, ", ")
}

// stopped reports whether the answer says "continue": false.
func (a answer) stopped() bool { return a.isJSON && a.out.Continue != nil && !*a.out.Continue }

// stopReason is why a hook stopped tackle.
func (a answer) stopReason(name string) string {
	if a.out.StopReason != "" {
		return a.out.StopReason
	}
	return fmt.Sprintf("stopped by Claude Code hook %s", name)
}

// fire runs the event's commands that match tool ("" for events without
// a matcher) in parallel, each identical command once, and returns the
// answers of those that did not fail, in settings order. Failures are
// warned about and count as no answer (fail open).
func (s *Set) fire(ctx context.Context, event, tool string, input any) []answer {
	var run []*hook
	for _, h := range s.byEvent[event] {
		if (tool == "" || h.matches(tool)) && !slices.ContainsFunc(run, func(o *hook) bool { return o.command == h.command }) {
			run = append(run, h)
		}
	}
	answers := make([]*answer, len(run))
	var wg sync.WaitGroup
	for i, h := range run {
		wg.Go(func() {
			a, err := s.runOne(ctx, h, input)
			if err != nil {
				s.warn(fmt.Sprintf("Claude Code hook %s (%s, %s): %v", event, h.source, h.command, err))
				return
			}
			for _, bad := range a.unknownDecisions(event) {
				s.warn(fmt.Sprintf("Claude Code hook %s (%s, %s): %s; ignored", event, h.source, h.command, bad))
			}
			answers[i] = &a
		})
	}
	wg.Wait()
	var out []answer
	for _, a := range answers {
		if a != nil {
			if a.out.SystemMessage != "" {
				s.warn(a.out.SystemMessage)
			}
			out = append(out, *a)
		}
	}
	return out
}

// runOne runs one command with its timeout.
func (s *Set) runOne(ctx context.Context, h *hook, input any) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	p := command.Proc{Name: h.event, Argv: []string{s.bash, "-c", h.command}, Dir: s.opts.Workspace, Env: s.env, Guard: s.opts.Guard}
	x, err := p.Run(ctx, input)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return answer{}, fmt.Errorf("timed out after %v", h.timeout)
		}
		return answer{}, err
	}
	if x.Blocked {
		return answer{blocked: true, stderr: x.Stderr}, nil
	}
	a := answer{}
	out := bytes.TrimSpace(x.Stdout)
	if len(out) > 0 && out[0] == '{' {
		if err := json.Unmarshal(out, &a.out); err != nil {
			return answer{}, fmt.Errorf("stdout: invalid JSON: %w", err)
		}
		a.isJSON = true
		return a, nil
	}
	a.plain = string(out)
	return a, nil
}

func (s *Set) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

// logOf is the plain stdout of the answers (exit 0, not JSON): for
// events where it is not context for the model, a log line, which
// becomes the reason of the hook's decision in the decision trace.
func logOf(answers []answer) string {
	var lines []string
	for _, a := range answers {
		if a.plain != "" {
			lines = append(lines, firstLine(a.plain))
		}
	}
	return strings.Join(lines, "; ")
}

// joinNonEmpty joins the non-empty strings with blank lines.
func joinNonEmpty(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n\n")
}
