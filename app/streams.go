package app

// Streams and the environment: what main hands Main (the process's own)
// and what a test hands it instead. Nothing in tackle reads os.Stdin,
// os.Stdout, os.Stderr or the process environment behind their back.

import (
	"io"
	"strings"
)

// Streams are the process's streams and environment.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// InTTY reports whether In is a terminal.
	InTTY bool
	// Env is the environment ("KEY=value", as os.Environ gives it), the
	// only one tackle reads: kong's env: flags, the config and state
	// paths, the secrets redacted from tool results, the base environment
	// of bash, of command hooks and of the turn-end checks, and the
	// terminal UI's colour profile.
	Env environ
}

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
