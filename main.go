// Command tackle is a terminal coding assistant. This file parses flags,
// wires the parts together and maps the result to an exit code.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/project"
	sessions "github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/checks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tui"
	"github.com/tackle-dev/tackle/tui/config"
	"github.com/tackle-dev/tackle/tui/headless"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type cli struct {
	Run          struct{}         `cmd:"" default:"withargs" hidden:"" help:"Talk to the model: interactively, or once with -p or a piped prompt (the default command)."`
	Permissions  permissionsCmd   `cmd:"" help:"List the allow and deny rules of the user config file, or revoke one."`
	Sessions     sessionsCmd      `cmd:"" help:"List the sessions of the workspace, the one used last first: id, last use, turns, how the last run ended, model, first prompt (--output json for JSON)."`
	Prompt       string           `short:"p" placeholder:"PROMPT" help:"Run non-interactively with this prompt and exit. Text piped on stdin is appended to it as context."`
	Output       string           `short:"o" enum:"text,json,stream-json" default:"text" help:"Output of non-interactive runs: text (the answer on stdout, progress on stderr), json (one object at the end) or stream-json (one JSON event per line)."`
	Model        string           `short:"m" env:"TACKLE_MODEL" default:"${model}" help:"Model name as the endpoint knows it."`
	BaseURL      string           `name:"base-url" env:"OPENAI_BASE_URL" placeholder:"URL" help:"OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama. The API key is read from $$OPENAI_API_KEY."`
	Yes          bool             `short:"y" help:"Approve every tool call that asks for approval. Without it, a non-interactive run denies such calls and tells the model why."`
	Mode         string           `default:"${mode}" env:"TACKLE_MODE" help:"Approval mode: default (reads run; edits and shell ask), accept-edits (edits run; shell asks), yolo (everything runs), plan (read-only: edits and shell are skipped)."`
	Allow        []string         `placeholder:"RULE" sep:"none" help:"Let matching tool calls run without asking, e.g. 'bash(go test *)', 'edit_file(docs/**)', 'read_file'. Each simple command of a shell program must match. Repeatable."`
	Deny         []string         `placeholder:"RULE" sep:"none" help:"Skip matching tool calls in every mode, e.g. 'bash(rm *)', 'bash(git push *)'. Deny wins over allow. Repeatable. With --resume ID of a paused session, --deny CALL_ID (or all) denies that pending call instead; a --reason after it tells the model why."`
	Continue     bool             `short:"c" help:"Go on with the most recent session of this workspace, interactively or with -p."`
	Resume       resumeFlag       `placeholder:"[ID]" help:"Go on with session ID (its id or a unique start of it; 'tackle sessions' lists them). Without an ID the interactive UI lets you pick one."`
	OnPause      string           `name:"on-pause" enum:"deny,save" default:"deny" env:"TACKLE_ON_PAUSE" help:"What a non-interactive run does with a tool call that needs approval neither --yes nor a rule gives: deny it (the model is told why), or save the run as paused and exit 3, naming the session and each pending call, to be answered later with --resume ID --approve/--deny."`
	Approve      []string         `placeholder:"CALL_ID" sep:"none" help:"With --resume ID of a paused session: approve this pending call (all: every one) and go on. Repeatable."`
	Reason       []string         `placeholder:"TEXT" sep:"none" help:"With --deny CALL_ID: the reason the model is told. It follows the --deny it explains."`
	Workspace    string           `short:"w" type:"existingdir" default:"." placeholder:"DIR" help:"Workspace root; file tools cannot reach outside it."`
	MaxRequests  int              `default:"${max_requests}" env:"TACKLE_MAX_REQUESTS" help:"Cap on model requests per run (at least 1)."`
	MaxParallel  int              `name:"max-parallel-tools" default:"${max_parallel}" env:"TACKLE_MAX_PARALLEL_TOOLS" help:"Most tool calls of one model reply that run at once (at least 1); the others wait their turn."`
	MaxRetries   int              `default:"${max_retries}" env:"TACKLE_MAX_RETRIES" help:"Rounds of turn-end feedback (retry messages from hooks and checks) per run before the run ends as capped; 0 turns retries off."`
	NoAutoformat bool             `name:"no-autoformat" env:"TACKLE_NO_AUTOFORMAT" help:"Report Go files that gofmt would change as problems for the model instead of formatting them at turn end."`
	FirstToken   time.Duration    `name:"first-token-timeout" env:"TACKLE_FIRST_TOKEN_TIMEOUT" default:"${first_token_timeout}" placeholder:"DURATION" help:"How long to wait for the first token of a model reply (connecting and the response headers included) before trying again, e.g. 90s or 5m."`
	StreamIdle   time.Duration    `name:"stream-idle-timeout" env:"TACKLE_STREAM_IDLE_TIMEOUT" default:"${stream_idle_timeout}" placeholder:"DURATION" help:"How long a model reply may go silent between chunks before it fails, e.g. 60s or 3m."`
	Theme        string           `env:"TACKLE_THEME" placeholder:"NAME" help:"Theme of the interactive UI: dark, light, high-contrast, no-color, a user theme from $$XDG_CONFIG_HOME/tackle/themes, or auto (the default: from the terminal background; NO_COLOR gives no colour)."`
	NoProtect    bool             `name:"dangerously-skip-protection" help:"Dangerous: let writes to protected paths follow --mode and the allow rules like any other file. Protected paths are .git, tackle's own config and state, the hook scripts the config runs, shell startup files (~/.bashrc …) and secret files (.env, *.pem, id_rsa …); a change there can run code later. Without this flag they always ask, in yolo mode too."`
	Inline       bool             `help:"Run the interactive UI in the terminal's normal screen: finished messages go into the terminal's scrollback as they finish. By default the UI uses the full screen and writes the transcript to the terminal when it exits."`
	Version      kong.VersionFlag `short:"v" help:"Print the version and exit."`

	// Set by resolveSettings (settings.go): where each setting's value
	// came from, the allow and deny rules with their sources, the
	// turn-end checks' settings (nil when they are off) and the API key.
	origins map[string]origin
	perms   []approval.Permission
	checks  *checks.Config
	apiKey  string
	// answers are the answers --approve and --deny give to the pause of
	// the resumed session (takeAnswers); nil when there are none.
	answers *pauseAnswers
}

