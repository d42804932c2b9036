package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Settings is the "checks" object of a config file:
//
//	"checks": {
//	  "autoformat": false,
//	  "vet": true,
//	  "vet_timeout": "2m",
//	  "timeout": "5m",
//	  "max_diagnostics": 30,
//	  "linters": ["staticcheck", "golangci-lint"],
//	  "commands": [
//	    {"name": "ruff", "match": "*.py", "run": ["ruff", "check", "{files}"], "timeout": "1m"}
//	  ]
//	}
//
// Every field is optional; "enabled": false turns the checks off.
type Settings struct {
	// Enabled turns every check off when false; default true.
	Enabled *bool `json:"enabled,omitempty"`
	// Autoformat: gofmt rewrites files that need formatting (default
	// true); false reports them as problems instead.
	Autoformat *bool `json:"autoformat,omitempty"`
	// Vet runs go vet (default true).
	Vet *bool `json:"vet,omitempty"`
	// VetTimeout bounds one go vet or linter process, as a Go duration.
	VetTimeout string `json:"vet_timeout,omitempty"`
	// Timeout bounds a whole round of checks, as a Go duration.
	Timeout string `json:"timeout,omitempty"`
	// MaxDiagnostics is how many diagnostics one retry message lists.
	MaxDiagnostics int `json:"max_diagnostics,omitempty"`
	// Linters are extra Go linters run when installed.
	Linters []string `json:"linters,omitempty"`
	// Commands are checks for any language.
	Commands []CommandSettings `json:"commands,omitempty"`
}

// CommandSettings is one configured check command; see Command.
type CommandSettings struct {
	Name    string   `json:"name,omitempty"`
	Match   string   `json:"match"`
	Run     []string `json:"run"`
	Timeout string   `json:"timeout,omitempty"`
}

// On reports whether the checks are enabled.
func (s Settings) On() bool { return s.Enabled == nil || *s.Enabled }

// Apply sets the fields of cfg that s sets, and checks them. Fields s
// leaves out keep cfg's values.
func (s Settings) Apply(cfg *Config) error {
	if s.Autoformat != nil {
		cfg.NoAutoformat = !*s.Autoformat
	}
	if s.Vet != nil {
		cfg.NoVet = !*s.Vet
	}
	var err error
	if cfg.VetTimeout, err = duration("vet_timeout", s.VetTimeout, cfg.VetTimeout); err != nil {
		return err
	}
	if cfg.Timeout, err = duration("timeout", s.Timeout, cfg.Timeout); err != nil {
		return err
	}
	if s.MaxDiagnostics < 0 {
		return errors.New("checks: max_diagnostics must not be negative")
	}
	if s.MaxDiagnostics > 0 {
		cfg.MaxDiagnostics = s.MaxDiagnostics
	}
	for _, l := range s.Linters {
		if _, ok := knownLinters[l]; !ok {
			return fmt.Errorf("checks: unknown linter %q (known: %v)", l, LinterNames())
		}
	}
	cfg.Linters = append(cfg.Linters, s.Linters...)
	for i, cs := range s.Commands {
		cmd := Command{Name: cs.Name, Match: cs.Match, Run: cs.Run}
		if cmd.Timeout, err = duration(fmt.Sprintf("commands[%d].timeout", i), cs.Timeout, 0); err != nil {
			return err
		}
		if err := cmd.validate(); err != nil {
			return fmt.Errorf("checks: commands[%d]: %w", i, err)
		}
		cfg.Commands = append(cfg.Commands, cmd)
	}
	return nil
}

func duration(field, s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("checks: %s %q is not a positive duration such as \"90s\" or \"2m\"", field, s)
	}
	return d, nil
}

// ParseSettings decodes a "checks" object, refusing unknown fields.
func ParseSettings(b []byte) (Settings, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Settings
	if err := dec.Decode(&s); err != nil {
		return Settings{}, fmt.Errorf("checks: %w", err)
	}
	return s, nil
}
