package app

// The environment is read once, in main, and handed to everything that
// reads it: kong's env: flags, the config and state paths, the secrets
// redacted from tool results, the base environment of bash, of command
// hooks and of the turn-end checks, and the terminal UI's colour profile.
// A test can so run tackle with an environment of its own.

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

// environ is an environment as os.Environ returns it: "KEY=value"
// strings.
type environ []string

// lookup returns the value of key and whether it is set. The last
// assignment wins, as it does for a child process (exec.Cmd.Env).
func (e environ) lookup(key string) (string, bool) {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// get returns the value of key, "" when it is not set.
func (e environ) get(key string) string {
	v, _ := e.lookup(key)
	return v
}

// first returns the first of names that is set, and its value, as kong
// picks among a flag's variables.
func (e environ) first(names []string) (name, value string, ok bool) {
	for _, n := range names {
		if v, ok := e.lookup(n); ok {
			return n, v, true
		}
	}
	return "", "", false
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
