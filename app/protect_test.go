package app

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tackle-dev/tackle/app/config"
)

// TestProtectionFromConfig: the config file, the scripts its command hooks,
// hook servers, picoclaw hooks and check commands run (by path, or by name when the workspace holds
// them), and the config and state directories are protected.
func TestProtectionFromConfig(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lint.sh": "#!/bin/sh\n"})
	body := `{"hooks": {
		"on_turn_end": [{"name": "a", "command": ["./hooks/check.sh", "--fast"]}],
		"pre_tool_call": [{"name": "b", "command": "sh scripts/guard.sh \"$X\""}],
		"on_prompt_submit": [{"name": "c", "command": ["/opt/hooks/abs.sh"]}, {"name": "d", "command": ["python3", "-c", "print(1)"]}]
	}, "checks": {"commands": [{"match": "*.sh", "run": ["bash", "lint.sh", "{files}"]}]},
	"hook_servers": [{"name": "e", "command": ["python3", "hooks/server.py"]}],
	"picoclaw_hooks": {"processes": {"gate": {"enabled": true, "command": ["python3", "/tmp/review_gate.py"], "intercept": ["approve_tool"]},
		"here": {"enabled": true, "command": ["./gate.sh"], "dir": "pico", "observe": ["*"]},
		"off": {"enabled": false, "command": ["python3", "off.py"]}}},
	"mcpServers": {"m": {"command": "./mcp/server.sh", "args": ["--db", "data.db"]}, "n": {"command": "node", "args": ["index.js"], "cwd": "srv"},
		"web": {"url": "https://example.com/mcp"}}}`
	writeFiles(t, root, map[string]string{"srv/index.js": ""})
	cfg, err := config.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Path = "/home/u/.config/tackle/config.json"
	env := map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/state"}
	pr, _ := protection(cfg, root, func(k string) string { return env[k] }, false)
	if pr.Home != "/home/u" || pr.ConfigDir != "/home/u/.config/tackle" || pr.StateDir != "/state/tackle" || pr.Off {
		t.Errorf("protection = %+v", pr)
	}
	for _, want := range []string{
		cfg.Path,
		filepath.Join(root, "hooks", "check.sh"),
		filepath.Join(root, "scripts", "guard.sh"),
		"/opt/hooks/abs.sh",
		filepath.Join(root, "lint.sh"),
		filepath.Join(root, "hooks", "server.py"),
		// A crashed MCP server is started again at the next call: the
		// model must not be able to rewrite what it runs.
		filepath.Join(root, "mcp", "server.sh"),
		filepath.Join(root, "srv", "index.js"),
		// picoclaw's hooks, from their directory.
		"/tmp/review_gate.py",
		filepath.Join(root, "pico", "gate.sh"),
	} {
		if !slices.Contains(pr.Files, want) {
			t.Errorf("%s is not protected: %q", want, pr.Files)
		}
	}
	for _, not := range []string{filepath.Join(root, "off.py"), filepath.Join(root, "python3"), filepath.Join(root, "bash"), filepath.Join(root, "{files}"), filepath.Join(root, "print(1)")} {
		if slices.Contains(pr.Files, not) {
			t.Errorf("%s is protected", not)
		}
	}
	env = map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"}
	if pr, _ := protection(config.Config{}, root, func(k string) string { return env[k] }, true); pr.ConfigDir != "/xdg/tackle" || pr.StateDir != "/home/u/.local/state/tackle" || !pr.Off {
		t.Errorf("protection = %+v", pr)
	}
}
