// Package app is tackle, the application: the command line (kong), the
// settings and where each came from, the trusted project files, the
// harness a run is wired from (tools, approval policy, hooks, MCP servers,
// model client), the two ways to run (the terminal UI and piped runs),
// the subcommands, and the exit codes. The tackle command (main.go at the
// module root) hands Main the process's arguments and streams.
//
// Where things are: cli.go is the command line (kong), settings.go what
// it resolves to (Settings: every setting, validated once), run.go the
// default command (a run, piped or interactive), harness.go what a run is
// wired from, exit.go the exit codes; the subcommands have a file each
// (*_cmd.go). This file is Main.
package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// version is set at build time with
// -ldflags "-X github.com/tackle-dev/tackle/app.version=...".
var version = "dev"

// Main runs tackle with args (without the program name), reports the
// error it ends with, if any, on stdio.Err, and returns its exit code.
func Main(args []string, stdio Streams) int {
	err := execute(args, stdio)
	report(stdio.Err, err)
	return exitCodeOf(err)
}

// execute parses args and runs the command they name: its Run method
// (run.go, and the subcommands' files), with what it takes bound by
// newParser.
func execute(args []string, stdio Streams) error {
	var c cli
	exited := false
	parser, err := newParser(&c, stdio, func(int) { exited = true })
	if err != nil {
		return err
	}
	kctx, err := parser.Parse(args)
	switch {
	case exited: // kong calls Exit only after --help and --version, with 0
		return nil
	case err != nil:
		return usageError{err}
	}
	return kctx.Run()
}

// interruptContext returns a context cancelled by the first SIGINT,
// SIGTERM, SIGHUP or SIGQUIT; a second signal exits at once, after calling the functions
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
	// A closed terminal (SIGHUP: the window closed, an ssh connection
	// dropped) and SIGQUIT stop tackle the same way: the running command's
	// group killed, on_abort run, the outcome recorded.
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
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
