package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/hooks"
)

// Limits of a command hook's timeout.
const (
	DefaultTimeout = 60 * time.Second
	MaxTimeout     = 10 * time.Minute
)

// Spec is one command hook as a config file describes it.
type Spec struct {
	// Name identifies the hook in the decision trace; required.
	Name string `json:"name"`
	// Command is the program to run: an argv array run directly or a
	// string run with sh -c.
	Command Command `json:"command"`
	// Timeout is a Go duration ("30s", "2m"); empty means DefaultTimeout.
	// It may not exceed MaxTimeout.
	Timeout string `json:"timeout,omitempty"`
	// Priority orders the hooks of one event: lower runs first.
	Priority int `json:"priority,omitempty"`
	// OnError is "open", "closed" or empty for the event's default
	// (closed for pre_tool_call, open for the others).
	OnError string `json:"on_error,omitempty"`
	// Tools limits a pre_tool_call or post_tool_call hook to the tools
	// whose names match one of these path.Match patterns ("bash",
	// "write_*"). For any other tool the hook is not run and counts as
	// Continue. Empty means every tool.
	Tools []string `json:"tools,omitempty"`
	// Env adds variables to the hook's environment.
	Env map[string]string `json:"env,omitempty"`
	// Protect makes a post_tool_call hook a guard of what results carry
	// (hooks.Hook.Protect): it also runs on results of a run that was
	// cancelled or aborted, and its failure withholds the result.
	Protect bool `json:"protect,omitempty"`
}

// Command is how a hook is run: either Argv, executed directly (a bare
// program name is looked up in PATH, a relative path is taken relative to
// the workspace), or Script, run with /bin/sh -c. In JSON it is an array
// of strings or a string.
type Command struct {
	Argv   []string
	Script string
}

// Exec returns a command that runs argv directly.
func Exec(argv ...string) Command { return Command{Argv: argv} }

// Shell returns a command that runs script with sh -c.
func Shell(script string) Command { return Command{Script: script} }

// UnmarshalJSON accepts a string (a shell script) or an array of strings
// (an argv).
func (c *Command) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*c = Command{}
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Command{Script: s}
		return nil
	case len(b) > 0 && b[0] == '[':
		var argv []string
		if err := json.Unmarshal(b, &argv); err != nil {
			return fmt.Errorf("command: want a string or an array of strings: %w", err)
		}
		*c = Command{Argv: argv}
		return nil
	}
	return fmt.Errorf("command: want a string or an array of strings, got %s", b)
}

// MarshalJSON writes Argv as an array if it is set, else Script as a string.
func (c Command) MarshalJSON() ([]byte, error) {
	if c.Argv != nil {
		return json.Marshal(c.Argv)
	}
	return json.Marshal(c.Script)
}

// Options are the settings shared by the command hooks of one session.
type Options struct {
	// Workdir is the hooks' working directory and TACKLE_WORKSPACE;
	// empty means the current directory.
	Workdir string
	// Env is the base environment of the hooks; nil means os.Environ().
	// OPENAI_API_KEY is removed from it (a Spec's Env may set it again).
	Env []string
	// Stderr, if set, receives a copy of each hook's stderr (its last
	// 64 KiB) after the hook exits, every line prefixed with
	// "[hook NAME] ", in one Write per hook call. Hooks of different
	// events may run concurrently, so Stderr should be safe for
	// concurrent use. Nil discards it.
	Stderr io.Writer
	// Guard, when set, is asked before each hook process starts; an error
	// fails that call of the hook (child.Pins: a file the hook runs
	// changed since tackle started).
	Guard func() error
}

// Environment variables of the protocol, set for every hook call.
const (
	envEvent     = "TACKLE_EVENT"
	envWorkspace = "TACKLE_WORKSPACE"
	envHookName  = "TACKLE_HOOK_NAME"
)

// strippedEnv are removed from the base environment: the model's key is
// not a hook's business.
var strippedEnv = []string{"OPENAI_API_KEY"}

// Register validates spec and registers it as a hook of event, one of
// on_prompt_submit, pre_llm_request, pre_tool_call, post_tool_call,
// on_turn_end, on_abort and pre_compact. Nothing is registered when it returns an error.
func Register(reg *hooks.Registry, event string, spec Spec, opts Options) error {
	add, err := prepare(event, spec, opts)
	if ev, ok := lookupEvent(event); err == nil && ok && slices.Contains(reg.Names(ev), spec.Name) {
		err = nameTaken(spec.Name, ev)
	}
	if err != nil {
		if spec.Name == "" {
			return fmt.Errorf("command hook (%s): %w", event, err)
		}
		return fmt.Errorf("command hook %q (%s): %w", spec.Name, event, err)
	}
	add(reg)
	return nil
}

