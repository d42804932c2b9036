package app

import (
	"slices"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/app/prestart"
)

// TestPrestartReadsTheCommandLineRight: app/prestart guesses from the
// command line, before the parser exists, whether the process will run
// with the sandbox (and starts its probe at init); the names it knows are
// the parser's: every subcommand but the default one, --help, --version
// (and their short forms), and --sandbox off with its variable.
func TestPrestartReadsTheCommandLineRight(t *testing.T) {
	var c cli
	parser, err := newParser(&c, Streams{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var subs []string
	for _, n := range parser.Model.Children {
		if n.Type == kong.CommandNode && n.Name != "run" {
			subs = append(subs, append([]string{n.Name}, n.Aliases...)...)
		}
	}
	slices.Sort(subs)
	want := slices.Sorted(slices.Values(slices.Concat(prestart.Subcommands, prestart.Runs)))
	if !slices.Equal(subs, want) {
		t.Errorf("the subcommands are %q, prestart.Subcommands and Runs %q", subs, want)
	}
	flags := map[string]*kong.Flag{}
	for _, f := range parser.Model.Flags {
		flags[f.Name] = f
	}
	for name, short := range map[string]rune{"help": 'h', "version": 'v'} {
		if f := flags[name]; f == nil || f.Short != short {
			t.Errorf("--%s (-%c) is not a flag as prestart reads it: %+v", name, short, f)
		}
	}
	if f := flags["sandbox"]; f == nil || !slices.Contains(f.EnumSlice(), "off") || !slices.Equal(f.Envs, []string{"TACKLE_SANDBOX"}) {
		t.Errorf("--sandbox is not the flag prestart reads: %+v", f)
	}
}
