package app

// Settings: what the command line, the environment and the config files
// resolve to. resolve is the one step that merges the layers (flags >
// environment > trusted project config > user config > defaults) and
// validates every setting, with errors that name where each bad value
// came from: the flag, the environment variable, or the file and field.

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/checks"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools/mcp"
	"github.com/tackle-dev/tackle/tui"
)

// Settings are what a run is made of, resolved and validated (resolve):
// nothing after resolve reads a flag or a config file for a setting.
type Settings struct {
	// Workspace is the workspace root, absolute.
	Workspace string

	// The settings a flag, an environment variable or a config file
	// gives (settings lists them).
	Model        string
	BaseURL      string
	Mode         approval.Mode
	Effort       string // --reasoning-effort; "" sends none
	MaxRequests  int
	MaxParallel  int
	MaxRetries   int
	FirstToken   time.Duration
	StreamIdle   time.Duration
	ReplyTimeout time.Duration
	Theme        string
	OnPause      string // deny or save
	Sandbox      string // auto or off
	SandboxNet   bool   // --sandbox-network

	// The settings only a flag gives.
	Output        string // text, json or stream-json
	ShowReasoning bool
	Yes           bool
	Inline        bool
	NoProtect     bool   // --dangerously-skip-protection
	RecordHooks   string // the directory --record-hooks writes to
	// Resuming is set when the run goes on with a session (-c, --resume).
	Resuming bool

	// The settings made of more than one value.
	APIKey string
	// Perms are the allow, ask and deny rules: the user config's, the
	// flags', the trusted project config's, and those of the Claude Code
	// settings tackle reads (claudePermissions), each with where it came
	// from.
	Perms []approval.Permission
	// Notes are what the user should know of the settings at start: what
	// of the Claude Code settings' permissions tackle cannot apply.
	Notes []string
	// Checks are the turn-end checks' settings; nil when they are off.
	Checks *checks.Config
	// Keys rebinds the UI's keys (the user config's "keys").
	Keys map[string][]string
	// Prices are the models' prices, for /cost.
	Prices map[string]tui.Price
	// UserThemes are the user's theme files; themesErr is what went
	// wrong reading them (the UI warns of it).
	UserThemes []themes.Theme
	themesErr  error

	// User is the user config file; Project the trusted project files.
	// What they hold beyond the settings above (hooks, hook servers, MCP
	// servers, Claude Code hooks, redaction, compaction) is validated by
	// resolve too, and read when the harness is wired.
	User    config.Config
	Project projectLayer

	// origins is where each setting's value came from.
	origins map[string]origin
}

