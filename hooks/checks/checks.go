package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/child"
)

// HookName is the name of every hook of the checks in the decision trace.
const HookName = "checks"

// Names of the built-in checks, as events and diagnostics show them.
const (
	checkGofmt = "gofmt"
	checkVet   = "vet"
)

// Defaults of Config.
const (
	DefaultVetTimeout     = 2 * time.Minute
	DefaultTimeout        = 5 * time.Minute
	DefaultMaxDiagnostics = 30
	// DefaultSnapshotTimeout bounds the walk of the workspace before and
	// after a bash command.
	DefaultSnapshotTimeout = 30 * time.Second
)

// Priorities of the hooks. The snapshot before a bash command runs after
// every other pre_tool_call hook (the approval policy is 100), so that it
// is taken only for calls that will run, right before they run; the
// turn-end checks run before other on_turn_end hooks, so that those see
// formatted files.
const (
	SnapshotPriority = 1000
	TrackPriority    = -1000
	TurnEndPriority  = -100
	ResetPriority    = -1000
)

// Inspector resolves the paths a tool call names; *tools.Registry is one.
type Inspector interface {
	Inspect(call chat.ToolCall) (tools.CallInfo, error)
}

// acknowledger is implemented by a Tools that tracks what the model has
// seen of each file (*tools.Registry): after formatting a file the checks
// tell it, so the model's next edit is not refused as stale.
type acknowledger interface {
	Acknowledge(path string) error
}

// Config configures the checks. Workspace and Tools are required.
type Config struct {
	// Workspace is the workspace root: absolute, with symbolic links
	// evaluated (tools.Workspace.Dir). Nothing outside it is checked,
	// formatted or tracked.
	Workspace string
	// Tools resolves the paths of the calls of file tools (write_file,
	// edit_file and any other tool that is not read-only and names paths).
	Tools Inspector
	// Report receives progress: Started and Finished for every check,
	// and Warning for what the user should know (a linter that is not
	// installed, a check that could not run). It may be called from
	// several goroutines at once, and may be nil.
	Report func(Event)

	// NoAutoformat reports files that gofmt would change as problems
	// instead of formatting them.
	NoAutoformat bool
	// NoVet turns go vet off.
	NoVet bool
	// Linters are extra Go linters to run when installed: names from
	// LinterNames ("staticcheck", "golangci-lint").
	Linters []string
	// Commands are checks for other files (any language).
	Commands []Command

	// VetTimeout bounds one go vet or linter process; zero means
	// DefaultVetTimeout.
	VetTimeout time.Duration
	// Timeout bounds a whole round of checks (the on_turn_end hook's
	// timeout); zero means DefaultTimeout. A round that runs out fails
	// open: the turn ends with a warning.
	Timeout time.Duration
	// MaxDiagnostics is how many diagnostics the retry message lists;
	// zero means DefaultMaxDiagnostics.
	MaxDiagnostics int

	// Env is the environment the checks start from; nil means the
	// process's. The checks get only the variables on the allow list
	// (tools.ChildEnv: tools.DefaultEnvAllow and EnvAllow), as bash does.
	Env []string
	// EnvAllow adds names to the allow list (see tools.WithEnvAllow).
	EnvAllow []string
	// Sandbox, when set, runs every check command in the OS sandbox, as
	// the bash tool's: a check runs code the model wrote (a test, a module
	// the check imports) and the linters' configurations.
	Sandbox *tools.Sandbox
	// Go is the go command (a name on PATH or a path); "" means "go".
	Go string
	// Now is the clock for durations; nil means time.Now.
	Now func() time.Time
}

// Event is a progress report: Started, Finished or Warning.
type Event interface{ checkEvent() }

// Started says a check began. It converts to agent.CheckStarted.
type Started struct {
	Check string
	Files []string
}

// Finished says how a check ended. It converts to agent.CheckFinished.
type Finished struct {
	Check string
	// Status is one of StatusOK, StatusFixed, StatusProblems,
	// StatusError and StatusSkipped.
	Status   string
	Problems int
	Summary  string
	Duration time.Duration
}

// Warning is something the user should see; it converts to
// agent.Warning.
type Warning struct {
	Message string
}

