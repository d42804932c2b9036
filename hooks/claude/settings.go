// Package claude runs Claude Code's command hooks unchanged: it reads the
// "hooks" of Claude Code settings files and registers them as tackle
// hooks that speak Claude Code's protocol (its input fields, tool names
// and tool_input field names, exit statuses and JSON output).
//
// Claude's events map onto tackle's: PreToolUse → pre_tool_call (before
// the approval policy), PostToolUse and PostToolUseFailure →
// post_tool_call of a call that ran and succeeded or failed,
// UserPromptSubmit → on_prompt_submit, Stop → on_turn_end (with
// stop_hook_active after a first round of feedback), PreCompact →
// pre_compact. A subagent's turn (hooks.Agent) fires SubagentStart at
// its prompt instead of SessionStart and UserPromptSubmit, SubagentStop
// at its end instead of Stop (their matchers match its agent_type), and
// every event of it carries agent_id and agent_type. SessionStart runs before the first prompt (its context
// joins the prompt), SessionEnd when tackle ends (Set.End) and
// Notification when tackle asks the user to approve a call (Set.Notify).
package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"time"
)

// Claude Code's hook events, in the order a session meets them.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Notification       = "Notification"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	Stop               = "Stop"
	PreCompact         = "PreCompact"
	SessionEnd         = "SessionEnd"
)

// Events are the Claude Code events tackle runs.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Notification, SubagentStart, SubagentStop, Stop, PreCompact, SessionEnd}

// DefaultTimeout is a command's timeout when its settings give none
// (Claude Code's default).
const DefaultTimeout = 60 * time.Second

// Settings is the part of a Claude Code settings file tackle reads: its
// hooks and its permissions (permissions.go).
type Settings struct {
	Hooks       map[string][]Group `json:"hooks"`
	Permissions *Permissions       `json:"permissions,omitempty"`
}

// Group is one matcher of an event and its commands.
type Group struct {
	// Matcher is a regular expression matched against the whole Claude
	// tool name (a subagent's type for SubagentStart and SubagentStop);
	// "" and "*" match every one. Other events do not use it.
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Command `json:"hooks"`
}

// Command is one hook command.
type Command struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout is in seconds; 0 means DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty"`
}

// Source is the settings of one file (or of tackle's own config).
type Source struct {
	// Path names the file in messages and in `tackle hooks list`.
	Path     string
	Settings Settings
}

// Load reads the hooks and permissions of a Claude Code settings file. A
// missing file gives an error that wraps os.ErrNotExist.
func Load(path string) (Source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Source{}, err
	}
	var s Settings
	if err := json.Unmarshal(b, &s); err != nil {
		return Source{}, fmt.Errorf("%s: %w", path, err)
	}
	return Source{Path: path, Settings: s}, nil
}

// hook is one command of one event, ready to run.
type hook struct {
	source  string
	event   string
	matcher *regexp.Regexp // nil matches everything
	pattern string
	command string
	timeout time.Duration
}

// matches reports whether the hook is for the Claude tool name.
func (h *hook) matches(tool string) bool {
	return h.matcher == nil || h.matcher.MatchString(tool)
}

// compile checks the sources and returns their commands by event, and
// a note for each part tackle does not run (an event it does not know,
// a hook type other than "command").
func compile(sources []Source) (map[string][]*hook, []string, error) {
	byEvent := map[string][]*hook{}
	var notes []string
	var errs []error
	for _, src := range sources {
		for _, ev := range slices.Sorted(maps.Keys(src.Settings.Hooks)) {
			groups := src.Settings.Hooks[ev]
			if !slices.Contains(Events, ev) {
				notes = append(notes, fmt.Sprintf("%s: Claude Code hook event %s is not run by tackle", src.Path, ev))
				continue
			}
			for i, g := range groups {
				re, err := compileMatcher(g.Matcher)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: hooks.%s[%d].matcher: %w", src.Path, ev, i, err))
					continue
				}
				for j, c := range g.Hooks {
					where := fmt.Sprintf("%s: hooks.%s[%d].hooks[%d]", src.Path, ev, i, j)
					switch {
					case c.Type != "command":
						notes = append(notes, fmt.Sprintf("%s: hook type %q is not run by tackle (only \"command\")", where, c.Type))
						continue
					case c.Command == "":
						errs = append(errs, fmt.Errorf("%s: command is empty", where))
						continue
					case c.Timeout < 0:
						errs = append(errs, fmt.Errorf("%s: timeout %v: must be positive", where, c.Timeout))
						continue
					}
					timeout := DefaultTimeout
					if c.Timeout > 0 {
						timeout = time.Duration(c.Timeout * float64(time.Second))
					}
					byEvent[ev] = append(byEvent[ev], &hook{source: src.Path, event: ev, matcher: re, pattern: g.Matcher, command: c.Command, timeout: timeout})
				}
			}
		}
	}
	return byEvent, notes, errors.Join(errs...)
}

// compileMatcher compiles a matcher anchored to the whole tool name.
func compileMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}
