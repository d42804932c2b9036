package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Spec is one server's configuration, in the shape of the "mcpServers"
// entries Claude Code's .mcp.json, Claude Desktop, Cursor and others use,
// with a few fields of tackle's own.
type Spec struct {
	// Type is "stdio" (the default with a command), "http" (streamable
	// HTTP, the default with a url) or "sse" (the older HTTP+SSE
	// transport). "streamable-http" is taken for "http".
	Type string `json:"type,omitempty"`
	// Command, Args, Env and Cwd start a stdio server. Env adds to (or
	// overrides) tackle's environment; Cwd is relative to the workspace
	// (the default).
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// URL and Headers reach a remote server.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Enabled false leaves the server out.
	Enabled *bool `json:"enabled,omitempty"`
	// StartupTimeout bounds starting the server and listing its tools
	// (a Go duration, default 30s); ToolTimeout bounds one tool call
	// (default 10m).
	StartupTimeout string `json:"startup_timeout,omitempty"`
	ToolTimeout    string `json:"tool_timeout,omitempty"`
}

// The transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
)

// Defaults of a Spec's timeouts.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 10 * time.Minute
)

// UnmarshalJSON reads a Spec strictly: an unknown field is an error
// naming it, so that a typo does not silently drop a setting.
func (s *Spec) UnmarshalJSON(b []byte) error {
	type plain Spec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*s = Spec(p)
	return nil
}

// IsEnabled reports whether the server is to be started.
func (s Spec) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// transport is the Spec's transport, from Type or else from which of
// command and url is set.
func (s Spec) transport() string {
	switch s.Type {
	case "streamable-http", "streamableHttp":
		return HTTP
	case "":
		if s.URL != "" && s.Command == "" {
			return HTTP
		}
		return Stdio
	}
	return s.Type
}

// Validate reports what is wrong with the Spec, if anything: a transport
// it does not know, a command and a url both or neither, fields of the
// other transport, a url that is not http(s), a bad timeout.
func (s Spec) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch tr := s.transport(); tr {
	case Stdio:
		if s.Command == "" {
			bad("a stdio server needs a command")
		}
		if s.URL != "" || len(s.Headers) > 0 {
			bad("a stdio server takes no url or headers (give a command, or a url alone)")
		}
	case HTTP, SSE:
		if s.URL == "" {
			bad("an %s server needs a url", tr)
		} else if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			if !strings.Contains(s.URL, "${") { // checked once expanded
				bad("url %q is not an http or https URL", s.URL)
			}
		}
		if s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
			bad("an %s server takes no command, args, env or cwd", tr)
		}
	default:
		bad("unknown type %q (want stdio, http or sse)", s.Type)
	}
	for _, d := range []struct{ name, v string }{{"startup_timeout", s.StartupTimeout}, {"tool_timeout", s.ToolTimeout}} {
		if d.v == "" {
			continue
		}
		if v, err := time.ParseDuration(d.v); err != nil || v <= 0 {
			bad("%s %q is not a positive duration (e.g. 30s, 2m)", d.name, d.v)
		}
	}
	return errors.Join(errs...)
}

// timeouts returns the Spec's timeouts, defaults filled in (Validate has
// checked them).
func (s Spec) timeouts() (startup, tool time.Duration) {
	startup, tool = DefaultStartupTimeout, DefaultToolTimeout
	if d, err := time.ParseDuration(s.StartupTimeout); err == nil && d > 0 {
		startup = d
	}
	if d, err := time.ParseDuration(s.ToolTimeout); err == nil && d > 0 {
		tool = d
	}
	return startup, tool
}

// expanded returns the Spec with ${VAR} and ${VAR:-default} in its
// command, args, env values, cwd, url and header values replaced from
// lookup, so that tokens stay out of config files, and the replacer that
// puts the names back in place of the values (of 4 bytes or more) in
// what tackle says about the server. A variable that is not set and has
// no default is an error naming it.
func (s Spec) expanded(lookup func(string) (string, bool)) (Spec, *strings.Replacer, error) {
	var missing, hide []string
	exp := func(v string) string {
		return expand(v, func(name string) (string, bool) {
			val, ok := lookup(name)
			if ok && len(val) >= 4 {
				hide = append(hide, val, "${"+name+"}")
			}
			return val, ok
		}, func(name string) {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		})
	}
	out := s
	out.Command, out.Cwd, out.URL = exp(s.Command), exp(s.Cwd), exp(s.URL)
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = exp(a)
	}
	out.Env = expandMap(s.Env, exp)
	out.Headers = expandMap(s.Headers, exp)
	if len(missing) > 0 {
		return out, nil, fmt.Errorf("the environment variable %s is not set (the config uses ${%s})", strings.Join(missing, ", "), missing[0])
	}
	return out, strings.NewReplacer(hide...), nil
}

func expandMap(m map[string]string, exp func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = exp(v)
	}
	return out
}

// expand replaces ${NAME} and ${NAME:-default} in s; a lone $ and $NAME
// without braces are left as they are (commands and urls use them).
func expand(s string, lookup func(string) (string, bool), missing func(string)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		inner := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(inner, ":-")
		if v, ok := lookup(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		} else {
			missing(name)
		}
		s = s[i+j+1:]
	}
}

// ReadFile reads the "mcpServers" of a .mcp.json file.
func ReadFile(path string) (map[string]Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse reads the "mcpServers" object of a .mcp.json file's contents.
// Other top-level fields are ignored; a bad server entry is an error
// naming the server.
func Parse(b []byte) (map[string]Spec, error) {
	var f struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	out := make(map[string]Spec, len(f.Servers))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(f.Servers)) {
		var s Spec
		if err := json.Unmarshal(f.Servers[name], &s); err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
			continue
		}
		out[name] = s
	}
	return out, errors.Join(errs...)
}

// ValidateAll validates every server of specs, each error naming its
// server, sorted by name.
func ValidateAll(specs map[string]Spec) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		if name == "" {
			errs = append(errs, errors.New("a server has an empty name"))
			continue
		}
		if err := specs[name].Validate(); err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Merge is the servers a session runs: the user config's and a trusted
// project's (.mcp.json). For a name both give, the user's server wins:
// the user's approval rules (mcp__github__*) were written for the user's
// server, and a repository must not get them for a server of its own by
// naming it the same. The project servers left out are returned, sorted,
// for a warning.
func Merge(user, project map[string]Spec) (specs map[string]Spec, shadowed []string) {
	specs = maps.Clone(project)
	if specs == nil {
		specs = map[string]Spec{}
	}
	for name := range user {
		if _, ok := project[name]; ok {
			shadowed = append(shadowed, name)
		}
	}
	maps.Copy(specs, user)
	slices.Sort(shadowed)
	return specs, shadowed
}
