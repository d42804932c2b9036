package app

// The command line: kong's struct of flags and subcommands (cli), the
// parser that fills it, and the environment variables kong reads for it
// from the injected environment. What the flags resolve to is Settings
// (settings.go); each command is a Run method (kong binds what it takes:
// newParser).

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
)

// cli is the command line: flags and subcommands, nothing resolved. The
// flags are the root's, so that every command reads the same ones
// (tackle sessions -w DIR -o json).
type cli struct {
	Run          runCmd           `cmd:"" default:"withargs" hidden:"" help:"Talk to the model: interactively, or once with -p or a piped prompt (the default command)."`
	Permissions  permissionsCmd   `cmd:"" help:"List the allow and deny rules of the user config file, or revoke one."`
	Hooks        hooksCmd         `cmd:"" help:"List every hook (source, event, matcher, priority, kind, trust), or run one on a payload: tackle hooks test NAME EVENT [payload.json]."`
	ACP          acpCmd           `cmd:"" name:"acp" help:"Be an editor's agent: speak the Agent Client Protocol on stdin and stdout (Zed, JetBrains IDEs, Neovim, Emacs). Each session is a run in the editor's project directory; tool calls that ask are put to the editor."`
	Sessions     sessionsCmd      `cmd:"" help:"List the sessions of the workspace, the one used last first: id, last use, turns, how the last run ended, model, first prompt (--output json for JSON)."`
	Completion   completionCmd    `cmd:"" help:"Print the shell completion script of bash, zsh or fish: eval \"$$(tackle completion bash)\" in ~/.bashrc (zsh: the same in ~/.zshrc), tackle completion fish | source in fish's config."`
	Prompt       string           `short:"p" placeholder:"PROMPT" help:"Run non-interactively with this prompt and exit. Text piped on stdin is appended to it as context."`
	Image        []string         `placeholder:"FILE" sep:"none" help:"With a non-interactive prompt: attach the image FILE (PNG, JPEG, GIF or WebP as its bytes say, at most 5 MiB) to it, for a model that accepts images. Repeatable."`
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
	Sandbox      string           `enum:"auto,off" default:"auto" env:"TACKLE_SANDBOX" help:"The OS sandbox of the commands tackle runs for the model (bash, !cmd, the turn-end checks): auto (the best the system allows: writes only in the workspace and a private temp dir, .git and tackle's files read-only, your secrets unreadable, no network) or off (the approval policy alone)."`
	SandboxNet   bool             `name:"sandbox-network" env:"TACKLE_SANDBOX_NETWORK" help:"Let every command in the sandbox reach the network (without it a call must ask for network access, and the user is asked)."`
	Approve      []string         `placeholder:"CALL_ID" sep:"none" help:"With --resume ID of a paused session: approve this pending call (all: every one) and go on. Repeatable."`
	Reason       []string         `placeholder:"TEXT" sep:"none" help:"With --deny CALL_ID: the reason the model is told. It follows the --deny it explains."`
	Workspace    string           `short:"w" type:"existingdir" default:"." placeholder:"DIR" help:"Workspace root; file tools cannot reach outside it."`
	MaxRequests  int              `default:"${max_requests}" env:"TACKLE_MAX_REQUESTS" help:"Cap on model requests per run (at least 1)."`
	MaxParallel  int              `name:"max-parallel-tools" default:"${max_parallel}" env:"TACKLE_MAX_PARALLEL_TOOLS" help:"Most tool calls of one model reply that run at once (at least 1); the others wait their turn."`
	MaxRetries   int              `default:"${max_retries}" env:"TACKLE_MAX_RETRIES" help:"Rounds of turn-end feedback (retry messages from hooks and checks) per run before the run ends as capped; 0 turns retries off."`
	NoAutoformat bool             `name:"no-autoformat" env:"TACKLE_NO_AUTOFORMAT" help:"Report Go files that gofmt would change as problems for the model instead of formatting them at turn end."`
	FirstToken   time.Duration    `name:"first-token-timeout" env:"TACKLE_FIRST_TOKEN_TIMEOUT" default:"${first_token_timeout}" placeholder:"DURATION" help:"How long to wait for the first token of a model reply (connecting and the response headers included) before trying again, e.g. 90s or 5m."`
	StreamIdle   time.Duration    `name:"stream-idle-timeout" env:"TACKLE_STREAM_IDLE_TIMEOUT" default:"${stream_idle_timeout}" placeholder:"DURATION" help:"How long a model reply may go without progress (new text, reasoning or tool-call bytes) between chunks before it fails, e.g. 60s or 3m."`
	ReplyTimeout time.Duration    `name:"reply-timeout" env:"TACKLE_REPLY_TIMEOUT" default:"${reply_timeout}" placeholder:"DURATION" help:"The longest one model reply may take in all, however steadily it streams, e.g. 30m or 2h."`
	Theme        string           `env:"TACKLE_THEME" placeholder:"NAME" help:"Theme of the interactive UI: dark, light, high-contrast, no-color, a user theme from $$XDG_CONFIG_HOME/tackle/themes, or auto (the default: from the terminal background; NO_COLOR gives no colour)."`
	NoProtect    bool             `name:"dangerously-skip-protection" help:"Dangerous: let writes to protected paths follow --mode and the allow rules like any other file. Protected paths are .git, tackle's own config and state, the hook scripts the config runs, shell startup files (~/.bashrc …) and secret files (.env, *.pem, id_rsa …); a change there can run code later. Without this flag they always ask, in yolo mode too."`
	TrustProject bool             `name:"trust-project" help:"Trust the project's .tackle/config.json and the hooks of its .claude/settings.json and .claude/settings.local.json as they are now (pinned to a hash of their contents; a change asks again). Without it, a non-interactive run leaves such files out until they are trusted."`
	RecordHooks  string           `name:"record-hooks" type:"path" placeholder:"DIR" help:"Write the input of every hook event of the run to DIR (NNNN-EVENT.json), for replays with tackle hooks test."`
	Inline       bool             `help:"Run the interactive UI in the terminal's normal screen: finished messages go into the terminal's scrollback as they finish. By default the UI uses the full screen and writes the transcript to the terminal when it exits."`
	Version      kong.VersionFlag `short:"v" help:"Print the version and exit."`
}