// resolve merges the settings of the command line c (whose deny rules
// are deny: those --deny values that do not answer a pause), the user
// config file, the trusted project files and the environment, and
// validates them all. Every problem is reported, as one usageError.
//
// Two checks need more than the settings and are made where that is at
// hand: a command hook's program is looked up when the harness registers
// the hooks (it may be a path in the workspace), and an MCP server's when
// it starts. A hook server's program is looked up here, from the
// workspace.
func resolve(kctx *kong.Context, c *cli, deny []string, user config.Config, project projectLayer, env environ) (Settings, error) {
	root, err := absWorkspace(c.Workspace)
	if err != nil {
		return Settings{}, err
	}
	st := Settings{
		Workspace: root,
		Model:     c.Model, BaseURL: c.BaseURL, Mode: approval.Mode(c.Mode), Effort: c.Effort,
		MaxRequests: c.MaxRequests, MaxParallel: c.MaxParallel, MaxRetries: c.MaxRetries,
		FirstToken: c.FirstToken, StreamIdle: c.StreamIdle, ReplyTimeout: c.ReplyTimeout, Theme: c.Theme, OnPause: c.OnPause,
		Sandbox: c.Sandbox, SandboxNet: c.SandboxNet,
		Output: c.Output, ShowReasoning: c.ShowReason, Yes: c.Yes, Inline: c.Inline,
		NoProtect: c.NoProtect, RecordHooks: c.RecordHooks, Resuming: c.Continue || c.Resume.set,
		User: user, Project: project,
		APIKey: env.get("OPENAI_API_KEY"),
		Keys:   user.Keys,
	}
	st.UserThemes, st.themesErr = themes.Load(themes.Dir(env.get))
	cp, err := claudePermissions(user, project, env, root)
	errs := []error{config.InFile(user.Path, err)}
	errs = append(errs, st.merge(layers(kctx, env, user, project.cfg, cp))...)

	perms, err := permissions(user, c.Allow, deny)
	errs = append(errs, err)
	projectPerms, err := permissions(project.cfg, nil, nil)
	errs = append(errs, err)
	st.Perms = slices.Concat(perms, projectPerms, cp.perms)
	st.Notes = cp.notes
	if err := user.Redact.Validate(); err != nil {
		errs = append(errs, config.InFile(user.Path, err))
	}
	st.Checks, err = checkSettings(user, c.NoAutoformat)
	errs = append(errs, err)
	errs = append(errs, checkHookServers(user, root, env))
	errs = append(errs, checkPicoclaw(st.picoclaw(), root, env))
	if err := mcp.ValidateAll(user.MCPServers); err != nil {
		errs = append(errs, config.InFile(user.Path, fmt.Errorf("mcpServers: %w", err)))
	}
	if err := tui.CheckKeys(user.Keys); err != nil {
		errs = append(errs, &config.FieldError{Path: user.Path, Field: "keys", Err: err})
	}
	st.Prices, err = prices(user)
	errs = append(errs, err)
	if st.APIKey == "" && st.BaseURL == "" {
		errs = append(errs, errors.New("OPENAI_API_KEY is not set (set it, or point OPENAI_BASE_URL / --base-url at a local OpenAI-compatible server)"))
	}
	if err := errors.Join(errs...); err != nil {
		return Settings{}, usageError{err}
	}
	return st, nil
}

// setting is one flag whose value a config file may give too (in the
// field named like the flag, with _ for -), with the check of its value.
type setting struct {
	flag string
	// fromFile sets the value from the config file f and reports whether
	// f has one.
	fromFile func(f *config.Config) bool
	// check validates the value as it stands; it returns the problem as
	// "got X; want Y".
	check func() error
}

// settings lists the settings that are validated here, and those whose
// value a config file can give. Adding a setting is a field of Settings
// (and a flag of cli, set from it in resolve) and one line here, e.g.
//
//	fileSetting("max-requests", &st.MaxRequests, func(f *config.Config) *int { return f.MaxRequests }, atLeast(1, "")),
//
// and a flag no file can set passes nil as its file value.
func (st *Settings) settings() []setting {
	return []setting{
		fileSetting("model", &st.Model, func(f *config.Config) *string { return ifSet(f.Model) }, wantNonEmpty("a model name as the endpoint knows it")),
		fileSetting("base-url", &st.BaseURL, func(f *config.Config) *string { return ifSet(f.BaseURL) }, nil),
		fileSetting("mode", &st.Mode, func(f *config.Config) *approval.Mode { return ifSet(approval.Mode(f.Mode)) }, wantMode),
		fileSetting("max-requests", &st.MaxRequests, func(f *config.Config) *int { return f.MaxRequests }, atLeast(1, "a run makes at least one model request")),
		fileSetting("max-parallel-tools", &st.MaxParallel, func(f *config.Config) *int { return f.MaxParallelTools }, atLeast(1, "1 runs the calls of a reply one after another")),
		fileSetting("max-retries", &st.MaxRetries, func(f *config.Config) *int { return f.MaxRetries }, atLeast(0, "0 ends the run as capped at the first feedback from a turn-end check")),
		fileSetting("first-token-timeout", &st.FirstToken, func(f *config.Config) *time.Duration { return ifSet(time.Duration(f.FirstTokenTimeout)) }, positive),
		fileSetting("stream-idle-timeout", &st.StreamIdle, func(f *config.Config) *time.Duration { return ifSet(time.Duration(f.StreamIdleTimeout)) }, positive),
		fileSetting("reply-timeout", &st.ReplyTimeout, func(f *config.Config) *time.Duration { return ifSet(time.Duration(f.ReplyTimeout)) }, positive),
		fileSetting("reasoning-effort", &st.Effort, func(f *config.Config) *string { return ifSet(f.ReasoningEffort) }, wantEffort),
		fileSetting("theme", &st.Theme, func(f *config.Config) *string { return ifSet(f.Theme) }, st.wantTheme),
		fileSetting("on-pause", &st.OnPause, func(f *config.Config) *string { return ifSet(f.OnPause) }, wantOneOf("deny", "save")),
		fileSetting("sandbox", &st.Sandbox, func(f *config.Config) *string { return ifSet(f.Sandbox) }, wantOneOf("auto", "off")),
		fileSetting("sandbox-network", &st.SandboxNet, func(f *config.Config) *bool { return ifSet(f.SandboxNetwork) }, nil),
	}
}

