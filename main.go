// Command tackle is a terminal coding assistant. The application is
// package app; this file hands it the process's arguments, streams and
// environment, and exits with the code it returns.
package main

import (
	"os"

	"golang.org/x/term"

	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/app/prestart"
)

func main() {
	streams := app.Streams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY: term.IsTerminal(int(os.Stdin.Fd())),
		Env:   os.Environ(),
	}
	code := app.Main(os.Args[1:], streams)
	prestart.Wait() // the sandbox probe started at init, if no run took it
	os.Exit(code)
}
