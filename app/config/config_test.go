package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadMissingFileIsEmpty(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if err != nil || c.Model != "" || c.Path != "" {
		t.Fatalf("Load = %+v, %v", c, err)
	}
}

func TestLoadReadsSettingsAndHooks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	body := `{"model": "qwen3", "mode": "accept-edits", "max_retries": 2,
	  "hooks": {"on_turn_end": [{"name": "check", "command": ["./check.sh"], "timeout": "30s"}]}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "qwen3" || c.Mode != "accept-edits" || c.MaxRetries == nil || *c.MaxRetries != 2 || c.Path != path {
		t.Errorf("config = %+v", c)
	}
	if h := c.Hooks["on_turn_end"]; len(h) != 1 || h[0].Name != "check" || h[0].Timeout != "30s" {
		t.Errorf("hooks = %+v", c.Hooks)
	}
}

func TestParseErrorsNameTheProblem(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"modle": "x"}`, `field "modle": unknown field`},
		{"{\n  \"model\": \"x\",\n}", "line 3, column 1"},
		{`{"model": 3}`, "model"},
		{`{} {}`, "after the JSON object"},
	} {
		_, err := Parse([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.body, err, tc.want)
		}
	}
}

func TestUserPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	if p, _ := UserPath(get); p != "/home/u/.config/tackle/config.json" {
		t.Errorf("UserPath = %q", p)
	}
	env["XDG_CONFIG_HOME"] = "/xdg"
	if p, _ := UserPath(get); p != "/xdg/tackle/config.json" {
		t.Errorf("UserPath = %q", p)
	}
	if _, err := UserPath(func(string) string { return "" }); err == nil {
		t.Error("UserPath without HOME succeeded")
	}
}

func TestContextSettings(t *testing.T) {
	c, err := Parse([]byte(`{"context_window": 32768, "compact_threshold": 0.7, "compact_keep_turns": 2}`))
	if err != nil || c.ContextWindow["*"] != 32768 || len(c.ContextWindow) != 1 || c.CompactThreshold != 0.7 || c.CompactKeepTurns != 2 {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	c, err = Parse([]byte(`{"context_window": {"qwen3-coder": 65536, "*": 8192}}`))
	if err != nil || c.ContextWindow["qwen3-coder"] != 65536 || c.ContextWindow["*"] != 8192 {
		t.Fatalf("by model: %+v, %v", c.ContextWindow, err)
	}
	for body, want := range map[string]string{
		`{"context_window": -1}`:                 "field context_window: want a whole number of tokens above 0, got -1",
		`{"context_window": {"m": 0}}`:           `field context_window: "m": want a whole number of tokens above 0, got 0`,
		`{"context_window": "32k"}`:              `field context_window: want a whole number of tokens above 0, got "32k"`,
		`{"context_window": [1]}`:                "field context_window: want a whole number of tokens above 0, got [1]",
		`{"compact_threshold": 85}`:              "field compact_threshold: want a share of the context window above 0 and at most 1, such as 0.85, got 85",
		`{"compact_keep_turns": 0}`:              "field compact_keep_turns: want a whole number of turns, at least 1, got 0",
		`{"context_window": {"a": 1, "b": "x"}}`: `field context_window: "b": want a whole number of tokens above 0, got "x"`,
		`{"compact_treshold": 0.5}`:              `field "compact_treshold": unknown field (did you mean "compact_threshold"?)`,
	} {
		if _, err := Parse([]byte(body)); err == nil || err.Error() != want {
			t.Errorf("Parse(%s) = %v\nwant %s", body, err, want)
		}
	}
}

func TestParseHookServers(t *testing.T) {
	c, err := Parse([]byte(`{"hook_servers": [{"name": "guard", "command": ["./guard", "-v"], "env": {"LEVEL": "2"},
	  "events": ["pre_tool_call"], "timeout": "5s", "on_error": "closed", "approve": true, "priority": -1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.HookServers) != 1 {
		t.Fatalf("hook_servers = %+v", c.HookServers)
	}
	s := c.HookServers[0]
	if s.Name != "guard" || len(s.Command) != 2 || s.Env["LEVEL"] != "2" || s.Events[0] != "pre_tool_call" || s.Timeout != "5s" || s.OnError != "closed" || !s.Approve || s.Priority != -1 {
		t.Errorf("server = %+v", s)
	}
	for body, want := range map[string]string{
		`{"hook_servers": [{"name": "g", "comand": ["x"]}]}`: `hook_servers[0]: unknown field "comand"`,
		`{"hook_servers": [{"name": "g", "command": "x"}]}`:  `hook_servers[0].command: want an array, got a string`,
	} {
		if _, err := Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", body, err, want)
		}
	}
}