// fileSetting is a setting of type T: file returns a config file's value
// (nil when the file does not set it), or file is nil when no file can;
// check, if not nil, validates the value.
func fileSetting[T any](flag string, dst *T, file func(*config.Config) *T, check func(T) error) setting {
	s := setting{flag: flag, fromFile: func(f *config.Config) bool {
		if file == nil {
			return false
		}
		v := file(f)
		if v == nil {
			return false
		}
		*dst = *v
		return true
	}}
	if check != nil {
		s.check = func() error {
			if err := check(*dst); err != nil {
				if v := reflect.ValueOf(*dst); v.Kind() == reflect.String {
					return fmt.Errorf("got %q; %w", v.String(), err)
				}
				return fmt.Errorf("got %v; %w", *dst, err)
			}
			return nil
		}
	}
	return s
}

// ifSet is a config file's value for fileSetting: nil when it is the
// zero value, which the file uses for "not set" (numbers whose 0 means
// something are pointers in config.Config and are passed as they are).
func ifSet[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func atLeast(n int, why string) func(int) error {
	return func(v int) error {
		if v >= n {
			return nil
		}
		if why == "" {
			return fmt.Errorf("want %d or more", n)
		}
		return fmt.Errorf("want %d or more (%s)", n, why)
	}
}

func positive(d time.Duration) error {
	if d <= 0 {
		return errors.New("want a duration of more than 0, e.g. 90s or 5m")
	}
	return nil
}

func wantNonEmpty(what string) func(string) error {
	return func(v string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("want %s", what)
		}
		return nil
	}
}

func wantOneOf(values ...string) func(string) error {
	return func(v string) error {
		if !slices.Contains(values, v) {
			return fmt.Errorf("want %s", strings.Join(values, " or "))
		}
		return nil
	}
}

func wantEffort(v string) error {
	if v != "" && !slices.Contains(agent.ReasoningEfforts, v) {
		return fmt.Errorf("want %s", strings.Join(agent.ReasoningEfforts, ", "))
	}
	return nil
}

func wantMode(v approval.Mode) error {
	if _, err := approval.ParseMode(string(v)); err != nil {
		return fmt.Errorf("want default, accept-edits, yolo or plan")
	}
	return nil
}

// wantTheme checks a theme's name against the built-in themes and the
// user's (auto, the default, is always there).
func (st *Settings) wantTheme(v string) error {
	name := strings.TrimSpace(v)
	if name == "" || name == themes.Auto {
		return nil
	}
	if _, err := themes.Resolve(name, true, st.UserThemes); err == nil {
		return nil
	}
	err := fmt.Errorf("want %s", strings.Join(themes.Names(st.UserThemes), ", "))
	if st.themesErr != nil {
		err = fmt.Errorf("%w (and the user themes: %v)", err, st.themesErr)
	}
	return err
}

// prices are the user config's prices per model, for /cost; a price
// cannot be negative.
func prices(cfg config.Config) (map[string]tui.Price, error) {
	out := make(map[string]tui.Price, len(cfg.Prices))
	var errs []error
	for _, model := range slices.Sorted(maps.Keys(cfg.Prices)) {
		p := cfg.Prices[model]
		for _, f := range []struct {
			name  string
			price float64
		}{{"input", p.Input}, {"output", p.Output}} {
			if f.price < 0 {
				errs = append(errs, &config.FieldError{Path: cfg.Path, Field: "prices." + model + "." + f.name,
					Err: fmt.Errorf("got %v; want 0 or more (dollars per million tokens)", f.price)})
			}
		}
		out[model] = tui.Price{Input: p.Input, Output: p.Output}
	}
	return out, errors.Join(errs...)
}

