package command

import (
	"context"
	"io"
)

// Proc is one process run the way a command hook runs (process group,
// stdin closed after the input, 1 MiB of stdout, the tail of stderr, the
// group killed when ctx is done or the process exits), for other hook
// runtimes that speak their own JSON (Claude Code's hooks).
type Proc struct {
	// Name is the hook's name, for the log lines of its stderr.
	Name string
	Argv []string
	Dir  string
	Env  []string
	// Log, if set, receives the hook's stderr (see Options.Stderr).
	Log io.Writer
	// Guard, if set, is asked before the process starts (see
	// Options.Guard).
	Guard func() error
}

// Exit is how a Proc ended when it did not fail.
type Exit struct {
	// Blocked is exit status 2.
	Blocked bool
	Stdout  []byte
	// Stderr is the tail of stderr, trailing white space trimmed.
	Stderr string
}

// Run starts the process with input as one line of JSON on stdin and
// waits for it. Exit statuses 0 and 2 are results; any other, a signal,
// too much output and ctx done are errors that end with the tail of
// stderr.
func (p Proc) Run(ctx context.Context, input any) (Exit, error) {
	r := &runner{name: p.Name, argv: p.Argv, dir: p.Dir, env: p.Env, log: p.Log, grace: pipeGrace, guard: p.Guard}
	x, err := r.run(ctx, input)
	return Exit{Blocked: x.blocked, Stdout: x.stdout, Stderr: x.stderr}, err
}