// stdio are the process's streams and environment, injected for tests.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// inTTY reports whether in is a terminal.
	inTTY bool
	// env is the environment, the only one tackle reads.
	env environ
}

func main() {
	streams := stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, inTTY: term.IsTerminal(int(os.Stdin.Fd())), env: os.Environ()}
	os.Exit(run(os.Args[1:], streams))
}

// run runs tackle with args, reports the error it ends with, if any, and
// returns its exit code.
func run(args []string, stdio stdio) int {
	err := execute(args, stdio)
	report(stdio.err, err)
	return exitCodeOf(err)
}

// execute parses args, resolves the settings and runs the command.
func execute(args []string, stdio stdio) error {
	var c cli
	exited := false
	parser, err := newParser(&c, stdio, func(int) { exited = true })
	if err != nil {
		return err
	}
	// --help and --version answer here, before the config file is read.
	kctx, err := parser.Parse(args)
	switch {
	case exited: // kong calls Exit only after --help and --version, with 0
		return nil
	case err != nil:
		return usageError{err}
	}
	cfg, err := loadConfig(stdio.env.get)
	if err != nil {
		return usageError{err}
	}
	switch cmd := kctx.Command(); {
	case strings.HasPrefix(cmd, "permissions"):
		return c.Permissions.run(cmd, cfg, stdio)
	case cmd == "sessions":
		return c.Sessions.run(c, stdio)
	}
	// The session to go on with is opened first: --deny names its pending
	// calls, or is a rule.
	res, err := openResumed(c, stdio.env)
	if err != nil {
		return err
	}
	defer res.close()
	if err := c.takeAnswers(kctx, res); err != nil {
		return err
	}
	if err := resolveSettings(kctx, &c, cfg, stdio.env); err != nil {
		return err
	}

	ctx, stop := interruptContext(stdio.err)
	defer stop()
	if c.Prompt == "" && stdio.inTTY && c.answers == nil {
		return runInteractive(ctx, c, cfg, stdio, res)
	}
	return runPiped(ctx, c, cfg, stdio, res)
}

