// Package app is tackle, the application: the command line (kong), the
// settings and where each came from, the trusted project files, the
// session a run is wired from (tools, approval policy, hooks, MCP servers,
// model client), the two ways to run (the terminal UI and piped runs),
// the subcommands, and the exit codes. The tackle command (main.go at the
// module root) hands Main the process's arguments and streams.
//
// This file parses the command line and runs the command.
package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/checks"
)

// version is set at build time with
// -ldflags "-X github.com/tackle-dev/tackle/app.version=...".
var version = "dev"

type cli struct {
	Run          struct{}         `cmd:"" default:"withargs" hidden:"" help:"Talk to the model: interactively, or once with -p or a piped prompt (the default command)."`
	Permissions  permissionsCmd   `cmd:"" help:"List the allow and deny rules of the user config file, or revoke one."`
	Hooks        hooksCmd         `cmd:"" help:"List every hook (source, event, matcher, priority, kind, trust), or run one on a payload: tackle hooks test NAME EVENT [payload.json]."`
	Sessions     sessionsCmd      `cmd:"" help:"List the sessions of the workspace, the one used last first: id, last use, turns, how the last run ended, model, first prompt (--output json for JSON)."`
	Prompt       string           `short:"p" placeholder:"PROMPT" help:"Run non-interactively with this prompt and exit. Text piped on stdin is appended to it as context."`
	Effort       string           `name:"reasoning-effort" env:"TACKLE_REASONING_EFFORT" placeholder:"LEVEL" help:"How hard a reasoning model thinks: minimal, low, medium or high, sent as reasoning_effort (OpenAI, DeepSeek, vLLM, Ollama and others read it). Unset, nothing is sent and the server decides."`
	ShowReason   bool             `name:"show-reasoning" help:"With -p and text output, print the model's reasoning on stderr as it streams (never on stdout). json and stream-json output always carry it."`
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
	TrustProject bool             `name:"trust-project" help:"Trust the project's .tackle/config.json and the hooks of its .claude/settings.json and .claude/settings.local.json as they are now (pinned to a hash of their contents; a change asks again). Without it, a non-interactive run leaves such files out until they are trusted."`
	RecordHooks  string           `name:"record-hooks" type:"path" placeholder:"DIR" help:"Write the input of every hook event of the run to DIR (NNNN-EVENT.json), for replays with tackle hooks test."`
	Inline       bool             `help:"Run the interactive UI in the terminal's normal screen: finished messages go into the terminal's scrollback as they finish. By default the UI uses the full screen and writes the transcript to the terminal when it exits."`
	Version      kong.VersionFlag `short:"v" help:"Print the version and exit."`

	// Set by resolveSettings (settings.go): where each setting's value
	// came from, the allow and deny rules with their sources, the
	// turn-end checks' settings (nil when they are off) and the API key.
	origins map[string]origin
	perms   []approval.Permission
	checks  *checks.Config
	apiKey  string
	// project is the project layer: its trusted files (openProject).
	project projectLayer
	// answers are the answers --approve and --deny give to the pause of
	// the resumed session (takeAnswers); nil when there are none.
	answers *pauseAnswers
}

// Streams are the process's streams and environment: main passes the
// process's own, a test its own.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// InTTY reports whether In is a terminal.
	InTTY bool
	// Env is the environment ("KEY=value", as os.Environ gives it), the
	// only one tackle reads.
	Env environ
}

// Main runs tackle with args (without the program name), reports the
// error it ends with, if any, on stdio.Err, and returns its exit code.
func Main(args []string, stdio Streams) int {
	err := execute(args, stdio)
	report(stdio.Err, err)
	return exitCodeOf(err)
}

// execute parses args, resolves the settings and runs the command.
func execute(args []string, stdio Streams) error {
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
	cfg, err := loadConfig(stdio.Env.get)
	if err != nil {
		return usageError{err}
	}
	switch cmd := kctx.Command(); {
	case strings.HasPrefix(cmd, "permissions"):
		return c.Permissions.run(cmd, cfg, stdio)
	case cmd == "sessions":
		return c.Sessions.run(c, stdio)
	case strings.HasPrefix(cmd, "hooks"):
		return c.Hooks.run(context.Background(), cmd, c, cfg, stdio)
	}
	// The session to go on with is opened first: --deny names its pending
	// calls, or is a rule.
	res, err := openResumed(c, stdio.Env)
	if err != nil {
		return err
	}
	defer res.close()
	if err := c.takeAnswers(kctx, res); err != nil {
		return err
	}
	interactive := c.Prompt == "" && stdio.InTTY && c.answers == nil
	var ask askTrust
	if interactive {
		ask = terminalTrust(stdio.In, stdio.Err)
	}
	if c.project, err = openProject(c, stdio.Env, ask, stdio.Err); err != nil {
		return err
	}
	if err := resolveSettings(kctx, &c, cfg, stdio.Env); err != nil {
		return err
	}

	ctx, stop, atExit := interruptContext(stdio.Err)
	defer stop()
	if interactive {
		return runInteractive(ctx, c, cfg, stdio, res, atExit)
	}
	return runPiped(ctx, c, cfg, stdio, res, atExit)
}

// newParser returns the parser of the command line, which fills c; it
// reads environment variables from stdio.env (see env.go). onExit is
// called where kong would exit.
func newParser(c *cli, stdio Streams, onExit func(int)) (*kong.Kong, error) {
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
		kong.Writers(stdio.Out, stdio.Err),
		kong.Exit(onExit),
		kong.Help(usage),
		kong.UsageOnError(),
		kong.Resolvers(envResolver(stdio.Env)),
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
		help = "Usage: tackle [flags]\n       tackle sessions\n       tackle permissions [list | revoke RULE]\n       tackle hooks [list | test NAME EVENT [PAYLOAD]]\n" + rest
	}
	_, err = io.WriteString(w, help)
	return err
}

// interruptContext returns a context cancelled by the first SIGINT or
// SIGTERM; a second signal exits at once, after calling the functions
// given to atExit (which kill the hook servers' process groups: they
// would outlive the process otherwise).
func interruptContext(stderr io.Writer) (ctx context.Context, stop func(), atExit func(func())) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var kills []func()
	atExit = func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		kills = append(kills, f)
	}
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
			mu.Lock()
			for _, kill := range kills {
				kill()
			}
			mu.Unlock()
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	stop = func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
	return ctx, stop, atExit
}

// loadConfig reads the user config file.
func loadConfig(getenv func(string) string) (config.Config, error) {
	path, err := config.UserPath(getenv)
	if err != nil {
		return config.Config{}, nil // no home: no user config to read
	}
	return config.Load(path)
}