// RegisterAll registers the hooks of a config's "hooks" object: event name
// to the specs of that event, in registration order. It checks every spec
// first and registers none if any is wrong; the error lists each problem
// with its place in the config, e.g. `hooks.on_turn_end[1] "tests":
// timeout "6o": ...`.
func RegisterAll(reg *hooks.Registry, byEvent map[string][]Spec, opts Options) error {
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	// Known events in their natural order, then unknown ones, so that
	// registration and error messages are deterministic.
	events := slices.SortedFunc(maps.Keys(byEvent), func(a, b string) int {
		ea, _ := lookupEvent(a)
		eb, _ := lookupEvent(b)
		if ea == 0 {
			ea = 255
		}
		if eb == 0 {
			eb = 255
		}
		if ea != eb {
			return int(ea) - int(eb)
		}
		return strings.Compare(a, b)
	})

	var adds []func(*hooks.Registry)
	var errs []error
	for _, ev := range events {
		if _, err := parseEvent(ev); err != nil {
			errs = append(errs, fmt.Errorf("hooks.%s: %w", ev, err))
			continue
		}
		event, _ := lookupEvent(ev)
		seen := map[string]int{}
		for _, name := range reg.Names(event) {
			seen[name] = -1
		}
		for i, spec := range byEvent[ev] {
			add, err := prepare(ev, spec, opts)
			if j, dup := seen[spec.Name]; err == nil && dup {
				if j < 0 {
					err = nameTaken(spec.Name, event)
				} else {
					err = fmt.Errorf("%q is also the name of hooks.%s[%d]: the hooks of an event need names of their own", spec.Name, ev, j)
				}
			} else if spec.Name != "" {
				seen[spec.Name] = i
			}
			switch {
			case err == nil:
				adds = append(adds, add)
			case spec.Name == "":
				errs = append(errs, fmt.Errorf("hooks.%s[%d]: %w", ev, i, err))
			default:
				errs = append(errs, fmt.Errorf("hooks.%s[%d] %q: %w", ev, i, spec.Name, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, add := range adds {
		add(reg)
	}
	return nil
}

func nameTaken(name string, ev hooks.Event) error {
	return fmt.Errorf("%q is already the name of a %s hook (one of tackle's own, or registered before): the hooks of an event need names of their own", name, ev)
}

// prepare validates spec for event and returns the func that registers it.
func prepare(event string, spec Spec, opts Options) (func(*hooks.Registry), error) {
	ev, err := parseEvent(event)
	if err != nil {
		return nil, err
	}
	r, err := newRunner(ev, spec, opts)
	if err != nil {
		return nil, err
	}
	timeout := DefaultTimeout
	if spec.Timeout != "" {
		timeout, err = time.ParseDuration(spec.Timeout)
		switch {
		case err != nil:
			return nil, fmt.Errorf("timeout %q: %w", spec.Timeout, err)
		case timeout <= 0:
			return nil, fmt.Errorf("timeout %q: must be positive", spec.Timeout)
		case timeout > MaxTimeout:
			return nil, fmt.Errorf("timeout %q: must not exceed %v", spec.Timeout, MaxTimeout)
		}
	}
	if spec.Protect && ev != hooks.PostToolCall {
		return nil, fmt.Errorf(`"protect" is only for post_tool_call hooks, not %s`, ev)
	}
	var policy hooks.ErrorPolicy
	switch spec.OnError {
	case "":
	case "open":
		policy = hooks.FailOpen
	case "closed":
		if ev == hooks.OnAbort {
			return nil, errors.New(`on_error "closed" has no meaning for on_abort (its hooks always fail open)`)
		}
		policy = hooks.FailClosed
	default:
		return nil, fmt.Errorf(`on_error %q: want "open" or "closed"`, spec.OnError)
	}

	return func(reg *hooks.Registry) {
		switch ev {
		case hooks.OnPromptSubmit:
			reg.OnPromptSubmit(hook(spec, timeout, policy, r.prompt))
		case hooks.PreLLMRequest:
			reg.PreLLMRequest(hook(spec, timeout, policy, r.request))
		case hooks.PreToolCall:
			reg.PreToolCall(hook(spec, timeout, policy, r.preTool))
		case hooks.PostToolCall:
			reg.PostToolCall(hook(spec, timeout, policy, r.postTool))
		case hooks.OnTurnEnd:
			reg.OnTurnEnd(hook(spec, timeout, policy, r.turnEnd))
		case hooks.OnAbort:
			reg.OnAbort(hook(spec, timeout, policy, r.abort))
		case hooks.PreCompact:
			reg.PreCompact(hook(spec, timeout, policy, r.compact))
		}
	}, nil
}

func hook[In, Out any](spec Spec, timeout time.Duration, policy hooks.ErrorPolicy, run func(context.Context, *In) (Out, error)) hooks.Hook[In, Out] {
	return hooks.Hook[In, Out]{
		Name:     spec.Name,
		Priority: spec.Priority,
		Timeout:  timeout,
		OnError:  policy,
		Protect:  spec.Protect,
		Run:      run,
	}
}

var allEvents = []hooks.Event{
	hooks.OnPromptSubmit, hooks.PreLLMRequest, hooks.PreToolCall,
	hooks.PostToolCall, hooks.OnTurnEnd, hooks.OnAbort, hooks.PreCompact,
}

// lookupEvent maps a snake_case event name to its event.
func lookupEvent(name string) (hooks.Event, bool) {
	for _, ev := range allEvents {
		if ev.String() == name {
			return ev, true
		}
	}
	return 0, false
}

// parseEvent is lookupEvent with an error that lists the valid names.
func parseEvent(name string) (hooks.Event, error) {
	if ev, ok := lookupEvent(name); ok {
		return ev, nil
	}
	names := make([]string, len(allEvents))
	for i, ev := range allEvents {
		names[i] = ev.String()
	}
	return 0, fmt.Errorf("unknown hook event %q (want %s)", name, orList(names))
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newRunner validates what spec says about the process and returns its
// runner.
func newRunner(ev hooks.Event, spec Spec, opts Options) (*runner, error) {
	if spec.Name == "" {
		return nil, errors.New(`"name" is required`)
	}
	if strings.ContainsFunc(spec.Name, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return nil, fmt.Errorf(`"name" %q: want printable characters only (it is shown in the UI and the decision trace)`, spec.Name)
	}

	dir := opts.Workdir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("workdir: %w", err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workdir: %w", err)
	}

	r := &runner{name: spec.Name, event: ev, dir: dir, log: opts.Stderr, grace: pipeGrace, guard: opts.Guard}
	switch c := spec.Command; {
	case c.Argv != nil && c.Script != "":
		return nil, errors.New("command: set either an argv or a script, not both")
	case len(c.Argv) > 0:
		if c.Argv[0] == "" {
			return nil, errors.New("command: the program name is empty")
		}
		r.argv = slices.Clone(c.Argv)
		if strings.ContainsRune(r.argv[0], '/') && !filepath.IsAbs(r.argv[0]) {
			r.argv[0] = filepath.Join(dir, r.argv[0])
		}
	case strings.TrimSpace(c.Script) != "":
		r.argv = []string{"/bin/sh", "-c", c.Script}
	default:
		return nil, errors.New("command is empty")
	}

	if len(spec.Tools) > 0 {
		if ev != hooks.PreToolCall && ev != hooks.PostToolCall {
			return nil, fmt.Errorf(`"tools" only applies to pre_tool_call and post_tool_call hooks, not %s`, ev)
		}
		for _, p := range spec.Tools {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return nil, fmt.Errorf("tools: bad pattern %q", p)
			}
		}
		r.tools = slices.Clone(spec.Tools)
	}

	env, err := hookEnv(ev, spec, opts.Env, dir)
	if err != nil {
		return nil, err
	}
	r.env = env
	if err := checkProgram(spec.Command, r.argv, dir, env); err != nil {
		return nil, err
	}
	return r, nil
}

// hookEnv builds a hook's environment: base without the stripped and
// overridden variables, then spec.Env in key order, then the protocol's
// variables.
func hookEnv(ev hooks.Event, spec Spec, base []string, dir string) ([]string, error) {
	for k := range spec.Env {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			return nil, fmt.Errorf("env: bad variable name %q", k)
		case k == envEvent || k == envWorkspace || k == envHookName:
			return nil, fmt.Errorf("env: %s is set by tackle", k)
		case strings.ContainsRune(spec.Env[k], 0):
			return nil, fmt.Errorf("env: %s contains a NUL byte", k)
		}
	}
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+len(spec.Env)+3)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := spec.Env[k]; set || slices.Contains(strippedEnv, k) ||
			k == envEvent || k == envWorkspace || k == envHookName {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		env = append(env, k+"="+spec.Env[k])
	}
	return append(env,
		envEvent+"="+ev.String(),
		envWorkspace+"="+dir,
		envHookName+"="+spec.Name,
	), nil
}
