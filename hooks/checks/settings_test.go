package checks

import (
	"strings"
	"testing"
	"time"
)

func TestSettingsApply(t *testing.T) {
	t.Parallel()
	s, err := ParseSettings([]byte(`{
		"autoformat": false, "vet": false, "vet_timeout": "90s", "timeout": "4m", "max_diagnostics": 12,
		"linters": ["staticcheck"],
		"commands": [{"name": "ruff", "match": "*.py", "run": ["ruff", "check", "{files}"], "timeout": "1m"}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.On() {
		t.Error("settings without enabled are off")
	}
	cfg := Config{Linters: []string{"golangci-lint"}}
	if err := s.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.NoAutoformat || !cfg.NoVet || cfg.VetTimeout != 90*time.Second || cfg.Timeout != 4*time.Minute || cfg.MaxDiagnostics != 12 ||
		strings.Join(cfg.Linters, ",") != "golangci-lint,staticcheck" || len(cfg.Commands) != 1 ||
		cfg.Commands[0].Name != "ruff" || cfg.Commands[0].Timeout != time.Minute || strings.Join(cfg.Commands[0].Run, " ") != "ruff check {files}" {
		t.Errorf("config = %+v", cfg)
	}

	// Unset fields keep the config's values (a flag's, say).
	cfg = Config{NoAutoformat: true}
	if err := (Settings{}).Apply(&cfg); err != nil || !cfg.NoAutoformat {
		t.Errorf("empty settings changed the config: %+v %v", cfg, err)
	}
	off, _ := ParseSettings([]byte(`{"enabled": false}`))
	if off.On() {
		t.Error(`"enabled": false is on`)
	}
}

func TestSettingsErrors(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"vet_timeout": "soon"}`:                                      `vet_timeout "soon" is not a positive duration`,
		`{"timeout": "-1s"}`:                                           `timeout "-1s"`,
		`{"linters": ["gometalinter"]}`:                                `unknown linter "gometalinter"`,
		`{"commands": [{"match": "*.py"}]}`:                            "commands[0]: run is empty",
		`{"commands": [{"run": ["x"], "match": "a/[b"}]}`:              "not a valid pattern",
		`{"commands": [{"run": ["x"], "match": "*", "timeout": "x"}]}`: "commands[0].timeout",
		`{"max_diagnostics": -1}`:                                      "max_diagnostics",
		`{"autoformatt": true}`:                                        `unknown field "autoformatt"`,
	} {
		s, err := ParseSettings([]byte(body))
		if err == nil {
			err = s.Apply(&Config{})
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
}