func (Started) checkEvent()  {}
func (Finished) checkEvent() {}
func (Warning) checkEvent()  {}

// The values of Finished.Status.
const (
	StatusOK       = "ok"
	StatusFixed    = "fixed"    // files were formatted, nothing else is wrong
	StatusProblems = "problems" // diagnostics for the model
	StatusError    = "error"    // the check could not run (for the user, not the model)
	StatusSkipped  = "skipped"  // nothing it could check (e.g. syntax errors stop go vet)
)

// Checker is the set of hooks that track the files a run changes and
// check them when the model ends its turn. One Checker serves one
// session; its methods are safe for concurrent use.
type Checker struct {
	cfg      Config
	root     string
	env      []string
	commands []Command

	track   tracker
	gotools goTools

	mu     sync.Mutex
	warned map[string]bool
}

// New validates cfg and returns a Checker.
func New(cfg Config) (*Checker, error) {
	if cfg.Tools == nil {
		return nil, errors.New("checks: Config.Tools is required")
	}
	if !filepath.IsAbs(cfg.Workspace) {
		return nil, fmt.Errorf("checks: workspace %q is not an absolute path", cfg.Workspace)
	}
	for _, name := range cfg.Linters {
		if _, ok := knownLinters[name]; !ok {
			return nil, fmt.Errorf("checks: unknown linter %q (known: %s)", name, strings.Join(LinterNames(), ", "))
		}
	}
	c := &Checker{cfg: cfg, root: filepath.Clean(cfg.Workspace), warned: make(map[string]bool)}
	names := map[string]bool{checkGofmt: true, checkVet: true}
	for _, l := range cfg.Linters {
		names[l] = true
	}
	for i, cmd := range cfg.Commands {
		if err := cmd.validate(); err != nil {
			return nil, fmt.Errorf("checks: command %d: %w", i+1, err)
		}
		if cmd.Name == "" {
			cmd.Name = filepath.Base(cmd.Run[0])
		}
		if names[cmd.Name] {
			return nil, fmt.Errorf("checks: command %d: the name %q is taken; give it another name", i+1, cmd.Name)
		}
		names[cmd.Name] = true
		c.commands = append(c.commands, cmd)
	}
	if c.cfg.VetTimeout <= 0 {
		c.cfg.VetTimeout = DefaultVetTimeout
	}
	if c.cfg.Timeout <= 0 {
		c.cfg.Timeout = DefaultTimeout
	}
	if c.cfg.MaxDiagnostics <= 0 {
		c.cfg.MaxDiagnostics = DefaultMaxDiagnostics
	}
	if c.cfg.Now == nil {
		c.cfg.Now = time.Now
	}
	base := cfg.Env
	if base == nil {
		base = os.Environ()
	}
	c.env, _ = tools.ChildEnv(base, cfg.EnvAllow)
	return c, nil
}

// Register creates a Checker for cfg and registers its hooks in reg.
func Register(reg *hooks.Registry, cfg Config) (*Checker, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	c.Register(reg)
	return c, nil
}

