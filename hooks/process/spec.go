package process

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/hooks"
)

// Limits and defaults of a hook server.
const (
	// DefaultTimeout bounds one request (and the handshake) when the
	// Spec gives none.
	DefaultTimeout = 30 * time.Second
	// MaxTimeout is the longest timeout a Spec may give.
	MaxTimeout = 10 * time.Minute
	// DefaultGrace is how long a server has to exit after hook.shutdown
	// before its process group is killed.
	DefaultGrace = 2 * time.Second
	// DefaultMaxRestarts is how many times in a row a server is restarted
	// without answering a request before tackle gives up on it.
	DefaultMaxRestarts = 5
	// Default bounds of the wait before a restart: it doubles from the
	// first to the second with every restart in a row.
	DefaultMinBackoff = 200 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
)

// Spec is one hook server as a config file describes it, an element of
// "hook_servers".
type Spec struct {
	// Name identifies the server in the decision trace, in messages and
	// in its log file's name; required, unique among the servers, made of
	// letters, digits, '.', '_' and '-'.
	Name string `json:"name"`
	// Command is the program and its arguments. A bare program name is
	// looked up in PATH; a relative path is relative to the workspace.
	Command []string `json:"command"`
	// Env adds variables to the server's environment.
	Env map[string]string `json:"env,omitempty"`
	// Events limits the events the server may intercept; empty means
	// every event it asks for in its hello.
	Events []string `json:"events,omitempty"`
	// Timeout bounds each request and the handshake, a Go duration
	// ("5s"); empty means DefaultTimeout.
	Timeout string `json:"timeout,omitempty"`
	// OnError is "open", "closed" or empty for each event's default
	// (closed for pre_tool_call, open for the others).
	OnError string `json:"on_error,omitempty"`
	// Priority orders the server's hooks among the hooks of each event:
	// lower runs first. tackle's approval policy has priority 100.
	Priority int `json:"priority,omitempty"`
	// Approve lets the server answer pre_tool_call with "approve": the
	// approval policy then lets the call run where its mode would ask
	// (deny rules, plan mode and protected paths still apply).
	Approve bool `json:"approve,omitempty"`
}

// Options are the settings shared by the hook servers of one session.
type Options struct {
	// Workdir is the servers' working directory and TACKLE_WORKSPACE;
	// empty means the current directory.
	Workdir string
	// Env is the base environment of the servers; nil means os.Environ().
	// OPENAI_API_KEY is removed from it (a Spec's Env may set it again).
	Env []string
	// LogDir holds each server's stderr, appended to NAME.log; empty
	// discards it.
	LogDir string
	// Version is tackle's version, sent in the hello.
	Version string
	// ObserveTypes are the types of the events Observe is given, sent in
	// the hello; a server asking to observe another type gets a warning.
	// Nil sends and checks none.
	ObserveTypes []string
	// SessionID is the session's id, which picoclaw hooks get as their
	// meta's SessionKey; nil sends none.
	SessionID func() string
	// Warn receives what the user should know while servers run: a server
	// not used, a crash and its restart, dropped notifications. It is
	// called from one goroutine at a time, never from Observe's; nil
	// discards the warnings.
	Warn func(string)
	// Guard, if set, is asked before a server's process starts (and
	// starts again); an error keeps it from starting (child.Pins).
	Guard func() error
	// Grace is how long a server has to exit after hook.shutdown; zero
	// means DefaultGrace.
	Grace time.Duration
	// MaxRestarts, MinBackoff and MaxBackoff bound the restarts of a
	// crashed server; zero means the defaults.
	MaxRestarts            int
	MinBackoff, MaxBackoff time.Duration
}