// newParser returns the parser of the command line, which fills c; it
// reads environment variables from stdio.env (see env.go). onExit is
// called where kong would exit.
func newParser(c *cli, stdio stdio, onExit func(int)) (*kong.Kong, error) {
	parser, err := kong.New(c,
		kong.Name("tackle"),
		kong.Description("A terminal coding assistant for any OpenAI-compatible model.\n\n"+
			"Non-interactive: tackle -p \"fix the failing test\", or echo \"...\" | tackle.\n\n"+
			"Settings and command hooks can also live in $XDG_CONFIG_HOME/tackle/config.json "+
			"(its fields are named like the flags: max_requests for --max-requests); "+
			"flags win over environment variables, which win over the file.\n\n"+exitCodesHelp()),
		kong.Vars{
			"version":      "tackle " + version,
			"model":        "gpt-4.1-mini",
			"mode":         string(approval.Default),
			"max_requests": strconv.Itoa(agent.DefaultMaxRequests),
			"max_parallel": strconv.Itoa(agent.DefaultMaxParallel),
			"max_retries":  strconv.Itoa(hooks.DefaultRetryBudget),
		},
		kong.Vars{
			"first_token_timeout": agent.DefaultFirstTokenTimeout.String(),
			"stream_idle_timeout": agent.DefaultStreamIdleTimeout.String(),
		},
		kong.Writers(stdio.out, stdio.err),
		kong.Exit(onExit),
		kong.Help(usage),
		kong.UsageOnError(),
		kong.Resolvers(envResolver(stdio.env)),
		kong.ValueFormatter(helpValue),
	)
	if err != nil {
		return nil, err
	}
	unhookEnv(parser.Model.Node)
	return parser, nil
}

// usage prints kong's help with a usage line that says the command is
// optional.
func usage(opts kong.HelpOptions, kctx *kong.Context) error {
	var buf strings.Builder
	w := kctx.Stdout
	kctx.Stdout = &buf
	err := kong.DefaultHelpPrinter(opts, kctx)
	kctx.Stdout = w
	if err != nil {
		return err
	}
	help := buf.String()
	if rest, ok := strings.CutPrefix(help, "Usage: tackle <command> [flags]\n"); ok {
		help = "Usage: tackle [flags]\n       tackle sessions\n       tackle permissions [list | revoke RULE]\n" + rest
	}
	_, err = io.WriteString(w, help)
	return err
}

// interruptContext returns a context cancelled by the first SIGINT or
// SIGTERM; a second signal exits at once.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "tackle: interrupted twice; exiting now")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// session is everything a run is wired from, piped or interactive: the
// workspace and its tools, the approval policy and the hook registry.
type session struct {
	root    string
	ws      *tools.Workspace
	toolbox *tools.Registry
	policy  *approval.Policy
	hooks   *hooks.Registry
	client  agent.Client
	// redactor removes secrets from tool results and session records.
	redactor *redact.Redactor
	journal  *tools.TempJournal // nil without a state directory
	system   string             // the system prompt: tackle's, the project's instructions, the environment
	// contextParts are the system prompt's parts and the tool
	// definitions, for /context.
	contextParts []tui.ContextPart
	compaction   compaction
}

