package main

// Settings: defaults (kong tags) → config file → environment → flags, then
// every value validated once, here, with an error that names where the
// value came from.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tui/config"
)

// setting is one flag whose value the config file may give too (in the
// field named like the flag, with _ for -), with the check of its value.
type setting struct {
	flag string
	// fromFile sets the value from the file and reports whether the file
	// had one.
	fromFile func() bool
	// check validates the value as it stands; it returns the problem as
	// "got X; want Y".
	check func() error
}

// settings lists the flags that are validated here, and those whose value
// the config file can give. Adding a setting is one line, e.g.
//
//	fileSetting("max-requests", &c.MaxRequests, f.MaxRequests, atLeast(1, "")),
//
// and a flag the file cannot set passes nil as its file value.
func (c *cli) settings(f *config.Config) []setting {
	return []setting{
		fileSetting("model", &c.Model, ifSet(f.Model), wantNonEmpty("a model name as the endpoint knows it")),
		fileSetting("base-url", &c.BaseURL, ifSet(f.BaseURL), nil),
		fileSetting("mode", &c.Mode, ifSet(f.Mode), wantMode),
		fileSetting("max-requests", &c.MaxRequests, f.MaxRequests, atLeast(1, "a run makes at least one model request")),
		fileSetting("max-parallel-tools", &c.MaxParallel, f.MaxParallelTools, atLeast(1, "1 runs the calls of a reply one after another")),
		fileSetting("max-retries", &c.MaxRetries, f.MaxRetries, atLeast(0, "0 ends the run as capped at the first feedback from a turn-end check")),
		fileSetting("first-token-timeout", &c.FirstToken, ifSet(time.Duration(f.FirstTokenTimeout)), positive),
		fileSetting("stream-idle-timeout", &c.StreamIdle, ifSet(time.Duration(f.StreamIdleTimeout)), positive),
		fileSetting("theme", &c.Theme, ifSet(f.Theme), nil),
	}
}

// fileSetting is a setting of type T: file is the config file's value
// (nil when the file does not set it) and check, if not nil, validates the
// value.
func fileSetting[T any](flag string, dst, file *T, check func(T) error) setting {
	s := setting{flag: flag, fromFile: func() bool {
		if file == nil {
			return false
		}
		*dst = *file
		return true
	}}
	if check != nil {
		s.check = func() error {
			if err := check(*dst); err != nil {
				if v, ok := any(*dst).(string); ok {
					return fmt.Errorf("got %q; %w", v, err)
				}
				return fmt.Errorf("got %v; %w", *dst, err)
			}
			return nil
		}
	}
	return s
}

// ifSet is a config file's value for fileSetting: nil when it is the
// zero value, which the file uses for "not set" (numbers whose 0 means
// something are pointers in config.Config and are passed as they are).
func ifSet[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func atLeast(n int, why string) func(int) error {
	return func(v int) error {
		if v >= n {
			return nil
		}
		if why == "" {
			return fmt.Errorf("want %d or more", n)
		}
		return fmt.Errorf("want %d or more (%s)", n, why)
	}
}

func positive(d time.Duration) error {
	if d <= 0 {
		return errors.New("want a duration of more than 0, e.g. 90s or 5m")
	}
	return nil
}

func wantNonEmpty(what string) func(string) error {
	return func(v string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("want %s", what)
		}
		return nil
	}
}

func wantMode(v string) error {
	if _, err := approval.ParseMode(v); err != nil {
		return fmt.Errorf("want default, accept-edits, yolo or plan")
	}
	return nil
}

// origin is where a setting's value came from.
type origin struct {
	flag string // the flag, "--max-requests"
	env  string // the environment variable it came from, if so
	file string // the config file it came from, if so
	dflt bool   // the built-in default
}