// origin is where a setting's value came from.
type origin struct {
	flag string // the flag, "--max-requests"
	env  string // the environment variable it came from, if so
	file string // the config file it came from, if so
	// field is the file's field, when it is not named like the flag (a
	// Claude Code settings file's permissions.defaultMode).
	field string
	dflt  bool // the built-in default
}

// String names the origin the way an error message starts:
// "--max-requests", "TACKLE_MAX_REQUESTS", "config FILE: field
// max_requests".
func (o origin) String() string {
	switch {
	case o.env != "":
		return o.env
	case o.file != "" && o.field != "":
		return fmt.Sprintf("%s: field %s", o.file, o.field)
	case o.file != "":
		return fmt.Sprintf("config %s: field %s", o.file, fieldName(o.flag))
	case o.dflt:
		return "the default of " + o.flag
	}
	return o.flag
}

// fieldName is the config file's field for a flag.
func fieldName(flag string) string {
	return strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")
}

// A layer is one source of settings: it reports whether it gives setting
// s a value, and names where from. Kong has set the values of flags and
// environment variables while parsing; a config file's layer sets its
// value itself.
type layer func(s setting) (origin, bool)

// layers are the sources of settings, highest precedence first: a setting
// takes its value from the first layer that has one. The project's
// config file (when there is a trusted one) comes between the
// environment and the user's file; the defaultMode of the project's
// Claude Code settings after the project's config, the user's after the
// user's config.
func layers(kctx *kong.Context, env environ, user, project config.Config, cp claudePerms) []layer {
	return []layer{
		fromFlags(kctx),
		fromEnv(kctx, env),
		fromFile(project),
		fromClaude(cp.projectModes),
		fromFile(user),
		fromClaude(cp.userModes),
		fromDefault,
	}
}

// fromClaude is the defaultMode of Claude Code settings files: the first
// of modes that has one.
func fromClaude(modes []claudeMode) layer {
	return func(s setting) (origin, bool) {
		for _, m := range modes {
			f := config.Config{Mode: string(m.mode), Path: m.path}
			if m.mode != "" && s.fromFile(&f) {
				return origin{flag: "--" + s.flag, file: m.path, field: "permissions.defaultMode"}, true
			}
		}
		return origin{}, false
	}
}

// fromFlags is the command line.
func fromFlags(kctx *kong.Context) layer {
	set := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			set[p.Flag.Name] = true
		}
	}
	return func(s setting) (origin, bool) {
		return origin{flag: "--" + s.flag}, set[s.flag]
	}
}

// fromEnv is the environment: the flags envResolver (the only resolver)
// gave a value, from the first of their variables set in env.
func fromEnv(kctx *kong.Context, env environ) layer {
	vars := map[string]string{}
	for _, p := range kctx.Path {
		if p.Flag != nil && p.Resolved {
			vars[p.Flag.Name], _, _ = env.first(p.Flag.Envs)
		}
	}
	return func(s setting) (origin, bool) {
		v, ok := vars[s.flag]
		return origin{flag: "--" + s.flag, env: v}, ok
	}
}

// fromFile is a config file.
func fromFile(f config.Config) layer {
	return func(s setting) (origin, bool) {
		return origin{flag: "--" + s.flag, file: f.Path}, s.fromFile(&f)
	}
}

// fromDefault is the flag's default, set by kong.
func fromDefault(s setting) (origin, bool) {
	return origin{flag: "--" + s.flag, dflt: true}, true
}

// merge sets each setting from the first of ls that has a value, records
// where it came from in st.origins, and returns the settings' problems.
func (st *Settings) merge(ls []layer) []error {
	st.origins = map[string]origin{}
	var errs []error
	for _, s := range st.settings() {
		for _, l := range ls {
			if o, ok := l(s); ok {
				st.origins[s.flag] = o
				break
			}
		}
		if s.check == nil {
			continue
		}
		if err := s.check(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", st.origins[s.flag], err))
		}
	}
	return errs
}