// newSession opens the workspace and registers the built-in and configured
// hooks. Progress of the turn-end checks goes to emit, the same sink as
// the Worker's events. The caller closes the session.
func newSession(c cli, cfg config.Config, stdio stdio, emit func(agent.Event)) (*session, error) {
	root, err := filepath.Abs(c.Workspace)
	if err != nil {
		return nil, usagef("workspace: %w", err)
	}
	ws, err := tools.OpenWorkspace(root)
	if err != nil {
		return nil, usageError{err}
	}
	s := &session{root: ws.Dir(), ws: ws, hooks: hooks.NewRegistry()}
	// A deny rule on reading a file also hides it from a grep of a directory.
	s.toolbox = tools.NewRegistry(ws,
		tools.WithReadFilter(func(rel string) bool { return s.policy.ReadAllowed(rel) }),
		tools.WithEnv(stdio.env))
	if state, err := config.StateDir(stdio.env.get); err == nil {
		s.journal = tools.NewTempJournal(filepath.Join(state, "pending-writes"))
		ws.UseTempJournal(s.journal)
		cleanStaleTemps(s.journal.Dir(), emit)
	}
	s.client = agent.NewOpenAI(agent.OpenAIConfig{
		APIKey: c.apiKey, BaseURL: c.BaseURL,
		Organization: stdio.env.get("OPENAI_ORG_ID"), Project: stdio.env.get("OPENAI_PROJECT_ID"),
		FirstTokenTimeout: c.FirstToken, StreamIdleTimeout: c.StreamIdle,
	})
	s.compaction = newCompaction(c, cfg, stdio.env)

	s.system, s.contextParts = systemPrompt(s.root, stdio.env)
	specs, _ := json.Marshal(s.toolbox.Specs())
	s.contextParts = append(s.contextParts, tui.ContextPart{Name: fmt.Sprintf("tool definitions (%d tools)", len(s.toolbox.Names())), Text: string(specs)})

	s.policy = approval.New(approval.Mode(c.Mode), s.toolbox,
		approval.WithPermissions(c.perms),
		approval.WithWorkspace(s.root),
		approval.WithProtection(protection(cfg, s.root, stdio.env.get, c.NoProtect)),
	)
	s.hooks.PreToolCall(s.policy.Hook())
	if err := s.registerHooks(c, cfg, stdio.env, emit); err != nil {
		s.Close()
		return nil, usageError{config.InFile(cfg.Path, err)}
	}
	return s, nil
}

// registerHooks registers the redaction of secrets (env's, and the API
// key), the config's command hooks and the turn-end checks. Their base
// environment is env.
func (s *session) registerHooks(c cli, cfg config.Config, env environ, emit func(agent.Event)) error {
	r, err := redact.New(append(tools.SecretValues(env), c.apiKey), cfg.Redact)
	if err != nil {
		return err
	}
	s.redactor = r
	s.hooks.PostToolCall(r.Hook())
	if err := command.RegisterAll(s.hooks, cfg.Hooks, command.Options{Workdir: s.root, Env: env}); err != nil {
		return err
	}
	if c.checks == nil {
		return nil
	}
	ccfg := *c.checks
	ccfg.Workspace, ccfg.Tools, ccfg.Env = s.root, s.toolbox, env
	ccfg.Report = func(e checks.Event) { emit(checkEvent(e)) }
	_, err = checks.Register(s.hooks, ccfg)
	return err
}

func (s *session) Close() error {
	if s.journal != nil {
		s.journal.Close()
	}
	return s.ws.Close()
}

// cleanStaleTemps removes the temporary files that tackles killed
// mid-write left behind, and says so.
func cleanStaleTemps(dir string, emit func(agent.Event)) {
	stale, err := tools.CleanStaleTemps(dir)
	if err != nil {
		emit(agent.Warning{Message: err.Error()})
	}
	for _, st := range stale {
		msg := fmt.Sprintf("removed %s (%d bytes), a temporary file left by a tackle that was killed mid-write", st.Path, st.Size)
		if st.Err != nil {
			msg = fmt.Sprintf("could not remove %s, a temporary file left by a tackle that was killed mid-write: %v", st.Path, st.Err)
		}
		emit(agent.Warning{Message: msg})
	}
}

