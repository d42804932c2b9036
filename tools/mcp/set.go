package mcp

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/child"
)

// Options configure a Set.
type Options struct {
	// Registry receives the servers' tools as they become ready.
	Registry *tools.Registry
	// Workdir is the workspace: a stdio server's working directory, and
	// what a relative cwd is relative to.
	Workdir string
	// Env is tackle's environment: stdio servers get what tools.ChildEnv
	// lets through of it (the allow list and EnvAllow, no secrets), their
	// Spec's env added; ${VAR} in a Spec is looked up in all of it.
	Env []string
	// EnvAllow adds names to the allow list (tools.DefaultEnvAllow) of
	// what stdio servers get of Env (the config's env_allow).
	EnvAllow []string
	// LogDir holds each server's log (its stderr and tackle's notes):
	// LogDir/NAME.log. Empty keeps none.
	LogDir string
	// Report is told each change of a server's state. It is called on
	// the Set's goroutines, one call at a time, and must return quickly.
	Report func(Status)
	// Guard, when set, is asked before a stdio server's process starts
	// (and starts again); an error keeps it from starting (child.Pins).
	Guard func() error
	// Warn, when set, is told what the user should know about a server
	// that goes on running: its stderr log overflowing (once), a request
	// tackle refused (sampling, elicitation; once per connection). It
	// may be called on any goroutine and must return quickly.
	Warn func(string)
	// Version is tackle's version, which the client gives servers.
	Version string
	// Grace is how long a stdio server has to exit after its stdin is
	// closed before its process group is killed; zero means DefaultGrace.
	Grace time.Duration
	// MinBackoff and MaxBackoff bound the wait before starting a server
	// again after a failed start: MinBackoff after the first, doubled for
	// each failure in a row. A server that crashes after it was ready is
	// started again at the next call at once. Zero means the defaults.
	MinBackoff, MaxBackoff time.Duration
	// Now is the clock of the backoff; nil means time.Now.
	Now func() time.Time
	// HTTPClient reaches remote servers; nil means a client of its own.
	HTTPClient *http.Client
}

// Defaults of Options.
const (
	DefaultGrace      = 2 * time.Second
	DefaultMinBackoff = 2 * time.Second
	DefaultMaxBackoff = time.Minute
)

// State is where a server is.
type State int

// The states of a server.
const (
	Disabled State = iota // enabled: false in its config
	Starting              // starting, or starting again
	Ready                 // its tools are in the registry
	Failed                // it did not start, crashed or timed out; Status.Err says why
	Stopped               // the Set was closed
)

var stateNames = [...]string{Disabled: "disabled", Starting: "starting", Ready: "ready", Failed: "failed", Stopped: "stopped"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is what a server's state is, for /mcp and warnings.
type Status struct {
	// Name is the server's name in the config; Part is the name its
	// tools carry (mcp__PART__tool).
	Name, Part string
	// Transport is stdio, http or sse; Target is the command or URL
	// (as configured: ${VAR}s are not expanded, so no secret shows).
	Transport, Target string
	State             State
	// Err says why the server failed, with the tail of its stderr.
	Err string
	// Log is the server's log file, "" when there is none.
	Log string
	// Implementation is what the server calls itself, once it answered.
	Implementation string
	// Tools are the server's tools, once known (they stay listed while a
	// crashed server waits to start again).
	Tools []ToolStatus
	// LeftOut are the tools the server listed that are not offered,
	// each "name: why" (a schema model APIs refuse, task-augmented calls
	// only).
	LeftOut []string
	// Instructions are the server's own words on using it (its
	// initialize result's), as it gave them; Set.Instructions bounds
	// what reaches the model.
	Instructions string
	// Resources and Templates are the resources and resource templates
	// the server lists; Prompts its prompts.
	Resources, Templates []ResourceStatus
	Prompts              []PromptStatus
}

// ResourceStatus is one resource of a server, or a resource template.
type ResourceStatus struct {
	// URI is the resource's URI, or a template's URI template.
	URI                                string
	Name, Title, Description, MIMEType string
	Template                           bool
}

// PromptStatus is one prompt of a server.
type PromptStatus struct {
	// Name is the prompt's name on its server; Command is the slash
	// command that sends it (mcp__SERVER__PROMPT, without the slash).
	Name, Command, Title, Description string
	Arguments                         []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// ToolStatus is one tool of a server.
type ToolStatus struct {
	// Name is the model's name for it; Tool its name on the server.
	Name, Tool, Title string
	ReadOnly          bool
}

// Set is the MCP servers of a session.
type Set struct {
	opts    Options
	servers []*server // sorted by name

	reportMu sync.Mutex
}

// Start validates specs and starts every enabled server in the
// background: it returns at once, and each server's tools join the
// registry when it is ready. An invalid spec is an error and starts
// nothing.
func Start(specs map[string]Spec, opts Options) (*Set, error) {
	if err := ValidateAll(specs); err != nil {
		return nil, err
	}
	if opts.Registry == nil {
		return nil, fmt.Errorf("mcp: no tool registry")
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	set := &Set{opts: opts}
	parts := serverNames(slices.Sorted(maps.Keys(specs)))
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		srv, err := newServer(set, name, parts[name], specs[name])
		if err != nil {
			set.Close()
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		set.servers = append(set.servers, srv)
	}
	for _, srv := range set.servers {
		if srv.spec.IsEnabled() {
			go srv.ensure(context.Background())
		}
	}
	return set, nil
}

// Status returns every configured server's status, sorted by name.
func (s *Set) Status() []Status {
	if s == nil {
		return nil
	}
	out := make([]Status, len(s.servers))
	for i, srv := range s.servers {
		out[i] = srv.status()
	}
	return out
}

// Close shuts every server down, in parallel, and returns when all are
// gone: a server still starting is stopped; a stdio server gets its
// stdin closed and, after the grace period, its process group killed.
func (s *Set) Close() {
	if s == nil {
		return
	}
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(srv.close)
	}
	wg.Wait()
}

// Kill kills every stdio server's process group at once, without
// waiting: for a process about to exit (a second interrupt).
func (s *Set) Kill() {
	if s == nil {
		return
	}
	for _, srv := range s.servers {
		srv.kill()
	}
}

// WaitStarted waits until the first start of every enabled server has
// ended, each bounded by its startup timeout (its tools are then in the
// registry, or it failed), or until ctx ends: a piped run offers the
// model the servers' tools from its first request.
func (s *Set) WaitStarted(ctx context.Context) error {
	if s == nil {
		return nil
	}
	for _, srv := range s.servers {
		select {
		case <-srv.started:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// warn passes a message on to Options.Warn.
func (s *Set) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

// report passes a status to Options.Report, one at a time.
func (s *Set) report(st Status) {
	if s.opts.Report == nil {
		return
	}
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	s.opts.Report(st)
}

// lookupEnv looks name up in the Set's environment (the last entry wins).
func (s *Set) lookupEnv(name string) (string, bool) { return child.LookupEnv(s.opts.Env, name) }

// Restart stops server name if it runs and starts it again at once, the
// backoff aside, and returns when it is ready or has failed (the error
// says why).
func (s *Set) Restart(name string) error {
	for _, srv := range s.servers {
		if srv.name == name {
			_, err := srv.restart()
			return err
		}
	}
	return fmt.Errorf("there is no MCP server %q", name)
}