func (o *Options) fill() {
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Workdir == "" {
		o.Workdir, _ = os.Getwd()
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = DefaultMaxRestarts
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
}

// Environment variables tackle sets for every server.
const (
	envWorkspace = "TACKLE_WORKSPACE"
	envHookName  = "TACKLE_HOOK_NAME"
)

// strippedEnv are removed from the base environment: the model's key is
// not a hook's business.
var strippedEnv = []string{"OPENAI_API_KEY"}

// config is a Spec checked and made ready to run.
type config struct {
	name string
	// logName names the log file (NAME.log); "" means name.
	logName  string
	argv     []string
	dir      string
	env      []string
	events   []hooks.Event // nil: any
	timeout  time.Duration
	policy   hooks.ErrorPolicy
	priority int
	approve  bool
	// pico is set for a picoclaw process hook (picoclaw.go): it speaks
	// picoclaw's protocol, and its config says what it does.
	pico *picoSpec
}

// describe names the server in messages: `process hook server "guard"`,
// `picoclaw hook "py_review_gate"`.
func (c *config) describe() string {
	if c.pico != nil {
		return fmt.Sprintf("picoclaw hook %q", c.pico.name)
	}
	return fmt.Sprintf("process hook server %q", c.name)
}

// log is the name of the server's log file, without .log.
func (c *config) log() string {
	if c.logName != "" {
		return c.logName
	}
	return c.name
}

// Check validates specs as Start will, without starting anything: each
// problem is reported with its place, e.g. `hook_servers[1] "lint":
// timeout "6o": ...`, all of them joined.
func Check(specs []Spec, opts Options) error {
	_, err := prepare(specs, opts)
	return err
}

// prepare checks every spec and returns their configs.
func prepare(specs []Spec, opts Options) ([]config, error) {
	opts.fill()
	var cfgs []config
	var errs []error
	seen := map[string]int{}
	for i, spec := range specs {
		cfg, err := prepareOne(spec, opts)
		if j, dup := seen[spec.Name]; err == nil && dup {
			err = fmt.Errorf("%q is also the name of hook_servers[%d]: servers need names of their own", spec.Name, j)
		}
		if spec.Name != "" {
			seen[spec.Name] = i
		}
		switch {
		case err == nil:
			cfgs = append(cfgs, cfg)
		case spec.Name == "":
			errs = append(errs, fmt.Errorf("hook_servers[%d]: %w", i, err))
		default:
			errs = append(errs, fmt.Errorf("hook_servers[%d] %q: %w", i, spec.Name, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cfgs, nil
}

// validName reports whether name is letters, digits, '.', '_' and '-',
// starting with a letter or digit: a safe file name.
func validName(name string) bool {
	for i, r := range name {
		alnum := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		if !alnum && (i == 0 || !strings.ContainsRune("._-", r)) {
			return false
		}
	}
	return name != ""
}

func prepareOne(spec Spec, opts Options) (config, error) {
	cfg := config{name: spec.Name, dir: opts.Workdir, priority: spec.Priority, approve: spec.Approve}
	if !validName(spec.Name) {
		if spec.Name == "" {
			return cfg, errors.New(`"name" is required`)
		}
		return cfg, fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' (it names the server's log file)", spec.Name)
	}
	var err error
	if cfg.argv, err = program(spec.Command, opts.Workdir); err != nil {
		return cfg, err
	}
	if cfg.events, err = parseEvents(spec.Events); err != nil {
		return cfg, err
	}
	if cfg.timeout, err = parseTimeout(spec.Timeout); err != nil {
		return cfg, err
	}
	switch spec.OnError {
	case "":
	case "open":
		cfg.policy = hooks.FailOpen
	case "closed":
		cfg.policy = hooks.FailClosed
	default:
		return cfg, fmt.Errorf(`on_error %q: want "open" or "closed"`, spec.OnError)
	}
	cfg.env, err = serverEnv(spec, opts.Env, opts.Workdir)
	return cfg, err
}

// program checks that argv names a program that can run, as os/exec will
// find it: a bare name in tackle's PATH, a relative path from dir. It
// returns argv with a relative path made absolute.
func program(argv []string, dir string) ([]string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New(`"command" is empty: want the program and its arguments, e.g. ["./hooks/guard", "--strict"]`)
	}
	for _, a := range argv {
		if strings.ContainsRune(a, 0) {
			return nil, errors.New("command: contains a NUL byte")
		}
	}
	argv = slices.Clone(argv)
	prog := argv[0]
	if !strings.ContainsRune(prog, '/') {
		if _, err := exec.LookPath(prog); err != nil {
			return nil, fmt.Errorf("command: program %q is not in $PATH (give its path, or install it)", prog)
		}
		return argv, nil
	}
	if !filepath.IsAbs(prog) {
		argv[0] = filepath.Join(dir, prog)
	}
	fi, err := os.Stat(argv[0])
	switch {
	case errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(prog):
		return nil, fmt.Errorf("command: %s does not exist (a relative path is taken from the workspace, %s)", prog, dir)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("command: %s does not exist", prog)
	case err != nil:
		return nil, fmt.Errorf("command: %w", err)
	case fi.IsDir():
		return nil, fmt.Errorf("command: %s is a directory, not a program", prog)
	case fi.Mode().Perm()&0o111 == 0:
		return nil, fmt.Errorf("command: %s is not executable (chmod +x it, or run it with an interpreter: [\"python3\", %q])", prog, prog)
	}
	return argv, nil
}

// parseEvents reads the events a server may intercept.
func parseEvents(names []string) ([]hooks.Event, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var evs []hooks.Event
	for _, name := range names {
		ev, ok := lookupEvent(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("events: unknown event %q (want %s)", name, eventList())
		case slices.Contains(evs, ev):
			return nil, fmt.Errorf("events: %s is listed twice", name)
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func parseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return DefaultTimeout, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("timeout %q: %w", s, err)
	case d <= 0:
		return 0, fmt.Errorf("timeout %q: must be positive", s)
	case d > MaxTimeout:
		return 0, fmt.Errorf("timeout %q: must not exceed %v", s, MaxTimeout)
	}
	return d, nil
}

// serverEnv builds a server's environment: base without the stripped and
// overridden variables, then spec.Env in key order, then tackle's
// variables.
func serverEnv(spec Spec, base []string, dir string) ([]string, error) {
	for k, v := range spec.Env {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			return nil, fmt.Errorf("env: bad variable name %q", k)
		case k == envWorkspace || k == envHookName:
			return nil, fmt.Errorf("env: %s is set by tackle", k)
		case strings.ContainsRune(v, 0):
			return nil, fmt.Errorf("env: %s contains a NUL byte", k)
		}
	}
	env := make([]string, 0, len(base)+len(spec.Env)+2)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := spec.Env[k]; set || slices.Contains(strippedEnv, k) || k == envWorkspace || k == envHookName {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		env = append(env, k+"="+spec.Env[k])
	}
	return append(env, envWorkspace+"="+dir, envHookName+"="+spec.Name), nil
}