// systemPrompt is tackle's system prompt for the workspace with the
// project's instruction files (AGENTS.md, CLAUDE.md) and the environment
// (OS, shell, date, git status, Go version) added, and its parts for
// /context.
func systemPrompt(root string, env environ) (string, []tui.ContextPart) {
	base := agent.SystemPrompt(root)
	parts := []tui.ContextPart{{Name: "tackle's instructions", Text: base}}
	o := project.Options{Workspace: root, Env: env, Now: time.Now}
	if p, err := config.UserPath(env.get); err == nil {
		o.UserDir = filepath.Dir(p)
	}
	pc, err := project.Gather(context.Background(), o)
	if err != nil {
		return base, parts
	}
	for _, f := range pc.Instructions {
		parts = append(parts, tui.ContextPart{Name: "instructions " + f.Path, Text: f.Content})
	}
	parts = append(parts, tui.ContextPart{Name: "environment (OS, date, git status …)", Text: pc.Environment})
	return base + "\n\n" + pc.Prompt(), parts
}

// worker returns a Worker for this session that goes on with cv's
// conversation, records into cv's session and sends its events to
// onEvent.
func (s *session) worker(c cli, cv *conversation, onEvent func(agent.Event)) *agent.Worker {
	cfg := agent.Config{
		Client:           s.client,
		Model:            cv.model,
		System:           s.system,
		History:          cv.history,
		Tools:            s.toolbox,
		Hooks:            s.hooks,
		MaxRequests:      c.MaxRequests,
		MaxParallel:      c.MaxParallel,
		RetryBudget:      retryBudget(c.MaxRetries),
		OnEvent:          onEvent,
		OnApproveAlways:  s.policy.Remember,
		ContextWindow:    s.compaction.window,
		CompactThreshold: s.compaction.threshold,
		KeepTurns:        s.compaction.keepTurns,
	}
	if rec := cv.rec; rec != nil {
		cfg.OnMessage = rec.Message
		cfg.OnEvent = func(e agent.Event) {
			rec.Event(e)
			onEvent(e)
		}
	}
	return agent.New(cfg)
}

// retryBudget is the Worker's RetryBudget for --max-retries n: 0 means
// no rounds, where the Worker's zero means its default.
func retryBudget(n int) int {
	if n == 0 {
		return hooks.NoRetries
	}
	return n
}

// checkEvent turns a progress report of the turn-end checks into the
// agent's event of the same shape.
func checkEvent(e checks.Event) agent.Event {
	switch e := e.(type) {
	case checks.Started:
		return agent.CheckStarted(e)
	case checks.Finished:
		return agent.CheckFinished(e)
	case checks.Warning:
		return agent.Warning(e)
	}
	return agent.Warning{Message: fmt.Sprintf("checks: unknown event %T", e)}
}