// Register adds the Checker's hooks to reg:
//
//   - on_prompt_submit: forget the files of the previous run (whether it
//     finished, was capped or was aborted);
//   - pre_tool_call (bash only, after every other hook): snapshot the
//     workspace's checkable files;
//   - post_tool_call: note the files a successful file-tool call
//     changed, and those a bash command changed (whatever its exit);
//   - on_turn_end: check the run's files; see Check.
//
// A subagent's turn (hooks.Agent) neither forgets the files nor checks
// them: what it changes joins the files of the turn that started it, and
// is checked at that turn's end.
//
// The snapshot and turn-end hooks fail open: a check that breaks never
// stops a tool call or the end of a turn, it only warns.
func (c *Checker) Register(reg *hooks.Registry) {
	reg.OnPromptSubmit(hooks.Hook[hooks.PromptInput, hooks.PromptResult]{
		Name:     HookName,
		Priority: ResetPriority,
		Run: func(ctx context.Context, _ *hooks.PromptInput) (hooks.PromptResult, error) {
			if !hooks.AgentOf(ctx).Child() {
				c.Reset()
			}
			return hooks.PromptResult{}, nil
		},
	})
	reg.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{
		Name:     HookName,
		Priority: SnapshotPriority,
		Timeout:  DefaultSnapshotTimeout,
		OnError:  hooks.FailOpen,
		Run: func(ctx context.Context, in *hooks.PreToolInput) (hooks.PreToolResult, error) {
			c.before(ctx, in.Call)
			return hooks.PreToolResult{}, nil
		},
	})
	reg.PostToolCall(hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{
		Name:     HookName,
		Priority: TrackPriority,
		Timeout:  DefaultSnapshotTimeout,
		OnError:  hooks.FailOpen,
		Run: func(ctx context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
			c.after(ctx, in.Call, in.Result)
			return hooks.PostToolResult{}, nil
		},
	})
	reg.OnTurnEnd(hooks.Hook[hooks.TurnEndInput, hooks.TurnEndResult]{
		Name:     HookName,
		Priority: TurnEndPriority,
		Timeout:  c.cfg.Timeout,
		OnError:  hooks.FailOpen,
		Run: func(ctx context.Context, _ *hooks.TurnEndInput) (hooks.TurnEndResult, error) {
			if hooks.AgentOf(ctx).Child() {
				// What a subagent changed is checked at the end of the
				// turn of the agent that started it.
				return hooks.TurnEndResult{Reason: "a subagent's changes are checked at its parent's turn end"}, nil
			}
			return c.TurnEnd(ctx), nil
		},
	})
}

// Reset forgets the changed files and pending snapshots.
func (c *Checker) Reset() { c.track.reset() }

// Track adds workspace paths (relative, forward slashes) to the files
// changed in this run.
func (c *Checker) Track(paths ...string) { c.track.add(paths...) }

// Changed returns the files changed in this run, sorted.
func (c *Checker) Changed() []string { return c.track.list() }

// before snapshots the workspace before a bash call runs: bash's changes
// are found by comparing snapshots.
func (c *Checker) before(ctx context.Context, call chat.ToolCall) {
	if call.Name != tools.Bash {
		return
	}
	s, err := takeSnapshot(ctx, c.root, c.wanted)
	if err != nil {
		c.warn("snapshot", fmt.Sprintf("turn-end checks: could not list the workspace before a bash command (%v); files it changes will not be checked", err))
		return
	}
	c.track.setBefore(call.ID, s)
}

// after notes what a call changed.
func (c *Checker) after(ctx context.Context, call chat.ToolCall, res chat.ToolResult) {
	if call.Name == tools.Bash {
		// Whatever its exit status: a failed command may have written.
		before, ok := c.track.takeBefore(call.ID)
		if !ok {
			return
		}
		now, err := takeSnapshot(ctx, c.root, c.wanted)
		if err != nil {
			c.warn("snapshot", fmt.Sprintf("turn-end checks: could not list the workspace after a bash command (%v); files it changed will not be checked", err))
			return
		}
		c.track.add(diff(before, now)...)
		return
	}
	if res.Status != chat.StatusOK {
		return
	}
	info, err := c.cfg.Tools.Inspect(call)
	if err != nil || info.Kind == tools.KindRead {
		return
	}
	for _, p := range info.Paths {
		if p == "." || slices.Contains(info.Refused, p) || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
			continue
		}
		c.track.add(p)
	}
}

// wanted reports whether a check applies to the workspace path rel: the
// files a snapshot records.
func (c *Checker) wanted(rel string) bool {
	if strings.HasSuffix(rel, ".go") {
		return true
	}
	for _, cmd := range c.commands {
		if cmd.matches(rel) {
			return true
		}
	}
	return false
}

// warn reports a warning once per session and key.
func (c *Checker) warn(key, msg string) {
	c.mu.Lock()
	seen := c.warned[key]
	c.warned[key] = true
	c.mu.Unlock()
	if !seen {
		c.report(Warning{Message: msg})
	}
}

func (c *Checker) report(e Event) {
	if c.cfg.Report != nil {
		c.cfg.Report(e)
	}
}

