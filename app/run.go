package app

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/app/config"
)

// runCmd is the default command: talk to the model, interactively or
// once (-p, a piped prompt), or answer a saved pause (--approve, --deny).
// Words after the flags are a prompt too, as claude "…" and codex "…"
// take one: the UI's first message on a terminal, else -p's.
type runCmd struct {
	Words []string `arg:"" optional:"" name:"prompt" help:"A first message: tackle \"explain main.go\" starts the interactive UI with it (without a terminal it is the prompt, as with -p)."`
}

// Run opens the session -c or --resume names (its pending calls decide
// which --deny values are answers), reads the project's trusted files
// (asking on the terminal before the UI starts), resolves the settings
// and runs: the terminal UI when stdin is a terminal and there is no
// prompt, else a piped run.
func (r runCmd) Run(kctx *kong.Context, c *cli, stdio Streams, user config.Config) error {
	first := strings.Join(r.Words, " ")
	if first != "" && c.Prompt != "" {
		return usagef("a prompt is given twice: with -p and as an argument (%q); give one", first)
	}
	res, err := openResumed(c.Workspace, c.Continue, c.Resume, stdio.Env)
	if err != nil {
		return err
	}
	defer res.close()
	answers, denyRules, err := c.answers(kctx, res)
	if err != nil {
		return err
	}
	interactive := c.Prompt == "" && stdio.InTTY && answers == nil
	if len(c.Image) > 0 && (interactive || answers != nil) {
		return usagef("--image attaches an image to a prompt given with -p or on stdin (in the interactive UI, type @FILE)")
	}
	var ask askTrust
	if interactive {
		ask = terminalTrust(stdio.In, stdio.Err)
	}
	project, err := openProject(c.Workspace, c.TrustProject, stdio.Env, ask, stdio.Err)
	if err != nil {
		return err
	}
	st, err := resolve(kctx, c, denyRules, user, project, stdio.Env)
	if err != nil {
		return err
	}

	ctx, stop, atExit := interruptContext(stdio.Err)
	defer stop()
	pick := c.Resume.set && c.Resume.id == "" // --resume without an ID
	if interactive {
		return runInteractive(ctx, st, stdio, res, pick, first, atExit)
	}
	if pick {
		return usagef("--resume without an ID lists the sessions in the interactive UI; here give the ID ('tackle sessions' lists them)")
	}
	return runPiped(ctx, st, stdio, pipedRun{prompt: cmp.Or(c.Prompt, first), images: c.Image, answers: answers}, res, atExit)
}

// absWorkspace is the workspace root dir made absolute.
func absWorkspace(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("workspace: %w", err)
	}
	return root, nil
}
