// Package config loads tackle's user configuration file,
// $XDG_CONFIG_HOME/tackle/config.json (~/.config/tackle/config.json when
// XDG_CONFIG_HOME is unset).
//
// Precedence is flags > environment > config file: the CLI feeds the file's
// values in as flag defaults.
//
// A project's own .tackle/config.json is not read: anything in it that can
// run code (hooks, checks, allow rules) must first be trusted by the user,
// and tackle does not yet have that trust step.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tackle-dev/tackle/hooks/checks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/redact"
)

// Config is the contents of a config file. Zero fields are unset.
type Config struct {
	Model       string `json:"model,omitempty"`
	BaseURL     string `json:"base_url,omitempty"`
	Mode        string `json:"mode,omitempty"`
	MaxRequests int    `json:"max_requests,omitempty"`
	MaxRetries  int    `json:"max_retries,omitempty"`
	// Theme names the interactive UI's theme ("auto" when empty).
	Theme string `json:"theme,omitempty"`
	// FirstTokenTimeout and StreamIdleTimeout bound the wait for a
	// model reply's first token and the silence between its chunks.
	FirstTokenTimeout Duration `json:"first_token_timeout,omitempty"`
	StreamIdleTimeout Duration `json:"stream_idle_timeout,omitempty"`
	// Allow and Deny are approval rules such as "bash(go test *)"; the
	// CLI's --allow and --deny add to them.
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Checks configures the turn-end checks (gofmt, go vet, linters,
	// check commands for other languages).
	Checks checks.Settings `json:"checks,omitempty"`
	// Hooks are command hooks by event name ("on_turn_end", ...).
	Hooks map[string][]command.Spec `json:"hooks,omitempty"`
	// Redact configures the redaction of secrets from tool results, e.g.
	// {"disable": ["jwt"]}.
	Redact redact.Settings `json:"redact,omitempty"`

	// Path is the file the config was read from ("" when there was none).
	Path string `json:"-"`
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
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// Parse decodes a config file's contents. Unknown fields are errors, so a
// misspelt setting does not go unnoticed.
func Parse(b []byte) (Config, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			// Offset counts the bytes read, the bad one included.
			line, col := position(b, max(syn.Offset-1, 0))
			return Config{}, fmt.Errorf("line %d, column %d: %w", line, col, err)
		}
		return Config{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Config{}, errors.New("unexpected data after the JSON object")
	}
	if c.MaxRequests < 0 || c.MaxRetries < 0 {
		return Config{}, errors.New("max_requests and max_retries must not be negative")
	}
	return c, nil
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