// String names the origin the way an error message starts:
// "--max-requests", "TACKLE_MAX_REQUESTS", "config FILE: field
// max_requests".
func (o origin) String() string {
	switch {
	case o.env != "":
		return o.env
	case o.file != "":
		return fmt.Sprintf("config %s: field %s", o.file, fieldName(o.flag))
	case o.dflt:
		return "the default of " + o.flag
	}
	return o.flag
}

// fieldName is the config file's field for a flag.
func fieldName(flag string) string {
	return strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")
}

// resolveSettings fills in c what neither a flag nor the environment set
// from the config file, validates every setting and the allow and deny
// rules, and records where each value came from (c.origins) and the rules
// with their sources (c.perms). Each error names the flag, the environment
// variable or the file and field of the bad value; all of them are
// reported.
func resolveSettings(kctx *kong.Context, c *cli, cfg config.Config) error {
	onCommandLine := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			onCommandLine[p.Flag.Name] = true
		}
	}
	flags := map[string]*kong.Flag{}
	for _, f := range kctx.Flags() {
		flags[f.Name] = f
	}
	c.origins = map[string]origin{}
	var errs []error
	for _, s := range c.settings(&cfg) {
		f, ok := flags[s.flag]
		if !ok {
			panic("settings: no flag --" + s.flag) // a programming error, caught by any test
		}
		o := origin{flag: "--" + s.flag}
		switch {
		case onCommandLine[s.flag]:
		case envSet(f) != "":
			o.env = envSet(f)
		case s.fromFile():
			o.file = cfg.Path
		default:
			o.dflt = true
		}
		c.origins[s.flag] = o
		if s.check == nil {
			continue
		}
		if err := s.check(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o, err))
		}
	}
	perms, err := permissions(cfg, c.Allow, c.Deny)
	if err != nil {
		errs = append(errs, err)
	}
	c.perms = perms
	if len(errs) > 0 {
		return usageError{joinLines(errs)}
	}
	return nil
}

// envSet returns the first of the flag's environment variables that is
// set, as kong reads them, or "".
func envSet(f *kong.Flag) string {
	for _, env := range f.Envs {
		if _, ok := os.LookupEnv(env); ok {
			return env
		}
	}
	return ""
}

// permissions parses the config file's allow and deny rules and those of
// --allow and --deny, each with where it came from.
func permissions(cfg config.Config, allow, deny []string) ([]approval.Permission, error) {
	var perms []approval.Permission
	var errs []error
	add := func(src []string, isDeny bool, source approval.Source, where func(i int) string) {
		for i, s := range src {
			r, err := approval.ParseRule(s)
			if err != nil {
				if source == approval.FromConfig {
					err = &config.FieldError{Path: cfg.Path, Field: where(i), Err: err}
				} else {
					err = fmt.Errorf("%s: %w", where(i), err)
				}
				errs = append(errs, err)
				continue
			}
			perms = append(perms, approval.Permission{Rule: r, Deny: isDeny, Source: source, Origin: where(i)})
		}
	}
	inFile := func(field string) func(int) string {
		return func(i int) string { return fmt.Sprintf("%s[%d]", field, i) }
	}
	add(cfg.Deny, true, approval.FromConfig, inFile("deny"))
	add(cfg.Allow, false, approval.FromConfig, inFile("allow"))
	add(deny, true, approval.FromFlag, func(int) string { return "--deny" })
	add(allow, false, approval.FromFlag, func(int) string { return "--allow" })
	// A config rule's origin names its file too.
	for i := range perms {
		if perms[i].Source == approval.FromConfig {
			perms[i].Origin = cfg.Path + ": " + perms[i].Origin
		}
	}
	if len(errs) > 0 {
		return nil, usageError{joinLines(errs)}
	}
	return perms, nil
}

func joinLines(errs []error) string {
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// originOf names where a setting's value came from, for errors found
// after resolveSettings (a theme that does not exist).
func (c *cli) originOf(flag string) string {
	if o, ok := c.origins[flag]; ok {
		return o.String()
	}
	return "--" + flag
}