// fromFlag reports whether the command line set the setting.
func (st *Settings) fromFlag(flag string) bool {
	o, ok := st.origins[flag]
	return ok && o.env == "" && o.file == "" && !o.dflt
}

// checkSettings are the turn-end checks' settings from the config file,
// with --no-autoformat; nil when the file turns the checks off.
func checkSettings(cfg config.Config, noAutoformat bool) (*checks.Config, error) {
	if !cfg.Checks.On() {
		return nil, nil
	}
	var cc checks.Config
	if err := cfg.Checks.Apply(&cc); err != nil {
		return nil, config.InFile(cfg.Path, err)
	}
	cc.NoAutoformat = cc.NoAutoformat || noAutoformat
	return &cc, nil
}

// checkHookServers validates the config's hook servers as they will be
// started (their programs are looked up from the workspace root, where
// they run), and that a server that may approve calls comes before the
// approval policy.
func checkHookServers(cfg config.Config, root string, env environ) error {
	var errs []error
	errs = append(errs, process.Check(cfg.HookServers, process.Options{Workdir: root, Env: env}))
	for i, s := range cfg.HookServers {
		if s.Approve && s.Priority >= approval.HookPriority {
			errs = append(errs, fmt.Errorf(`hook_servers[%d] %q: "approve" needs a priority below the approval policy's (%d), so that the server sees each call before the policy does`, i, s.Name, approval.HookPriority))
		}
	}
	return config.InFile(cfg.Path, errors.Join(errs...))
}

// picoclaw are the picoclaw_hooks blocks of the user config and the
// trusted project config, in that order.
func (st *Settings) picoclaw() []process.PicoclawSource {
	var out []process.PicoclawSource
	for _, cfg := range []config.Config{st.User, st.Project.cfg} {
		if len(cfg.PicoclawHooks.Processes) > 0 || len(cfg.PicoclawHooks.Builtins) > 0 || len(cfg.PicoclawHooks.Unknown) > 0 {
			out = append(out, process.PicoclawSource{Path: cfg.Path, Hooks: cfg.PicoclawHooks})
		}
	}
	return out
}

// checkPicoclaw validates the picoclaw_hooks blocks as they will be
// started (their programs are looked up from the workspace root); the
// warnings they give are reported when they start.
func checkPicoclaw(blocks []process.PicoclawSource, root string, env environ) error {
	_, err := process.CheckPicoclaw(blocks, process.Options{Workdir: root, Env: env})
	return err
}

// permissions parses the config file's allow and deny rules and those of
// --allow and --deny, each with where it came from.
func permissions(cfg config.Config, allow, deny []string) ([]approval.Permission, error) {
	var perms []approval.Permission
	var errs []error
	add := func(src []string, isDeny bool, source approval.Source, where func(i int) string) {
		for i, s := range src {
			r, err := approval.ParseRule(s)
			if err != nil {
				if source == approval.FromConfig {
					err = &config.FieldError{Path: cfg.Path, Field: where(i), Err: err}
				} else {
					err = fmt.Errorf("%s: %w", where(i), err)
				}
				errs = append(errs, err)
				continue
			}
			perms = append(perms, approval.Permission{Rule: r, Deny: isDeny, Source: source, Origin: where(i)})
		}
	}
	inFile := func(field string) func(int) string {
		return func(i int) string { return fmt.Sprintf("%s[%d]", field, i) }
	}
	add(cfg.Deny, true, approval.FromConfig, inFile("deny"))
	add(cfg.Allow, false, approval.FromConfig, inFile("allow"))
	add(deny, true, approval.FromFlag, func(int) string { return "--deny" })
	add(allow, false, approval.FromFlag, func(int) string { return "--allow" })
	// A config rule's origin names its file too.
	for i := range perms {
		if perms[i].Source == approval.FromConfig {
			perms[i].Origin = cfg.Path + ": " + perms[i].Origin
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return perms, nil
}