// Result is what one round of checks found.
type Result struct {
	// Files are the files checked: the run's changed files that still
	// exist and that some check applies to.
	Files []string
	// Checks are the checks that ran, in order.
	Checks []string
	// Formatted are the files gofmt rewrote.
	Formatted []string
	// Diagnostics are the problems for the model: about the changed
	// files, de-duplicated and sorted.
	Diagnostics []Diagnostic
	// Errors say which checks could not run, for the user.
	Errors []string
}

// Message is the retry message for r, listing at most max diagnostics
// (all when max <= 0).
func (r Result) Message(max int) string {
	return report{files: r.Files, checks: r.Checks, formatted: r.Formatted, diags: r.Diagnostics, max: max}.message()
}

// Reason is a compact list of the problems, for the capped outcome.
func (r Result) Reason() string {
	return report{diags: r.Diagnostics}.reason()
}

// TurnEnd runs a round of checks and turns it into the on_turn_end
// decision: ContinueWithMessages with one user message when problems are
// left, Finish otherwise (its Reason says what gofmt formatted, or which
// checks could not run).
func (c *Checker) TurnEnd(ctx context.Context) hooks.TurnEndResult {
	r := c.Check(ctx)
	if len(r.Diagnostics) > 0 {
		return hooks.TurnEndResult{
			Action:   hooks.TurnContinueWithMessages,
			Messages: []chat.Message{chat.UserMessage(r.Message(c.cfg.MaxDiagnostics))},
			Reason:   r.Reason(),
		}
	}
	var notes []string
	if len(r.Formatted) > 0 {
		notes = append(notes, "gofmt formatted "+listFiles(r.Formatted, maxListedFiles))
	}
	notes = append(notes, r.Errors...)
	return hooks.TurnEndResult{Action: hooks.TurnFinish, Reason: strings.Join(notes, "; ")}
}

// checkOutcome is what one check found in a round.
type checkOutcome struct {
	name      string
	files     []string
	diags     []Diagnostic
	dropped   int
	formatted []string
	skipped   string // why nothing was checked
	errs      []string
	broken    []string // gofmt: directories of files with syntax errors
}

func (o checkOutcome) finished(d time.Duration) Finished {
	f := Finished{Check: o.name, Problems: len(o.diags), Duration: d}
	var notes []string
	switch {
	case len(o.diags) > 0:
		f.Status = StatusProblems
		notes = append(notes, count(len(o.diags), "problem"))
	case len(o.errs) > 0:
		f.Status = StatusError
	case len(o.formatted) > 0:
		f.Status = StatusFixed
	case o.skipped != "":
		f.Status = StatusSkipped
	default:
		f.Status = StatusOK
	}
	if len(o.formatted) > 0 {
		notes = append(notes, "formatted "+listFiles(o.formatted, maxListedFiles))
	}
	if o.dropped > 0 {
		notes = append(notes, fmt.Sprintf("%s in unchanged files not reported", count(o.dropped, "problem")))
	}
	if o.skipped != "" {
		notes = append(notes, o.skipped)
	}
	notes = append(notes, o.errs...)
	f.Summary = strings.Join(notes, "; ")
	return f
}

// Check runs one round of checks on the files changed in this run:
//
//  1. gofmt -e on each .go file (not under testdata/): syntax errors are
//     diagnostics; a file that only needs formatting is rewritten in
//     place (atomically, keeping its mode), or reported with
//     NoAutoformat;
//  2. then, at the same time: go vet on the packages with changed files
//     (not in vendor/, and not the ones with syntax errors), one go
//     command per module, run from the module's root; the configured
//     linters the same way; each configured command on its matching
//     files.
//
// Diagnostics about files that did not change are dropped (except go
// vet's type errors in the changed packages, which keep the package from
// being vetted at all). Every check reports Started and Finished.
func (c *Checker) Check(ctx context.Context) Result {
	changed := c.track.list()
	if len(changed) == 0 {
		return Result{}
	}
	root, err := os.OpenRoot(c.root)
	if err != nil {
		msg := fmt.Sprintf("turn-end checks: %v", err)
		c.report(Warning{Message: msg})
		return Result{Errors: []string{msg}}
	}
	defer root.Close()

	existing := regularFiles(root, changed)
	goFiles := goSources(existing)
	outcomes, broken := c.formatStage(ctx, root, goFiles)
	jobs := c.goJobs(ctx, root, goFiles, broken)
	jobs = append(jobs, c.commandJobs(ctx, existing)...)
	outcomes = append(outcomes, c.runJobs(jobs)...)
	return resultOf(outcomes)
}

