// Package config loads tackle's user configuration file,
// $XDG_CONFIG_HOME/tackle/config.json (~/.config/tackle/config.json when
// XDG_CONFIG_HOME is unset), which the application (package app) reads.
// It only decodes: app layers defaults, the file, the environment and
// flags (in that order of precedence, lowest first) and validates each
// setting once, naming where its value came from.
//
// A project's own .tackle/config.json is read by Parse too, but only once
// the user trusted its contents (Trust pins a hash of each trusted file):
// anything in it can run code (hooks, allow rules).
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/hooks/checks"
	"github.com/tackle-dev/tackle/hooks/claude"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools/mcp"
	"github.com/tackle-dev/tackle/tools/suggest"
)

// Config is the contents of a config file. Zero fields are unset; a
// number is a pointer, so that 0 in the file is told from no value.
//
// Parse only decodes: the values of the settings that flags and
// environment variables can also give are checked by the CLI, which
// knows where each value came from.
type Config struct {
	Model       string `json:"model,omitempty"`
	BaseURL     string `json:"base_url,omitempty"`
	Mode        string `json:"mode,omitempty"`
	MaxRequests *int   `json:"max_requests,omitempty"`
	MaxRetries  *int   `json:"max_retries,omitempty"`
	// MaxParallelTools caps the tool calls of one reply that run at once
	// (--max-parallel-tools).
	MaxParallelTools *int `json:"max_parallel_tools,omitempty"`
	// Theme names the interactive UI's theme ("auto" when empty).
	Theme string `json:"theme,omitempty"`
	// ReasoningEffort is sent as reasoning_effort with every request:
	// minimal, low, medium or high (--reasoning-effort; unset: not sent).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// OnPause is what a non-interactive run does with a call that needs
	// approval: "deny" (the default) or "save" (--on-pause).
	OnPause string `json:"on_pause,omitempty"`
	// Sandbox is the OS sandbox of the commands tackle runs for the model:
	// "auto" (the default) or "off" (--sandbox). SandboxNetwork lets
	// every command reach the network. SandboxWritable are more
	// directories commands may write (caches: ~ for the home directory);
	// SandboxHidden more paths they may not read. Only the user config
	// may set them: a repository cannot loosen the sandbox.
	Sandbox         string   `json:"sandbox,omitempty"`
	SandboxNetwork  bool     `json:"sandbox_network,omitempty"`
	SandboxWritable []string `json:"sandbox_writable,omitempty"`
	SandboxHidden   []string `json:"sandbox_hidden,omitempty"`
	// EnvAllow adds names (or NAME_* patterns) to the variables the
	// commands tackle runs for the model get (tools.DefaultEnvAllow).
	EnvAllow []string `json:"env_allow,omitempty"`
	// Keys rebinds the interactive UI's keys: action → keys, e.g.
	// {"expand": ["ctrl+e"]} (see README's key table).
	Keys map[string][]string `json:"keys,omitempty"`
	// Prices are what models cost, for /cost: model name → dollars per
	// million input and output tokens.
	Prices map[string]Price `json:"prices,omitempty"`
	// FirstTokenTimeout and StreamIdleTimeout bound the wait for a
	// model reply's first token and the silence between its chunks.
	FirstTokenTimeout Duration `json:"first_token_timeout,omitempty"`
	StreamIdleTimeout Duration `json:"stream_idle_timeout,omitempty"`
	// ReplyTimeout bounds a whole model reply (agent.OpenAIConfig).
	ReplyTimeout Duration `json:"reply_timeout,omitempty"`
	// Allow and Deny are approval rules such as "bash(go test *)"; the
	// CLI's --allow and --deny add to them.
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Checks configures the turn-end checks (gofmt, go vet, linters,
	// check commands for other languages).
	Checks checks.Settings `json:"checks,omitempty"`
	// Hooks are command hooks by event name ("on_turn_end", ...).
	Hooks map[string][]command.Spec `json:"hooks,omitempty"`
	// ClaudeHooks are Claude Code hooks: the user's own
	// ~/.claude/settings.json when User is set, and hooks in Claude Code's
	// format in this file.
	ClaudeHooks ClaudeHooks `json:"claude_hooks,omitempty"`
	// HookServers are process hooks: long-lived hook servers speaking
	// JSON-RPC over stdio.
	HookServers []process.Spec `json:"hook_servers,omitempty"`
	// PicoclawHooks is picoclaw's "hooks" block as picoclaw's config.json
	// has it: its process hooks run unchanged, in picoclaw's protocol.
	PicoclawHooks process.PicoclawHooks `json:"picoclaw_hooks,omitzero"`
	// MCPServers are Model Context Protocol servers whose tools the
	// model may call, by name, in the shape .mcp.json files use (the
	// name of the field too, so that an entry can be copied as it is).
	MCPServers map[string]mcp.Spec `json:"mcpServers,omitempty"`
	// Redact configures the redaction of secrets from tool results, e.g.
	// {"disable": ["jwt"]}.
	Redact redact.Settings `json:"redact,omitempty"`
	// ContextWindow gives the models' context windows, which tackle
	// otherwise asks the server or finds in a table of well-known models.
	ContextWindow ContextWindow `json:"context_window,omitempty"`
	// CompactThreshold and CompactKeepTurns configure compaction: the
	// share of the window a request may fill before it, and the latest
	// turns it keeps as they were (zero: the defaults).
	CompactThreshold Threshold `json:"compact_threshold,omitempty"`
	CompactKeepTurns KeepTurns `json:"compact_keep_turns,omitempty"`

	// Subagents configures the task tool's subagents: the tools of the
	// general agent (and of a custom agent that names none), read-only
	// unless this names others; their model; their request budget.
	Subagents Subagents `json:"subagents,omitzero"`

	// Path is the file the config was read from ("" when there was none).
	Path string `json:"-"`
}

// Subagents are the subagents' settings (Config.Subagents).
type Subagents struct {
	// Tools are tool names (read_file, bash, mcp__server__tool); unset
	// gives the read-only tools.
	Tools []string `json:"tools,omitempty"`
	// Model is their model unless a task or its agent names one; unset
	// is the main agent's.
	Model string `json:"model,omitempty"`
	// MaxRequests caps each subagent's model requests.
	MaxRequests *int `json:"max_requests,omitempty"`
}

// UserPath returns the user config file's path for the given environment
// lookup (os.Getenv in production).
func UserPath(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "tackle", "config.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("config: neither XDG_CONFIG_HOME nor HOME is set")
	}
	return filepath.Join(home, ".config", "tackle", "config.json"), nil
}