// resumeFlag is --resume [ID]: the ID is optional (without one the
// interactive UI offers a list), so the flag takes the next argument only
// when it is not a flag.
type resumeFlag struct {
	set bool
	id  string
}

// Decode implements kong.MapperValue.
func (r *resumeFlag) Decode(ctx *kong.DecodeContext) error {
	r.set = true
	if tok := ctx.Scan.Peek(); tok.IsValue() {
		return ctx.Scan.PopValueInto("id", &r.id)
	}
	return nil
}

// newParser returns the parser of the command line, which fills c; it
// reads environment variables from stdio.Env (envResolver). onExit is
// called where kong would exit.
//
// The commands' Run methods take what they need, bound here: the
// streams, a context, the user config file (loaded when a command asks
// for it: --help and --version answer before it is read, and a broken
// file is a usage error), and, as kong binds them itself, the parsed
// *cli and the *kong.Context.
func newParser(c *cli, stdio Streams, onExit func(int)) (*kong.Kong, error) {
	parser, err := kong.New(c,
		kong.Name("tackle"),
		kong.Description("A terminal coding assistant for any OpenAI-compatible model.\n\n"+
			"Interactive: tackle, or tackle \"explain main.go\" to start with that message.\n"+
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
			"reply_timeout":       agent.DefaultReplyTimeout.String(),
		},
		kong.Writers(stdio.Out, stdio.Err),
		kong.Exit(onExit),
		kong.Help(usage),
		kong.UsageOnError(),
		kong.Resolvers(envResolver(stdio.Env)),
		kong.ValueFormatter(helpValue),
		kong.Bind(stdio),
		kong.BindTo(context.Background(), (*context.Context)(nil)),
		kong.BindSingletonProvider(userConfig),
	)
	if err != nil {
		return nil, err
	}
	unhookEnv(parser.Model.Node)
	return parser, nil
}