// regularFiles returns the files of changed that still exist as regular
// files of the workspace.
func regularFiles(root *os.Root, changed []string) []string {
	var out []string
	for _, f := range changed {
		fi, err := root.Lstat(filepath.FromSlash(f))
		if err == nil && fi.Mode().IsRegular() {
			out = append(out, f)
		}
	}
	return out
}

// goSources returns the .go files among files that are not under a
// testdata/ directory.
func goSources(files []string) []string {
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, ".go") && !underDir(f, "testdata") {
			out = append(out, f)
		}
	}
	return out
}

// formatStage is stage 1: gofmt on goFiles, once the Go tools are found.
// It returns its outcome (none without Go files or without gofmt) and the
// directories with syntax errors.
func (c *Checker) formatStage(ctx context.Context, root *os.Root, goFiles []string) ([]checkOutcome, []string) {
	if len(goFiles) == 0 {
		return nil, nil
	}
	c.gotools.find(ctx, c)
	if c.gotools.gofmt == "" {
		c.warn("gofmt", "turn-end checks: gofmt was not found (next to go, in GOROOT/bin or on PATH); Go files are not checked for syntax or formatting")
		return nil, nil
	}
	o := c.runJobs([]job{{checkGofmt, goFiles, func() checkOutcome { return c.gofmt(ctx, root, goFiles) }}})[0]
	return []checkOutcome{o}, o.broken
}

// goJobs are the stage-2 jobs on the Go files outside vendor/: go vet and
// the configured linters. It relies on formatStage having found the Go
// tools, which it did whenever there are Go files.
func (c *Checker) goJobs(ctx context.Context, root *os.Root, goFiles, broken []string) []job {
	var vetFiles []string
	for _, f := range goFiles {
		if !underDir(f, "vendor") {
			vetFiles = append(vetFiles, f)
		}
	}
	if len(vetFiles) == 0 || (c.cfg.NoVet && len(c.cfg.Linters) == 0) {
		return nil
	}
	if c.gotools.goCmd == "" {
		c.warn("go", fmt.Sprintf("turn-end checks: the go command was not found (%v); go vet and the Go linters do not run", c.gotools.err))
		return nil
	}
	plan := c.planGo(root, vetFiles)
	var jobs []job
	if !c.cfg.NoVet {
		jobs = append(jobs, job{checkVet, vetFiles, func() checkOutcome { return c.vet(ctx, plan, vetFiles, broken) }})
	}
	for _, name := range c.cfg.Linters {
		l := knownLinters[name]
		prog, err := child.LookPath(l.name, getenv(c.env, "PATH"), c.root)
		if err != nil {
			c.warn("linter:"+name, fmt.Sprintf("turn-end checks: linter %s is enabled but not installed (not on PATH); it is skipped", name))
			continue
		}
		jobs = append(jobs, job{name, vetFiles, func() checkOutcome { return c.lint(ctx, l, prog, plan, vetFiles, broken) }})
	}
	return jobs
}