// runPiped runs one prompt without a UI, or answers a saved pause
// (--approve, --deny), recording it in a session.
func runPiped(ctx context.Context, c cli, cfg config.Config, stdio stdio, res *resumed) error {
	if c.Resume.set && c.Resume.id == "" {
		return usagef("--resume without an ID lists the sessions in the interactive UI; here give the ID ('tackle sessions' lists them)")
	}
	store := sessionStore(stdio.env)
	if c.OnPause == "save" && store == nil {
		return usagef("--on-pause save: no state directory to save the session in (set HOME or XDG_STATE_HOME)")
	}
	var prompt string
	if c.answers == nil {
		p, err := readPrompt(c.Prompt, stdio)
		if err != nil {
			return err
		}
		prompt = p
	}
	printer := headless.NewPrinter(headless.Format(c.Output), stdio.out, stdio.err)
	s, err := newSession(c, cfg, stdio, printer.Event)
	if err != nil {
		return err
	}
	defer s.Close()

	warn := func(err error) { printer.Event(agent.Warning{Message: err.Error()}) }
	cv := s.newConversation(c, store, warn)
	if res != nil {
		cv = s.continueConversation(c, res, warn)
		for _, w := range cv.warnings {
			warn(errors.New(w))
		}
	}
	printer.SummarizeWith(s.toolbox.Summary)
	answers := headless.Answers{Yes: c.Yes, Protected: s.policy.Protected, Summarize: s.toolbox.Summary, Save: c.OnPause == "save"}
	result, err := drivePiped(ctx, c, s, cv, printer.Event, prompt, answers, stdio.err)
	// The session is complete on disk, and free, before stdout names it:
	// whoever reads it may resume it at once.
	if cerr := cv.close(); cerr != nil {
		warn(cerr)
	}
	if err != nil {
		return err
	}
	result.Session = cv.id()
	err = runEnd(ctx, result)
	if ferr := printer.Finish(result, exitCodeOf(err)); ferr != nil && err == nil {
		return ferr
	}
	return err
}

// drivePiped runs the Worker on cv: it answers cv's pause with c.answers,
// or sends prompt (refused while cv waits for answers).
func drivePiped(ctx context.Context, c cli, s *session, cv *conversation, emit func(agent.Event), prompt string, a headless.Answers, stderr io.Writer) (headless.Result, error) {
	w := s.worker(c, cv, emit)
	if c.answers == nil {
		if err := cv.pausedCalls(); err != nil {
			return headless.Result{}, err
		}
		return headless.Drive(ctx, w, prompt, a, stderr), nil
	}
	if _, err := cv.restore(w); err != nil {
		return headless.Result{}, err
	}
	return headless.Continue(ctx, w, c.answers.decisions, a, stderr), nil
}

// runEnd is the error a piped run ends with: nil when it finished and
// every call it asked for ran.
func runEnd(ctx context.Context, res headless.Result) error {
	err := outcomeError(res)
	if ctx.Err() != nil {
		return interruptedError{err}
	}
	return err
}

// outcomeError is what went wrong in a run, by how it ended: its error,
// a budget, a pause nobody could answer, denied calls, calls that a
// failing hook skipped.
func outcomeError(res headless.Result) error {
	var skipped error
	if n := res.Outcome.HookFailures; n > 0 {
		skipped = fmt.Errorf("%d tool call(s) skipped because a pre_tool_call hook failed (see the warnings above)", n)
	}
	switch {
	case res.Err != nil:
		return res.Err
	case res.Outcome.Status == agent.StatusCapped:
		return cappedError{res.Outcome.Reason}
	case res.Outcome.Incomplete != "":
		return incompleteError{res.Outcome.Incomplete}
	case res.Saved:
		return deniedError{savedError(res)}
	case res.Outcome.Status == agent.StatusPaused:
		return deniedError{fmt.Errorf("run paused: %s (a non-interactive run cannot answer it)", res.Outcome.Reason)}
	case res.Denied > 0:
		return deniedError{skipped}
	}
	return skipped
}

// savedError says how to go on with a saved pause.
func savedError(res headless.Result) error {
	if res.Session == "" {
		return errors.New("run paused, and the session could not be saved (see the warnings above)")
	}
	if len(res.Outcome.Pending) == 0 {
		return fmt.Errorf("run paused at turn end and saved: go on with tackle --resume %s --approve all", res.Session)
	}
	return fmt.Errorf("run paused and saved: answer with tackle --resume %s --approve CALL_ID|all or --deny CALL_ID [--reason TEXT]", res.Session)
}

