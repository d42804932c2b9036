//go:build unix

package process_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks/process"
)

func TestCheckNamesEachProblem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	ok := []string{serverBin}
	for _, tt := range []struct {
		spec process.Spec
		want string
	}{
		{process.Spec{Command: ok}, `hook_servers[0]: "name" is required`},
		{process.Spec{Name: "my guard", Command: ok}, `hook_servers[0] "my guard": name "my guard": use letters, digits`},
		{process.Spec{Name: ".hidden", Command: ok}, `name ".hidden"`},
		{process.Spec{Name: "g"}, `hook_servers[0] "g": "command" is empty`},
		{process.Spec{Name: "g", Command: []string{"no-such-server"}}, `hook_servers[0] "g": command: program "no-such-server" is not in $PATH (give its path, or install it)`},
		{process.Spec{Name: "g", Command: []string{"./guard.py"}}, "command: ./guard.py does not exist (a relative path is taken from the workspace, " + dir + ")"},
		{process.Spec{Name: "g", Command: []string{"/no/such/guard"}}, "command: /no/such/guard does not exist"},
		{process.Spec{Name: "g", Command: []string{"./hooks"}}, "command: ./hooks is a directory, not a program"},
		{process.Spec{Name: "g", Command: []string{"./plain.py"}}, `command: ./plain.py is not executable (chmod +x it, or run it with an interpreter: ["python3", "./plain.py"])`},
		{process.Spec{Name: "g", Command: []string{serverBin, "a\x00b"}}, "command: contains a NUL byte"},
		{process.Spec{Name: "g", Command: ok, Events: []string{"pre_compaction"}}, `events: unknown event "pre_compaction" (want on_prompt_submit, pre_llm_request, pre_tool_call`},
		{process.Spec{Name: "g", Command: ok, Events: []string{"on_turn_end", "on_turn_end"}}, "events: on_turn_end is listed twice"},
		{process.Spec{Name: "g", Command: ok, Timeout: "5 s"}, `timeout "5 s": time: unknown unit`},
		{process.Spec{Name: "g", Command: ok, Timeout: "-1s"}, `timeout "-1s": must be positive`},
		{process.Spec{Name: "g", Command: ok, Timeout: "1h"}, `timeout "1h": must not exceed 10m0s`},
		{process.Spec{Name: "g", Command: ok, OnError: "ignore"}, `on_error "ignore": want "open" or "closed"`},
		{process.Spec{Name: "g", Command: ok, Env: map[string]string{"TACKLE_HOOK_NAME": "x"}}, "env: TACKLE_HOOK_NAME is set by tackle"},
		{process.Spec{Name: "g", Command: ok, Env: map[string]string{"A=B": "x"}}, `env: bad variable name "A=B"`},
	} {
		err := process.Check([]process.Spec{tt.spec}, process.Options{Workdir: dir, Env: []string{"PATH=/usr/bin:/bin"}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v\nwant %q", tt.spec, err, tt.want)
		}
	}
	// Every problem is reported, with its place; duplicates too.
	err := process.Check([]process.Spec{{Name: "a", Command: ok}, {Name: "a", Command: ok}, {Name: "b", Timeout: "x"}}, process.Options{Workdir: dir})
	for _, want := range []string{`hook_servers[1] "a": "a" is also the name of hook_servers[0]`, `hook_servers[2] "b": "command" is empty`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	if err := process.Check([]process.Spec{{Name: "guard.v2_x-1", Command: ok, Events: []string{"pre_tool_call"}, Timeout: "5s", OnError: "open"}}, process.Options{Workdir: dir}); err != nil {
		t.Errorf("a good spec: %v", err)
	}
}