// Load reads the config file at path. A missing file is an empty config.
// Every error names the file; a problem with a field is a *FieldError.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(b)
	if err != nil {
		return Config{}, InFile(path, err)
	}
	c.Path = path
	return c, nil
}

// FieldError is a problem with one field of a config file.
type FieldError struct {
	// Path is the config file; empty when it is not known (Parse).
	Path string
	// Field is the field's place in the file: "max_requests",
	// "allow[2]", "hooks.on_turn_end[0]".
	Field string
	Err   error
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("field %s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("config %s: field %s: %v", e.Path, e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// InFile says that err is about the config file at path: every error it
// joins (errors.Join) is named after the file on a line of its own, but
// one that already names a file (InFile's, a FieldError with its path)
// keeps the one it names.
func InFile(path string, err error) error {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		var fe *FieldError
		var inFile *fileError
		switch {
		case errors.As(e, &fe) && fe.Path == "":
			out[i] = &FieldError{Path: path, Field: fe.Field, Err: fe.Err}
		case errors.As(e, &fe), errors.As(e, &inFile):
			out[i] = e
		default:
			out[i] = &fileError{path: path, err: e}
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// fileError is a problem with a config file as a whole.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string { return fmt.Sprintf("config %s: %v", e.path, e.err) }
func (e *fileError) Unwrap() error { return e.err }

// utf8BOM is the byte order mark some editors write at the start of a
// UTF-8 file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse decodes a config file's contents: a JSON object. An empty (or
// white-space only) file is an empty config, and a UTF-8 byte order mark
// is skipped. Unknown fields are errors, so a misspelt setting does not go
// unnoticed. Each problem with a field is a *FieldError; all of them are
// reported, joined.
func Parse(b []byte) (Config, error) {
	b = bytes.TrimPrefix(b, utf8BOM)
	if len(bytes.TrimSpace(b)) == 0 {
		return Config{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			// Offset counts the bytes read, the bad one included.
			line, col := position(b, max(syn.Offset-1, 0))
			return Config{}, fmt.Errorf("line %d, column %d: %s (the file must be one JSON object)", line, col, strings.TrimPrefix(err.Error(), "json: "))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return Config{}, errors.New("the JSON object is not closed (unexpected end of the file)")
		case errors.As(err, &typ):
			return Config{}, fmt.Errorf("want a JSON object ({\"model\": ...}), got %s", jsonKind(typ.Value))
		}
		return Config{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Config{}, errors.New("unexpected data after the JSON object")
	}
	if fields == nil {
		return Config{}, errors.New("want a JSON object ({\"model\": ...}), got null")
	}

	var c Config
	v := reflect.ValueOf(&c).Elem()
	idx := fieldIndex()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		i, ok := idx[name]
		if !ok {
			errs = append(errs, &FieldError{Field: strconv.Quote(name), Err: unknownField(name, idx)})
			continue
		}
		errs = append(errs, decodeField(name, fields[name], v.Field(i))...)
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// fieldIndex maps the JSON names of Config's fields to their indexes.
var fieldIndex = sync.OnceValue(func() map[string]int {
	t := reflect.TypeFor[Config]()
	idx := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			idx[name] = i
		}
	}
	return idx
})

// unknownField says that name is not a setting, with the closest known
// name when one is close.
func unknownField(name string, idx map[string]int) error {
	known := slices.Sorted(maps.Keys(idx))
	if best := suggest.Closest(strings.ToLower(name), known); best != "" {
		return fmt.Errorf("unknown field (did you mean %q?)", best)
	}
	return fmt.Errorf("unknown field (the fields are %s)", strings.Join(known, ", "))
}

// decodeField decodes raw into dst, the field at path. It goes down maps
// and arrays itself, so that an error names its place:
// hooks.on_turn_end[1].timeout.
func decodeField(path string, raw json.RawMessage, dst reflect.Value) []error {
	t := dst.Type()
	isNull := bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
	switch {
	case isNull || reflect.PointerTo(t).Implements(unmarshalerType):
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		var items map[string]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return []error{fieldError(path, raw, err)}
		}
		m := reflect.MakeMapWithSize(t, len(items))
		var errs []error
		for _, k := range slices.Sorted(maps.Keys(items)) {
			elem := reflect.New(t.Elem()).Elem()
			errs = append(errs, decodeField(path+"."+k, items[k], elem)...)
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), elem)
		}
		dst.Set(m)
		return errs
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return []error{fieldError(path, raw, err)}
		}
		sl := reflect.MakeSlice(t, len(items), len(items))
		var errs []error
		for i, item := range items {
			errs = append(errs, decodeField(fmt.Sprintf("%s[%d]", path, i), item, sl.Index(i))...)
		}
		dst.Set(sl)
		return errs
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst.Addr().Interface()); err != nil {
		return []error{fieldError(path, raw, err)}
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// fieldError turns a decoding error of the field at path into a
// FieldError that says what was expected.
func fieldError(path string, raw json.RawMessage, err error) *FieldError {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if typ.Field != "" {
			path += "." + typ.Field
		}
		got := jsonKind(typ.Value)
		if typ.Field == "" && len(raw) <= 40 {
			got += " (" + string(raw) + ")"
		}
		return &FieldError{Field: path, Err: fmt.Errorf("want %s, got %s", goKind(typ.Type), got)}
	}
	return &FieldError{Field: path, Err: errors.New(strings.TrimPrefix(err.Error(), "json: "))}
}

// jsonKind names the kind of JSON value encoding/json reports in an
// UnmarshalTypeError ("string", "number 1.5", "array", ...).
func jsonKind(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	}
	return "a " + v
}

// goKind says what JSON value a Go type is decoded from.
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// position turns a byte offset into a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// ClaudeHooks is the "claude_hooks" of a config file.
type ClaudeHooks struct {
	// User reads the hooks of ~/.claude/settings.json.
	User bool `json:"user,omitempty"`
	// Hooks are Claude Code hooks by Claude event name, as in a Claude
	// Code settings file.
	Hooks map[string][]claude.Group `json:"hooks,omitempty"`
}

// Price is a model's price in dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}