// runInteractive runs the terminal UI (tui) on the terminal until the
// user quits. Its agents' events reach the UI through a tui.Bridge.
func runInteractive(ctx context.Context, c cli, cfg config.Config, stdio stdio, res *resumed) error {
	userThemes, err := themes.Load(themes.Dir(stdio.env.get))
	if err != nil {
		fmt.Fprintf(stdio.err, "tackle: warning: %v\n", err)
	}
	if name := strings.TrimSpace(c.Theme); name != "" && name != themes.Auto {
		if _, err := themes.Resolve(name, true, userThemes); err != nil {
			return usagef("%s: %w", c.originOf("theme"), err)
		}
	}
	bridge := tui.NewBridge()
	s, err := newSession(c, cfg, stdio, bridge.Send)
	if err != nil {
		return err
	}
	defer s.Close()

	u := &uiSessions{c: c, s: s, store: sessionStore(stdio.env), sink: bridge.Send}
	defer u.close(stdio.err)
	history, saveHistory := promptHistory(s.root, stdio)
	opts := tui.Options{
		NewAgent:     u.fresh,
		Bridge:       bridge,
		Policy:       s.policy,
		Tools:        s.toolbox,
		Model:        c.Model,
		Workdir:      s.root,
		Theme:        c.Theme,
		UserThemes:   userThemes,
		Env:          stdio.env,
		Inline:       c.Inline,
		History:      history,
		SaveHistory:  saveHistory,
		PickSession:  c.Resume.set && c.Resume.id == "",
		ContextParts: s.contextParts,
	}
	if u.store != nil {
		opts.Sessions = u
	}
	if res != nil {
		r, err := u.resume(res)
		if err != nil {
			return err
		}
		opts.Resumed = &r
	} else {
		opts.Agent = u.fresh()
	}
	err = tui.Run(ctx, opts, stdio.in, stdio.out)
	if ctx.Err() != nil {
		return interruptedError{err}
	}
	return err
}

// promptHistory loads the workspace's earlier prompts and returns the
// function that keeps new ones. Without a state directory the history
// lasts for the session only.
func promptHistory(root string, stdio stdio) ([]string, func(string) error) {
	dir, err := config.StateDir(stdio.env.get)
	if err != nil {
		return nil, nil
	}
	h := sessions.Open(filepath.Join(dir, "sessions")).History(root)
	prompts, err := h.Load(500)
	if err != nil {
		fmt.Fprintf(stdio.err, "tackle: warning: %v\n", err)
	}
	return prompts, h.Append
}

// loadConfig reads the user config file.
func loadConfig(getenv func(string) string) (config.Config, error) {
	path, err := config.UserPath(getenv)
	if err != nil {
		return config.Config{}, nil // no home: no user config to read
	}
	return config.Load(path)
}

// maxStdin bounds what is read from stdin as a prompt or context.
const maxStdin = 8 << 20

// readPrompt builds the prompt from -p and stdin: stdin alone is the
// prompt; with -p it is appended as context.
func readPrompt(flag string, stdio stdio) (string, error) {
	var piped string
	if !stdio.inTTY && stdio.in != nil && (flag == "" || readableStdin(stdio.in)) {
		b, err := io.ReadAll(io.LimitReader(stdio.in, maxStdin+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > maxStdin {
			return "", usagef("stdin is larger than %d MiB", maxStdin>>20)
		}
		piped = strings.TrimSpace(string(b))
	}
	switch {
	case flag != "" && piped != "":
		return flag + "\n\n<stdin>\n" + piped + "\n</stdin>", nil
	case flag != "":
		return flag, nil
	case piped != "":
		return piped, nil
	default:
		return "", usagef("no prompt: pass -p \"...\" or pipe a prompt on stdin")
	}
}

// readableStdin reports whether stdin is a pipe or a file worth reading
// alongside -p (not a terminal or /dev/null, which would block or be empty).
func readableStdin(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return true
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeNamedPipe != 0 || fi.Mode().IsRegular()
}