// commandJobs are the stage-2 jobs of the configured check commands, each
// on the files it matches; a command whose program is not found is skipped
// with a warning.
func (c *Checker) commandJobs(ctx context.Context, existing []string) []job {
	var jobs []job
	for _, cmd := range c.commands {
		var files []string
		for _, f := range existing {
			if cmd.matches(f) {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		prog, err := child.LookPath(cmd.Run[0], getenv(c.env, "PATH"), c.root)
		if err != nil {
			c.warn("command:"+cmd.Name, fmt.Sprintf("turn-end checks: check %s: %s not found; it is skipped", cmd.Name, cmd.Run[0]))
			continue
		}
		jobs = append(jobs, job{cmd.Name, files, func() checkOutcome { return c.runCommand(ctx, cmd, prog, files) }})
	}
	return jobs
}

// resultOf makes the round's Result of its outcomes, in order.
func resultOf(outcomes []checkOutcome) Result {
	var r Result
	seen := make(map[string]bool)
	var all []Diagnostic
	for _, o := range outcomes {
		r.Checks = append(r.Checks, o.name)
		for _, f := range o.files {
			if !seen[f] {
				seen[f] = true
				r.Files = append(r.Files, f)
			}
		}
		r.Formatted = append(r.Formatted, o.formatted...)
		all = append(all, o.diags...)
		r.Errors = append(r.Errors, o.errs...)
	}
	slices.Sort(r.Files)
	r.Diagnostics = Normalize(all)
	return r
}

// job is one check of a round.
type job struct {
	name  string
	files []string
	run   func() checkOutcome
}

// runJobs runs jobs at the same time. Each is reported Started, in
// order, before any runs, and Finished as soon as it is done.
func (c *Checker) runJobs(jobs []job) []checkOutcome {
	out := make([]checkOutcome, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		c.report(Started{Check: j.name, Files: j.files})
		start := c.cfg.Now()
		wg.Go(func() {
			o := j.run()
			o.name, o.files, o.diags = j.name, j.files, Normalize(o.diags)
			c.report(o.finished(c.cfg.Now().Sub(start)))
			out[i] = o
		})
	}
	wg.Wait()
	return out
}

// underDir reports whether the workspace path rel has a directory called
// name on it.
func underDir(rel, name string) bool {
	return slices.Contains(strings.Split(path.Dir(rel), "/"), name)
}

// parallel runs f(0..n-1) on at most GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 2))
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// gofmt runs gofmt on every file.
func (c *Checker) gofmt(ctx context.Context, root *os.Root, files []string) checkOutcome {
	res := make([]fmtResult, len(files))
	parallel(len(files), func(i int) { res[i] = c.gofmtFile(ctx, root, c.gotools.gofmt, files[i]) })
	var o checkOutcome
	for _, r := range res {
		o.diags = append(o.diags, r.diags...)
		if r.formatted {
			o.formatted = append(o.formatted, r.path)
			// The model was told; its next edit of the file must not be
			// refused as stale because of our change.
			if ack, ok := c.cfg.Tools.(acknowledger); ok {
				if err := ack.Acknowledge(r.path); err != nil {
					o.errs = append(o.errs, fmt.Sprintf("record formatted %s: %v", r.path, err))
				}
			}
		}
		if r.syntax {
			o.broken = append(o.broken, path.Dir(r.path))
		}
		if r.err != nil {
			o.errs = append(o.errs, r.err.Error())
		}
	}
	return o
}

// vet runs go vet on the changed packages that have no syntax errors,
// one go command per module (see moduleUnits).
func (c *Checker) vet(ctx context.Context, plan goPlan, changed, broken []string) checkOutcome {
	units, skipped := plan.moduleUnits(broken)
	res := make([]unitResult, len(units))
	parallel(len(units), func(i int) {
		res[i] = c.runGoTool(ctx, checkVet, []string{c.gotools.goCmd, "vet"}, units[i], changed, true, true)
	})
	return withSkipped(collect(res), skipped)
}

// lint runs a linter on the changed packages that have no syntax errors,
// once per module.
func (c *Checker) lint(ctx context.Context, l linter, prog string, plan goPlan, changed, broken []string) checkOutcome {
	units, skipped := plan.moduleUnits(broken)
	res := make([]unitResult, len(units))
	parallel(len(units), func(i int) {
		argv := l.argv(units[i])
		argv[0] = prog
		res[i] = c.runGoTool(ctx, l.name, argv, units[i], changed, false, false)
	})
	return withSkipped(collect(res), skipped)
}

func withSkipped(o checkOutcome, skipped []string) checkOutcome {
	if len(skipped) > 0 {
		o.skipped = "not run on " + listFiles(skipped, maxListedFiles) + " (syntax errors)"
	}
	return o
}

func collect(res []unitResult) checkOutcome {
	var o checkOutcome
	for _, r := range res {
		o.diags = append(o.diags, r.diags...)
		o.dropped += r.dropped
		if r.err != "" {
			o.errs = append(o.errs, r.err)
		}
	}
	return o
}
