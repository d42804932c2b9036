package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/slash"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tui"
	"github.com/tackle-dev/tackle/tui/headless"
)

// pipedRun is what a piped run is asked to do: send a prompt (-p, with
// what stdin holds), or answer the pause of the session it goes on with.
type pipedRun struct {
	prompt  string        // -p
	images  []string      // --image
	answers *pauseAnswers // --approve, --deny CALL_ID; nil when none
}

// readImages reads the images --image names.
func readImages(paths []string) ([]chat.Image, error) {
	var out []chat.Image
	for _, p := range paths {
		img, err := tools.ReadImage(p)
		if err != nil {
			return nil, usagef("--image %s: %w", p, err)
		}
		out = append(out, img)
	}
	return out, nil
}

// runPiped runs one prompt without a UI, or answers a saved pause
// (--approve, --deny), recording it in a session.
func runPiped(ctx context.Context, st Settings, stdio Streams, run pipedRun, res *resumed, atExit func(func())) error {
	store := sessionStore(stdio.Env)
	if st.OnPause == "save" && store == nil {
		return usagef("--on-pause save: no state directory to save the session in (set HOME or XDG_STATE_HOME)")
	}
	var prompt string
	var images []chat.Image
	printer := headless.NewPrinter(headless.Format(st.Output), stdio.Out, stdio.Err)
	// A custom command the prompt names (tackle -p "/review focus"):
	// its prompt with the arguments, its model and its allowed-tools.
	var custom *slash.Command
	if run.answers == nil {
		root, err := absWorkspace(st.Workspace)
		if err != nil {
			return err
		}
		expand := func(text string) string {
			if !strings.HasPrefix(strings.TrimSpace(text), "/") {
				return text // no command: the directories are not read
			}
			cmds := customCommands(st, stdio.Env, root, tui.Builtin, func(w string) { printer.Event(agent.Warning{Message: w}) })
			c, args, ok := slash.Find(cmds, text)
			if !ok {
				return text
			}
			custom = &c
			return c.Expand(args)
		}
		p, err := readPrompt(run.prompt, stdio, expand)
		if err != nil {
			return err
		}
		prompt = p
		if images, err = readImages(run.images); err != nil {
			return err
		}
		if custom != nil && custom.Model != "" {
			st.Model = custom.Model
		}
	}
	h, err := newHarness(ctx, st, stdio, printer.Event)
	if err != nil {
		return err
	}
	if custom != nil {
		h.policy.SetTurnRules("/"+custom.Name, custom.Allowed)
	}
	atExit(h.kill) // a second interrupt leaves no hook or MCP server running
	defer h.Close()

	warn := func(err error) { printer.Event(agent.Warning{Message: err.Error()}) }
	cv := h.newConversation(store, warn)
	if res != nil {
		cv = h.continueConversation(res, warn)
		for _, w := range cv.warnings {
			warn(errors.New(w))
		}
	}
	printer.SummarizeWith(h.toolbox.Summary).ShowReasoning(st.ShowReasoning)
	// The first request offers the MCP servers' tools, as with claude -p
	// and codex exec: wait for them (each at most its startup_timeout).
	h.mcp.waitStarted(ctx)
	answers := headless.Answers{Yes: st.Yes, HeldBack: h.policy.HeldBack, Summarize: h.toolbox.Summary, Save: st.OnPause == "save"}
	result, err := drivePiped(ctx, h, cv, printer.Event, prompt, images, run.answers, answers, stdio.Err)
	h.mcp.close(printer.Event) // their last warnings come before the result
	h.servers.Close()
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

// drivePiped runs the Worker on cv: it answers cv's pause with answers,
// or sends prompt (refused while cv waits for answers); a answers the
// pauses of the run.
func drivePiped(ctx context.Context, h *harness, cv *conversation, emit func(agent.Event), prompt string, images []chat.Image, answers *pauseAnswers, a headless.Answers, stderr io.Writer) (headless.Result, error) {
	w := h.worker(cv, emit)
	if answers == nil {
		if err := cv.pausedCalls(); err != nil {
			return headless.Result{}, err
		}
		return headless.Drive(ctx, w, prompt, images, a, stderr), nil
	}
	if _, err := cv.restore(w); err != nil {
		return headless.Result{}, err
	}
	return headless.Continue(ctx, w, answers.decisions, a, stderr), nil
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

// maxStdin bounds what is read from stdin as a prompt or context.
const maxStdin = 8 << 20

// readPrompt builds the prompt from -p and stdin: stdin alone is the
// prompt; with -p it is appended as context.
func readPrompt(flag string, stdio Streams, expand func(string) string) (string, error) {
	var piped string
	if !stdio.InTTY && stdio.In != nil && (flag == "" || readableStdin(stdio.In)) {
		b, err := io.ReadAll(io.LimitReader(stdio.In, maxStdin+1))
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
		return expand(flag) + "\n\n<stdin>\n" + piped + "\n</stdin>", nil
	case flag != "":
		return expand(flag), nil
	case piped != "":
		return expand(piped), nil
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
