package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/checks"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools/chat"
)

// hooksCmd is `tackle hooks`: list the configured hooks, or run one on a
// payload.
type hooksCmd struct {
	List hooksListCmd `cmd:"" default:"1" help:"List every hook: source file, event, matcher, priority, kind and trust state (the default)."`
	Test hooksTestCmd `cmd:"" help:"Run one hook on a payload and print its decision, what it changed, and how long it took."`
}

// hooksListCmd is `tackle hooks list`.
type hooksListCmd struct{}

// hooksTestCmd is `tackle hooks test NAME EVENT [PAYLOAD]`.
type hooksTestCmd struct {
	Name    string `arg:"" help:"The hook's name as listed, e.g. 'tests' or 'claude:PreToolUse'."`
	Event   string `arg:"" help:"The tackle event to run it for, e.g. pre_tool_call."`
	Payload string `arg:"" optional:"" type:"existingfile" help:"A payload file written by --record-hooks; without it, a small sample input of the event."`
}

// hookRow is one line of `tackle hooks list`.
type hookRow struct {
	Source   string `json:"source"`
	Event    string `json:"event"`
	Name     string `json:"name"`
	Matcher  string `json:"matcher,omitempty"`
	Priority int    `json:"priority"`
	Kind     string `json:"kind"` // builtin, command, claude
	Trust    string `json:"trust"`
}

