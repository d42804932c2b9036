// Package prestart starts the OS sandbox's probe (tools/sandbox.Probe)
// while the Go runtime initialises the rest of the binary, when the
// command line asks for a run.
//
// A run waits for the probe before its first command, and before its
// first request when the workspace is a git repository (tackle's own git
// status runs in the sandbox). The probe costs about 8 ms, most of it the
// kernel making namespaces and starting the launcher twice; the packages
// tackle links initialise for about 20 ms on one core first (chroma's
// lexers and styles alone 13 ms: docs/benchmarks.md). This package's init
// comes before theirs (it imports nothing that uses regexp, which they all
// wait for), so the probe runs on the other core meanwhile, and what
// tools.NewSandbox asks of it later is answered at once. Nothing else
// changes: the probe is the one sandbox.Probe would make then, made once
// per process.
//
// The command line is read only as far as the probe needs: no subcommand,
// no --help or --version, the sandbox not turned off by --sandbox or
// TACKLE_SANDBOX (a config file's "sandbox": "off" is read later: the
// probe then runs for nothing). A wrong guess costs a probe in the
// background or saves none. Wait, which main calls before the process
// exits, lets a probe nobody asked for finish, so that its temporary
// directory is removed.
package prestart

import (
	"os"
	"strings"

	"github.com/tackle-dev/tackle/tools/sandbox"
)

// Subcommands are the names of tackle's commands, other than the default
// one, that run no command (a test in app checks them and Runs against
// the command line).
var Subcommands = []string{"permissions", "hooks", "sessions", "completion"}

// Runs are the subcommands that run the model's commands as the default
// one does: the probe starts for them too.
var Runs = []string{"acp"}

// done is closed when the probe started by init has answered; nil when
// init started none.
var done chan struct{}

func init() {
	if !WillProbe(os.Args[1:], os.Getenv) {
		return
	}
	done = make(chan struct{})
	go func() {
		defer close(done)
		sandbox.Probe()
	}()
}

// Started reports whether init started the probe.
func Started() bool { return done != nil }

// Wait returns once the probe init started, if any, has answered.
func Wait() {
	if done != nil {
		<-done
	}
}

// WillProbe reports whether the command line args (without the program
// name) and the environment (getenv) ask for a run that probes the
// sandbox, as far as it can be told without the parser.
func WillProbe(args []string, getenv func(string) string) bool {
	if strings.EqualFold(getenv("TACKLE_SANDBOX"), "off") {
		return false
	}
	first := true // the first word that is not a flag may name a subcommand
	for i, a := range args {
		switch {
		case a == "--":
			return true // what follows is a prompt, not flags
		case a == "-h" || a == "--help" || a == "-v" || a == "--version":
			return false
		case strings.HasPrefix(a, "-test."):
			return false // a test binary's flags: no run of tackle
		case a == "--sandbox=off" || a == "--sandbox" && i+1 < len(args) && args[i+1] == "off":
			return false
		case !strings.HasPrefix(a, "-") && first:
			first = false
			for _, sub := range Subcommands {
				if a == sub {
					return false
				}
			}
		}
	}
	return true
}