// userConfig reads the user config file of stdio's environment; a
// broken one is a usage error.
func userConfig(stdio Streams) (config.Config, error) {
	path, err := config.UserPath(stdio.Env.get)
	if err != nil {
		return config.Config{}, nil // no home: no user config to read
	}
	cfg, err := config.Load(path)
	if err != nil {
		return config.Config{}, usageError{err}
	}
	return cfg, nil
}

// subcommandFlags are the root's flags a subcommand reads (the others
// are a run's): its --help shows these, not the rest.
var subcommandFlags = []string{"help", "workspace", "output"}

// usage prints kong's help with a usage line that says the command is
// optional. A subcommand's help shows its own arguments and flags and the
// few of the root's it reads, not a run's forty again.
func usage(opts kong.HelpOptions, kctx *kong.Context) error {
	var buf strings.Builder
	w := kctx.Stdout
	kctx.Stdout = &buf
	sub := kctx.Selected() != nil && kctx.Selected().Name != "run"
	if sub {
		root := kctx.Model.Node
		for _, f := range root.Flags {
			if !f.Hidden && !slices.Contains(subcommandFlags, f.Name) {
				f.Hidden = true
				defer func() { f.Hidden = false }()
			}
		}
	}
	err := kong.DefaultHelpPrinter(opts, kctx)
	if sub && err == nil {
		fmt.Fprintf(&buf, "\nThe flags of a run (model, endpoint, mode, rules …): tackle --help\n")
	}
	kctx.Stdout = w
	if err != nil {
		return err
	}
	help := buf.String()
	if rest, ok := strings.CutPrefix(help, "Usage: tackle <command> [flags]\n"); ok {
		help = "Usage: tackle [flags] [\"first message\"]\n       tackle sessions\n       tackle permissions [list | revoke RULE]\n       tackle hooks [list | test NAME EVENT [PAYLOAD]]\n       tackle completion bash|zsh|fish\n       tackle acp\n" + rest
	}
	_, err = io.WriteString(w, help)
	return err
}

// Kong reads the variables of a flag's env: tag from the process
// environment itself (kong.Value.Reset calls os.LookupEnv; no option
// changes that). So tackle takes the variables away from kong's values
// after kong.New (unhookEnv), reads them from its own environment in a
// resolver (envResolver), and shows them in --help as kong did
// (helpValue). A flag keeps their names in Flag.Envs.

// unhookEnv stops kong from reading the process environment for the flags
// of n and its subcommands.
func unhookEnv(n *kong.Node) {
	for _, f := range n.Flags {
		f.Value.Tag.Envs = nil
	}
	for _, child := range n.Children {
		unhookEnv(child)
	}
}

// envResolver gives each flag not on the command line the value of the
// first of its variables set in env. kong marks such a value Resolved.
func envResolver(env environ) kong.Resolver {
	return kong.ResolverFunc(func(_ *kong.Context, _ *kong.Path, f *kong.Flag) (any, error) {
		name, v, ok := env.first(f.Envs)
		if !ok {
			return nil, nil
		}
		// Decoded here too, so that an error names the variable, as
		// kong's own lookup did: "--max-requests: expected a valid 64 bit
		// int but got "x" (from envar TACKLE_MAX_REQUESTS="x")".
		scan := kong.ScanFromTokens(kong.Token{Type: kong.FlagValueToken, Value: v})
		if err := f.Mapper.Decode(&kong.DecodeContext{Value: f.Value, Scan: scan}, reflect.New(f.Target.Type()).Elem()); err != nil {
			return nil, fmt.Errorf("%w (from envar %s=%q)", err, name, v)
		}
		return v, nil
	})
}

// helpValue is kong's help text of a value, which names the flag's
// variables: "Model name as the endpoint knows it ($TACKLE_MODEL)."
func helpValue(v *kong.Value) string {
	if v.Flag == nil || len(v.Flag.Envs) == 0 {
		return kong.DefaultHelpValueFormatter(v)
	}
	tag := *v.Tag
	tag.Envs = v.Flag.Envs
	shown := *v
	shown.Tag = &tag
	return kong.DefaultHelpValueFormatter(&shown)
}