// Run lists the hooks of the user config and of the workspace's project
// files, trusted or not, as a table or (--output json) JSON.
func (hooksListCmd) Run(c *cli, stdio Streams, user config.Config) error {
	proj, untrusted, err := listProject(c.Workspace, stdio.Env)
	if err != nil {
		return err
	}
	rows := hookRows(user, proj, untrusted, stdio.Env)
	if c.Output != "text" {
		enc := json.NewEncoder(stdio.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(stdio.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tNAME\tPRIORITY\tKIND\tMATCHER\tTRUST\tSOURCE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Event, r.Name, r.Priority, r.Kind, orDash(r.Matcher), r.Trust, r.Source)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listProject is the project layer of the workspace without asking: the
// trusted files, and the paths of the untrusted ones.
func listProject(workspace string, env environ) (projectLayer, []projectFile, error) {
	root, err := absWorkspace(workspace)
	if err != nil {
		return projectLayer{}, nil, err
	}
	files, err := projectFiles(root, env.get("HOME"))
	if err != nil {
		return projectLayer{}, nil, usageErr(err)
	}
	trust, err := config.OpenTrust(env.get)
	if err != nil {
		return projectLayer{}, nil, usageErr(err)
	}
	var p projectLayer
	var untrusted []projectFile
	for _, f := range files {
		if ok, err := trust.Trusted(f.path, f.contents); err != nil {
			return projectLayer{}, nil, usageErr(err)
		} else if !ok {
			untrusted = append(untrusted, f)
			continue
		}
		if err := p.add(f); err != nil {
			return projectLayer{}, nil, usageErr(err)
		}
	}
	return p, untrusted, nil
}

// hookRows lists tackle's own hooks, the user's and the project's command
// and Claude Code hooks, and the untrusted project files' hooks (which do
// not run).
func hookRows(cfg config.Config, proj projectLayer, untrusted []projectFile, env environ) []hookRow {
	rows := []hookRow{
		{Source: "built-in", Event: hooks.PostToolCall.String(), Name: redact.HookName, Priority: redact.HookPriority, Kind: "builtin", Trust: "built-in"},
		{Source: "built-in", Event: hooks.PreToolCall.String(), Name: approval.HookName, Priority: approval.HookPriority, Kind: "builtin", Trust: "built-in"},
	}
	if cfg.Checks.On() {
		rows = append(rows, hookRow{Source: "built-in", Event: hooks.OnTurnEnd.String(), Name: checks.HookName, Priority: checks.TurnEndPriority, Kind: "builtin", Trust: "built-in"})
	}
	rows = append(rows, commandRows(cfg, "user")...)
	rows = append(rows, serverRows(cfg)...)
	rows = append(rows, picoclawRows(cfg, "user")...)
	rows = append(rows, claudeRows(cfg.Path, cfg.ClaudeHooks.Hooks, "user")...)
	rows = append(rows, commandRows(proj.cfg, "trusted")...)
	rows = append(rows, picoclawRows(proj.cfg, "trusted")...)
	rows = append(rows, claudeRows(proj.cfg.Path, proj.cfg.ClaudeHooks.Hooks, "trusted")...)
	for _, src := range proj.claude {
		rows = append(rows, claudeRows(src.Path, src.Settings.Hooks, "trusted")...)
	}
	for _, f := range untrusted {
		rows = append(rows, untrustedRows(f)...)
	}
	if home := env.get("HOME"); cfg.ClaudeHooks.User && home != "" {
		if src, err := claude.Load(filepath.Join(home, ".claude", "settings.json")); err == nil {
			rows = append(rows, claudeRows(src.Path, src.Settings.Hooks, "user")...)
		}
	}
	slices.SortStableFunc(rows, func(a, b hookRow) int {
		ea, eb := eventIndex(a.Event), eventIndex(b.Event)
		if ea != eb {
			return ea - eb
		}
		return a.Priority - b.Priority
	})
	return rows
}

func eventIndex(name string) int {
	var ev hooks.Event
	if ev.UnmarshalText([]byte(name)) != nil {
		return math.MaxInt
	}
	return int(ev)
}

func commandRows(cfg config.Config, trust string) []hookRow {
	var rows []hookRow
	for ev, specs := range cfg.Hooks {
		for _, s := range specs {
			rows = append(rows, hookRow{Source: cfg.Path, Event: ev, Name: s.Name, Matcher: strings.Join(s.Tools, ","), Priority: s.Priority, Kind: "command", Trust: trust})
		}
	}
	return rows
}

// serverRows lists the config's hook servers, one row per event they
// intercept; a server that names no events gets the ones it asks for in
// its hello, which is known only once it runs ("*").
func serverRows(cfg config.Config) []hookRow {
	var rows []hookRow
	for _, s := range cfg.HookServers {
		events := s.Events
		if len(events) == 0 {
			events = []string{"*"}
		}
		kind := "process"
		if s.Approve {
			kind = "process (may approve)"
		}
		for _, ev := range events {
			rows = append(rows, hookRow{Source: cfg.Path, Event: ev, Name: s.Name, Priority: s.Priority, Kind: kind, Trust: "user"})
		}
	}
	return rows
}

// picoclawRows lists the tackle hooks of the config's picoclaw hooks:
// one row per stage, and one for what a hook observes.
func picoclawRows(cfg config.Config, trust string) []hookRow {
	var rows []hookRow
	for _, h := range cfg.PicoclawHooks.List() {
		ev := "(events)"
		if h.Event != 0 {
			ev = h.Event.String()
		}
		rows = append(rows, hookRow{Source: cfg.Path, Event: ev, Name: h.Name + " (" + h.Stages + ")", Priority: h.Priority, Kind: "picoclaw", Trust: trust})
	}
	return rows
}

func claudeRows(source string, byEvent map[string][]claude.Group, trust string) []hookRow {
	var rows []hookRow
	for _, ev := range claude.Events {
		for _, g := range byEvent[ev] {
			for _, h := range g.Hooks {
				tev, name, prio := ev, claude.HookName(ev), 0
				if c, ok := claude.ChainOf(ev); ok {
					tev, name, prio = c.Event.String(), c.Hook, c.Priority
				}
				rows = append(rows, hookRow{Source: source, Event: tev, Name: name + " (" + ev + ": " + h.Command + ")", Matcher: g.Matcher, Priority: prio, Kind: "claude", Trust: trust})
			}
		}
	}
	return rows
}

// untrustedRows lists what an untrusted project file would run.
func untrustedRows(f projectFile) []hookRow {
	const trust = "untrusted (does not run)"
	if filepath.Base(f.path) == "config.json" {
		cfg, err := config.Parse(f.contents)
		if err != nil {
			return []hookRow{{Source: f.path, Event: "-", Name: "(unreadable: " + err.Error() + ")", Kind: "-", Trust: trust}}
		}
		cfg.Path = f.path
		return slices.Concat(commandRows(cfg, trust), picoclawRows(cfg, trust), claudeRows(f.path, cfg.ClaudeHooks.Hooks, trust))
	}
	var s claude.Settings
	if err := json.Unmarshal(f.contents, &s); err != nil {
		return nil
	}
	return claudeRows(f.path, s.Hooks, trust)
}

// Run runs the hook named h.Name, of the user config or a trusted
// project file, on its payload, alone, and prints its decision.
func (h *hooksTestCmd) Run(ctx context.Context, c *cli, stdio Streams, user config.Config) error {
	proj, _, err := listProject(c.Workspace, stdio.Env)
	if err != nil {
		return err
	}
	var ev hooks.Event
	if err := ev.UnmarshalText([]byte(h.Event)); err != nil {
		return usageError{err}
	}
	root, err := absWorkspace(c.Workspace)
	if err != nil {
		return err
	}
	reg := hooks.NewRegistry()
	if err := registerNamed(reg, ev, h.Name, user, proj, root, stdio); err != nil {
		return err
	}
	p, err := loadPayload(h.Payload, ev)
	if err != nil {
		return usageError{err}
	}
	before, _ := json.Marshal(p.input)
	var decisions []hooks.Decision
	start := time.Now()
	runPayload(ctx, reg, p, func(d hooks.Decision) { decisions = append(decisions, d) })
	took := time.Since(start)
	after, _ := json.Marshal(p.input)
	for _, d := range decisions {
		fmt.Fprintf(stdio.Out, "hook:     %s (%s)\ndecision: %s\n", d.Hook, d.Event, d.Result)
		if d.Reason != "" {
			fmt.Fprintf(stdio.Out, "reason:   %s\n", d.Reason)
		}
		if d.Error != "" {
			fmt.Fprintf(stdio.Out, "error:    %s\n", d.Error)
		}
		fmt.Fprintf(stdio.Out, "duration: %s\n", d.Duration.Round(time.Microsecond))
	}
	if string(before) != string(after) {
		fmt.Fprintf(stdio.Out, "changed input: %s\n", after)
	}
	fmt.Fprintf(stdio.Out, "total: %s\n", took.Round(time.Microsecond))
	return nil
}

// registerNamed registers, alone, the configured hook of ev named name:
// a command hook of the user's or the trusted project's config, or the
// tackle hook of a Claude Code event ("claude:PreToolUse").
func registerNamed(reg *hooks.Registry, ev hooks.Event, name string, cfg config.Config, proj projectLayer, root string, stdio Streams) error {
	if strings.HasPrefix(name, "claude:") {
		sources, err := claudeSources(cfg, proj, stdio.Env)
		if err != nil {
			return usageError{err}
		}
		set, err := claude.New(sources, claude.Options{Workspace: root, Env: stdio.Env, Mode: func() string { return "default" },
			Warn: func(m string) { fmt.Fprintf(stdio.Err, "tackle: warning: %s\n", m) }})
		if err != nil {
			return usageError{err}
		}
		set.Register(reg)
		if !slices.Contains(reg.Names(ev), name) {
			return usagef("no %s hook %q (the Claude Code hooks of %s are: %s)", ev, name, ev, strings.Join(reg.Names(ev), ", "))
		}
		return nil
	}
	var names []string
	for _, c := range []config.Config{cfg, proj.cfg} {
		for _, spec := range c.Hooks[ev.String()] {
			if spec.Name == name {
				if err := command.Register(reg, ev.String(), spec, command.Options{Workdir: root, Env: stdio.Env}); err != nil {
					return usageError{config.InFile(c.Path, err)}
				}
				return nil
			}
			names = append(names, spec.Name)
		}
	}
	have := "it has none"
	if len(names) > 0 {
		have = "its " + ev.String() + " hooks: " + strings.Join(names, ", ")
	}
	return usagef("no %s command hook %q in the config (%s); Claude Code hooks are named like claude:PreToolUse, and tackle's own hooks run only as part of a run", ev, name, have)
}

// payload is one event's input, as --record-hooks writes it and hooks
// test reads it: {"event": "pre_tool_call", "input": {...}}, input being
// the event's typed input (hooks.PreToolInput …) as JSON.
type payload struct {
	event hooks.Event
	input any // a pointer to the event's input type
}

type payloadFile struct {
	Event hooks.Event     `json:"event"`
	Input json.RawMessage `json:"input"`
}

// abortPayload is on_abort's input, whose error is kept as its text.
type abortPayload struct {
	Reason string
	Error  string `json:",omitempty"`
}

// newInput is a pointer to a zero input of ev.
func newInput(ev hooks.Event) any {
	switch ev {
	case hooks.OnPromptSubmit:
		return &hooks.PromptInput{}
	case hooks.PreLLMRequest:
		return &hooks.LLMRequestInput{}
	case hooks.PreToolCall:
		return &hooks.PreToolInput{}
	case hooks.PostToolCall:
		return &hooks.PostToolInput{}
	case hooks.OnTurnEnd:
		return &hooks.TurnEndInput{}
	case hooks.OnAbort:
		return &abortPayload{}
	case hooks.PreCompact:
		return &hooks.CompactInput{}
	}
	return nil
}

// samples are the inputs hooks test uses without a payload file.
func sample(ev hooks.Event) any {
	call := chat.ToolCall{ID: "call_test", Name: "bash", Arguments: `{"command":"echo hello"}`}
	switch ev {
	case hooks.OnPromptSubmit:
		return &hooks.PromptInput{Message: chat.UserMessage("hello")}
	case hooks.PreLLMRequest:
		return &hooks.LLMRequestInput{Model: "test-model", Request: 1, Messages: []chat.Message{chat.UserMessage("hello")}}
	case hooks.PreToolCall:
		return &hooks.PreToolInput{Call: call}
	case hooks.PostToolCall:
		return &hooks.PostToolInput{Call: call, Result: chat.ToolResult{CallID: call.ID, Status: chat.StatusOK, Content: "hello\n"}}
	case hooks.OnTurnEnd:
		final := chat.Message{Role: chat.RoleAssistant, Content: "Done."}
		return &hooks.TurnEndInput{Messages: []chat.Message{chat.UserMessage("hello"), final}, Final: final}
	case hooks.OnAbort:
		return &abortPayload{Reason: "interrupted"}
	case hooks.PreCompact:
		return &hooks.CompactInput{Trigger: hooks.CompactManual, Summary: "The user said hello."}
	}
	return nil
}

func loadPayload(path string, ev hooks.Event) (payload, error) {
	if path == "" {
		return payload{event: ev, input: sample(ev)}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return payload{}, err
	}
	var f payloadFile
	if err := json.Unmarshal(b, &f); err != nil {
		return payload{}, fmt.Errorf("payload %s: %w", path, err)
	}
	if f.Event != ev {
		return payload{}, fmt.Errorf("payload %s is for %s, not %s", path, f.Event, ev)
	}
	in := newInput(ev)
	if err := json.Unmarshal(f.Input, in); err != nil {
		return payload{}, fmt.Errorf("payload %s: input: %w", path, err)
	}
	return payload{event: ev, input: in}, nil
}

// runPayload runs p's event chain on reg.
func runPayload(ctx context.Context, reg *hooks.Registry, p payload, rec hooks.Recorder) {
	switch in := p.input.(type) {
	case *hooks.PromptInput:
		reg.RunPromptSubmit(ctx, in, rec)
	case *hooks.LLMRequestInput:
		reg.RunPreLLMRequest(ctx, in, rec)
	case *hooks.PreToolInput:
		reg.RunPreToolCall(ctx, in, 0, rec)
	case *hooks.PostToolInput:
		reg.RunPostToolCall(ctx, in, rec)
	case *hooks.TurnEndInput:
		reg.RunTurnEnd(ctx, in, 0, rec)
	case *abortPayload:
		ai := &hooks.AbortInput{Reason: in.Reason}
		if in.Error != "" {
			ai.Err = errors.New(in.Error)
		}
		reg.RunAbort(ctx, ai, rec)
	case *hooks.CompactInput:
		reg.RunPreCompact(ctx, in, rec)
	}
}

// recordHookName is the name of the hooks --record-hooks registers.
const recordHookName = "record-hooks"

// recordHooks registers, first in every event's chain, a hook that
// writes the event's input to dir as NNNN-EVENT.json, for `tackle hooks
// test`. Recording never changes or stops anything; a write error is a
// warning.
func recordHooks(reg *hooks.Registry, dir string, warn func(string)) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return usagef("--record-hooks: %w", err)
	}
	var n atomic.Int64
	write := func(ev hooks.Event, in any) {
		b, err := json.Marshal(in)
		if err == nil {
			b, err = json.MarshalIndent(payloadFile{Event: ev, Input: b}, "", "  ")
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d-%s.json", n.Add(1), ev)), append(b, '\n'), 0o600)
		}
		if err != nil {
			warn(fmt.Sprintf("--record-hooks: %v", err))
		}
	}
	const first = math.MinInt32
	reg.OnPromptSubmit(hooks.Hook[hooks.PromptInput, hooks.PromptResult]{Name: recordHookName, Priority: first, OnError: hooks.FailOpen,
		Run: func(_ context.Context, in *hooks.PromptInput) (hooks.PromptResult, error) {
			write(hooks.OnPromptSubmit, in)
			return hooks.PromptResult{}, nil
		}})
	reg.PreLLMRequest(hooks.Hook[hooks.LLMRequestInput, hooks.RequestResult]{Name: recordHookName, Priority: first, OnError: hooks.FailOpen,
		Run: func(_ context.Context, in *hooks.LLMRequestInput) (hooks.RequestResult, error) {
			write(hooks.PreLLMRequest, in)
			return hooks.RequestResult{}, nil
		}})
	reg.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: recordHookName, Priority: first, OnError: hooks.FailOpen,
		Run: func(_ context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
			write(hooks.PreToolCall, in)
			return hooks.PreToolResult{}, nil
		}})
	reg.PostToolCall(hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{Name: recordHookName, Priority: first, OnError: hooks.FailOpen,
		Run: func(_ context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
			write(hooks.PostToolCall, in)
			return hooks.PostToolResult{}, nil
		}})
	reg.OnTurnEnd(hooks.Hook[hooks.TurnEndInput, hooks.TurnEndResult]{Name: recordHookName, Priority: first, OnError: hooks.FailOpen,
		Run: func(_ context.Context, in *hooks.TurnEndInput) (hooks.TurnEndResult, error) {
			write(hooks.OnTurnEnd, in)
			return hooks.TurnEndResult{}, nil
		}})
	reg.OnAbort(hooks.Hook[hooks.AbortInput, struct{}]{Name: recordHookName, Priority: first,
		Run: func(_ context.Context, in *hooks.AbortInput) (struct{}, error) {
			ap := abortPayload{Reason: in.Reason}
			if in.Err != nil {
				ap.Error = in.Err.Error()
			}
			write(hooks.OnAbort, ap)
			return struct{}{}, nil
		}})
	reg.PreCompact(hooks.Hook[hooks.CompactInput, hooks.CompactResult]{Name: recordHookName, Priority: first, OnError: hooks.FailOpen,
		Run: func(_ context.Context, in *hooks.CompactInput) (hooks.CompactResult, error) {
			write(hooks.PreCompact, in)
			return hooks.CompactResult{}, nil
		}})
	return nil
}
