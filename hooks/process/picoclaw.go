package process

// picoclaw's process hooks, run as picoclaw runs them: its config block,
// its handshake, its methods, params and results, its notifications and
// its timeouts and error policy (see docs/hooks.md, "picoclaw hooks").
// The protocol is picoclaw's as of its commit cf67dd3 (June 2026),
// pkg/agent/hook_process.go, hook_mount.go and hooks.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/hooks"
)

// PicoclawHooks is picoclaw's "hooks" config object, as picoclaw's
// config.json has it; tackle's config takes it as it is under
// "picoclaw_hooks". Fields picoclaw does not read either are kept in
// Unknown, for a warning, not refused.
type PicoclawHooks struct {
	// Enabled switches every hook of the block; picoclaw's default is on.
	Enabled *bool `json:"enabled,omitempty"`
	// Defaults are the timeouts of every hook of the block.
	Defaults PicoclawDefaults `json:"defaults,omitzero"`
	// Builtins are picoclaw's in-process Go hooks, compiled into picoclaw:
	// tackle cannot run them (an enabled one is a warning).
	Builtins map[string]json.RawMessage `json:"builtins,omitempty"`
	// Processes are the process hooks, by name.
	Processes map[string]PicoclawProcess `json:"processes,omitempty"`

	// Unknown are the fields of the block and of its processes that
	// neither picoclaw nor tackle reads ("processes.gate.timeout_ms").
	Unknown []string `json:"-"`
}

// PicoclawDefaults are picoclaw's hooks.defaults: timeouts in
// milliseconds; 0 (or less) means picoclaw's default.
type PicoclawDefaults struct {
	ObserverTimeoutMS    int `json:"observer_timeout_ms,omitempty"`
	InterceptorTimeoutMS int `json:"interceptor_timeout_ms,omitempty"`
	ApprovalTimeoutMS    int `json:"approval_timeout_ms,omitempty"`
}

// PicoclawProcess is one of picoclaw's hooks.processes.
type PicoclawProcess struct {
	// Enabled must be true for the hook to run (picoclaw's default is off).
	Enabled  bool `json:"enabled"`
	Priority int  `json:"priority,omitempty"`
	// Transport must be "stdio" (or empty).
	Transport string            `json:"transport,omitempty"`
	Command   []string          `json:"command,omitempty"`
	Dir       string            `json:"dir,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// Observe are the kinds of the runtime events sent to the hook as
	// hook.runtime_event notifications ("agent.tool.exec_start", or
	// picoclaw's older names such as "tool_exec_start"); "*", "all" or
	// "" observes every kind.
	Observe []string `json:"observe,omitempty"`
	// Intercept are the stages the hook decides: before_tool and
	// after_tool (either asks for both, as in picoclaw), before_llm and
	// after_llm (likewise), approve_tool.
	Intercept []string `json:"intercept,omitempty"`
}

// UnmarshalJSON decodes the block as picoclaw does, ignoring fields it
// does not know, and keeps their names in Unknown.
func (h *PicoclawHooks) UnmarshalJSON(b []byte) error {
	type plain PicoclawHooks
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return err
	}
	p.Unknown = unknownKeys(top, "", "enabled", "defaults", "builtins", "processes")
	var procs map[string]map[string]json.RawMessage
	if json.Unmarshal(top["processes"], &procs) == nil {
		for _, name := range slices.Sorted(maps.Keys(procs)) {
			p.Unknown = append(p.Unknown, unknownKeys(procs[name], "processes."+name+".",
				"enabled", "priority", "transport", "command", "dir", "env", "observe", "intercept")...)
		}
	}
	var defaults map[string]json.RawMessage
	if json.Unmarshal(top["defaults"], &defaults) == nil {
		p.Unknown = append(p.Unknown, unknownKeys(defaults, "defaults.",
			"observer_timeout_ms", "interceptor_timeout_ms", "approval_timeout_ms")...)
	}
	*h = PicoclawHooks(p)
	return nil
}

func unknownKeys(m map[string]json.RawMessage, prefix string, known ...string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			out = append(out, prefix+k)
		}
	}
	return out
}

// PicoclawSource is one picoclaw_hooks block and the file it is in.
type PicoclawSource struct {
	// Path names the file in messages.
	Path  string
	Hooks PicoclawHooks
}

// picoclaw's defaults (pkg/config/defaults.go, pkg/agent/hooks.go).
const (
	PicoclawObserverTimeout    = 500 * time.Millisecond
	PicoclawInterceptorTimeout = 5 * time.Second
	PicoclawApprovalTimeout    = 60 * time.Second
)

// Where picoclaw's hooks run in tackle's chains: after command hooks of
// the default priority and Claude Code's PreToolUse hooks (50), before
// the approval policy (100), so that the user is asked about the call as
// picoclaw's hooks left it. Every before_tool (and other interceptor)
// runs before every approve_tool, as in picoclaw; among themselves they
// keep picoclaw's order: priority, then name.
const (
	PicoclawPriority        = 60
	PicoclawApprovePriority = 90
)

// PicoclawHookName is the name of a picoclaw hook's tackle hooks in the
// decision trace: "picoclaw:NAME"; its approve_tool hook is
// "picoclaw:NAME.approve_tool".
func PicoclawHookName(name string) string { return "picoclaw:" + name }

// picoApproveSuffix ends the name of a picoclaw hook's approve_tool hook.
const picoApproveSuffix = ".approve_tool"

// The stages picoclaw hooks intercept, as its config names them.
const (
	picoBeforeTool  = "before_tool"
	picoAfterTool   = "after_tool"
	picoBeforeLLM   = "before_llm"
	picoAfterLLM    = "after_llm"
	picoApproveTool = "approve_tool"
)

// picoSpec is what a picoclaw process hook does, from its config.
type picoSpec struct {
	name    string // picoclaw's name of the hook
	source  string // the file of its block
	prio    int    // picoclaw's priority, for the order among them
	llm     bool   // before_llm and after_llm
	tool    bool   // before_tool and after_tool
	approve bool   // approve_tool
	observe bool
	kinds   []string // the runtime event kinds observed; nil: all

	interceptorTimeout, approvalTimeout time.Duration
}

// modes are the hello's modes, as picoclaw names them.
func (p *picoSpec) modes() []string {
	var m []string
	for _, mode := range []struct {
		on   bool
		name string
	}{{p.observe, "observe"}, {p.llm, "llm"}, {p.tool, "tool"}, {p.approve, "approve"}} {
		if mode.on {
			m = append(m, mode.name)
		}
	}
	return m
}

// observes reports whether the hook wants events of kind.
func (p *picoSpec) observes(kind string) bool {
	return p.observe && (p.kinds == nil || slices.Contains(p.kinds, kind))
}

// events are the tackle events the hook has hooks for.
func (p *picoSpec) events() []hooks.Event {
	var evs []hooks.Event
	if p.llm {
		evs = append(evs, hooks.PreLLMRequest, hooks.OnTurnEnd)
	}
	if p.tool || p.approve {
		evs = append(evs, hooks.PreToolCall)
	}
	if p.tool {
		evs = append(evs, hooks.PostToolCall)
	}
	return evs
}

// CheckPicoclaw validates picoclaw_hooks blocks as StartAll will, without
// starting anything, and returns the warnings they give (a builtin
// tackle cannot run, a field picoclaw does not read, an event kind tackle
// never sends).
func CheckPicoclaw(blocks []PicoclawSource, opts Options) ([]string, error) {
	_, warnings, err := preparePicoclaw(blocks, opts)
	return warnings, err
}

// preparePicoclaw checks the blocks and returns a config per enabled
// process, in picoclaw's order (priority, then name).
func preparePicoclaw(blocks []PicoclawSource, opts Options) ([]config, []string, error) {
	opts.fill()
	var cfgs []config
	var warnings []string
	var errs []error
	seen := map[string]string{}
	for _, b := range blocks {
		where := func(field string) string {
			if b.Path == "" {
				return "picoclaw_hooks." + field
			}
			return b.Path + ": picoclaw_hooks." + field
		}
		for _, u := range b.Hooks.Unknown {
			warnings = append(warnings, where(u)+": picoclaw does not read this field, and neither does tackle")
		}
		if b.Hooks.Enabled != nil && !*b.Hooks.Enabled {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(b.Hooks.Builtins)) {
			var bi struct {
				Enabled bool `json:"enabled"`
			}
			if json.Unmarshal(b.Hooks.Builtins[name], &bi) == nil && bi.Enabled {
				warnings = append(warnings, where("builtins."+name)+": picoclaw's builtin hooks are Go code compiled into picoclaw; tackle cannot run them (not used)")
			}
		}
		timeouts, err := picoTimeouts(b.Hooks.Defaults)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where("defaults"), err))
		}
		for _, name := range slices.Sorted(maps.Keys(b.Hooks.Processes)) {
			proc := b.Hooks.Processes[name]
			if !proc.Enabled {
				continue
			}
			if other, dup := seen[name]; dup {
				errs = append(errs, fmt.Errorf("%s: %s has a picoclaw hook of this name too: hooks need names of their own", where("processes."+name), other))
				continue
			}
			seen[name] = b.Path
			cfg, warns, err := preparePico(name, proc, b.Path, timeouts, opts)
			for _, w := range warns {
				warnings = append(warnings, where("processes."+name)+": "+w)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where("processes."+name), err))
				continue
			}
			cfgs = append(cfgs, cfg)
		}
	}
	if len(errs) > 0 {
		return nil, warnings, errors.Join(errs...)
	}
	slices.SortStableFunc(cfgs, func(a, b config) int {
		if a.pico.prio != b.pico.prio {
			return a.pico.prio - b.pico.prio
		}
		return strings.Compare(a.pico.name, b.pico.name)
	})
	return cfgs, warnings, nil
}

type picoTimeout struct{ observer, interceptor, approval time.Duration }

func picoTimeouts(d PicoclawDefaults) (picoTimeout, error) {
	t := picoTimeout{PicoclawObserverTimeout, PicoclawInterceptorTimeout, PicoclawApprovalTimeout}
	var errs []error
	for _, f := range []struct {
		name string
		ms   int
		dst  *time.Duration
	}{
		{"observer_timeout_ms", d.ObserverTimeoutMS, &t.observer},
		{"interceptor_timeout_ms", d.InterceptorTimeoutMS, &t.interceptor},
		{"approval_timeout_ms", d.ApprovalTimeoutMS, &t.approval},
	} {
		if f.ms <= 0 {
			continue // picoclaw's default
		}
		if d := time.Duration(f.ms) * time.Millisecond; d > MaxTimeout {
			errs = append(errs, fmt.Errorf("%s %d: must not exceed %v", f.name, f.ms, MaxTimeout))
		} else {
			*f.dst = d
		}
	}
	return t, errors.Join(errs...)
}

// preparePico checks one enabled process hook, as picoclaw's
// processHookOptionsFromConfig does, and makes its config.
func preparePico(name string, proc PicoclawProcess, source string, t picoTimeout, opts Options) (config, []string, error) {
	p := &picoSpec{name: name, source: source, prio: proc.Priority, interceptorTimeout: t.interceptor, approvalTimeout: t.approval}
	cfg := config{name: PicoclawHookName(name), logName: "picoclaw-" + safeName(name), pico: p, timeout: DefaultTimeout}
	var warnings []string
	if strings.TrimSpace(name) == "" || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return cfg, nil, fmt.Errorf("the name %q must be printable text", name)
	}
	if tr := proc.Transport; tr != "" && tr != "stdio" {
		return cfg, nil, fmt.Errorf("transport %q: picoclaw (and tackle) run process hooks over stdio only", tr)
	}
	cfg.dir = opts.Workdir
	if proc.Dir != "" {
		cfg.dir = proc.Dir
		if !filepath.IsAbs(cfg.dir) {
			cfg.dir = filepath.Join(opts.Workdir, cfg.dir)
		}
	}
	var err error
	if cfg.argv, err = program(proc.Command, cfg.dir); err != nil {
		return cfg, nil, err
	}
	for _, stage := range proc.Intercept {
		switch stage {
		case picoBeforeLLM, picoAfterLLM:
			p.llm = true
		case picoBeforeTool, picoAfterTool:
			p.tool = true
		case picoApproveTool:
			p.approve = true
		case "":
		default:
			return cfg, nil, fmt.Errorf("intercept: unsupported stage %q (want before_tool, after_tool, before_llm, after_llm or approve_tool)", stage)
		}
	}
	for _, kind := range proc.Observe {
		switch kind {
		case "", "*", "all":
			p.observe, p.kinds = true, nil
		default:
			k, ok := picoKind(kind)
			if !ok {
				return cfg, nil, fmt.Errorf("observe: unsupported event %q", kind)
			}
			if !slices.Contains(picoSentKinds, k) {
				warnings = append(warnings, fmt.Sprintf("observe: tackle never sends %s events (docs/hooks.md lists those it sends)", k))
			}
			if !p.observe || p.kinds != nil {
				p.observe = true
				p.kinds = append(p.kinds, k)
			}
		}
		if p.observe && p.kinds == nil {
			break
		}
	}
	if !p.observe && !p.llm && !p.tool && !p.approve {
		return cfg, nil, errors.New("no hook modes enabled: give it something to observe or intercept")
	}
	cfg.env, err = serverEnv(Spec{Name: cfg.name, Env: proc.Env}, opts.Env, opts.Workdir)
	if err != nil {
		return cfg, nil, err
	}
	return cfg, warnings, nil
}

// safeName is name with what a file name should not hold replaced by _.
func safeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, name)
}

// ---- the handshake ----

// picoHello is what picoclaw sends in hook.hello.
type picoHello struct {
	Name    string   `json:"name"`
	Version int      `json:"version"`
	Modes   []string `json:"modes,omitempty"`
}

// readPicoHello checks a picoclaw hook's hello answer as picoclaw does:
// anything that decodes as a JSON object (or nothing) will do. It returns
// the name the hook gave itself, if any.
func readPicoHello(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("hello: want a JSON object, got %s", headOf(raw))
	}
	name, _ := m["name"].(string)
	return name, nil
}

func headOf(b []byte) string {
	const n = 200
	s := string(b)
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}

// PicoclawHook is one tackle hook of a picoclaw process hook, as the
// block's config gives it, for listings (tackle hooks list).
type PicoclawHook struct {
	Event hooks.Event
	// Name is the tackle hook's: "picoclaw:NAME", "picoclaw:NAME.approve_tool".
	Name     string
	Priority int
	// Stages are picoclaw's stages the hook runs.
	Stages string
}

// List lists the tackle hooks of the block's enabled process hooks, in
// picoclaw's order; none when the block is switched off. It reads the
// config as it is, without checking it (CheckPicoclaw does).
func (h PicoclawHooks) List() []PicoclawHook {
	if h.Enabled != nil && !*h.Enabled {
		return nil
	}
	names := slices.SortedFunc(maps.Keys(h.Processes), func(a, b string) int {
		if pa, pb := h.Processes[a].Priority, h.Processes[b].Priority; pa != pb {
			return pa - pb
		}
		return strings.Compare(a, b)
	})
	var out []PicoclawHook
	for _, name := range names {
		proc := h.Processes[name]
		if !proc.Enabled {
			continue
		}
		p := picoSpec{}
		for _, s := range proc.Intercept {
			p.llm = p.llm || s == picoBeforeLLM || s == picoAfterLLM
			p.tool = p.tool || s == picoBeforeTool || s == picoAfterTool
			p.approve = p.approve || s == picoApproveTool
		}
		hn := PicoclawHookName(name)
		if p.llm {
			out = append(out, PicoclawHook{hooks.PreLLMRequest, hn, PicoclawPriority, picoBeforeLLM},
				PicoclawHook{hooks.OnTurnEnd, hn, PicoclawPriority, picoAfterLLM})
		}
		if p.tool {
			out = append(out, PicoclawHook{hooks.PreToolCall, hn, PicoclawPriority, picoBeforeTool},
				PicoclawHook{hooks.PostToolCall, hn, PicoclawPriority, picoAfterTool})
		}
		if p.approve {
			out = append(out, PicoclawHook{hooks.PreToolCall, hn + picoApproveSuffix, PicoclawApprovePriority, picoApproveTool})
		}
		if len(proc.Observe) > 0 {
			out = append(out, PicoclawHook{0, hn, 0, "observe " + strings.Join(proc.Observe, ",")})
		}
	}
	return out
}

// Commands are the commands of the block's enabled process hooks, each
// with the directory it runs in (relative to the workspace when not
// absolute; "" is the workspace).
func (h PicoclawHooks) Commands() (argvs [][]string, dirs []string) {
	if h.Enabled != nil && !*h.Enabled {
		return nil, nil
	}
	for _, name := range slices.Sorted(maps.Keys(h.Processes)) {
		if p := h.Processes[name]; p.Enabled && len(p.Command) > 0 {
			argvs = append(argvs, p.Command)
			dirs = append(dirs, p.Dir)
		}
	}
	return argvs, dirs
}
