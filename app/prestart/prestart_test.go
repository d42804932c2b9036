package prestart

import (
	"strings"
	"testing"
)

func TestWillProbe(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for _, e := range kv {
				if name, v, _ := strings.Cut(e, "="); name == k {
					return v
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		args []string
		env  []string
		want bool
	}{
		{nil, nil, true}, // the interactive UI
		{[]string{"-p", "fix the test"}, nil, true},
		{[]string{"--yes", "-m", "gpt-5", "-p", "hi"}, nil, true},
		{[]string{"run", "-p", "hi"}, nil, true},
		{[]string{"-c"}, nil, true},
		{[]string{"--sandbox", "auto", "-p", "hi"}, nil, true},
		{[]string{"-p", "hi", "--", "--version"}, nil, true},
		{[]string{"--version"}, nil, false},
		{[]string{"-v"}, nil, false},
		{[]string{"--help"}, nil, false},
		{[]string{"sessions", "-h"}, nil, false},
		{[]string{"sessions"}, nil, false},
		{[]string{"acp"}, nil, true}, // an editor's sessions run commands
		{[]string{"hooks", "test", "x", "pre_tool_call"}, nil, false},
		{[]string{"-w", "dir", "permissions"}, nil, true}, // a guess: the probe runs for nothing
		{[]string{"--sandbox", "off", "-p", "hi"}, nil, false},
		{[]string{"--sandbox=off", "-p", "hi"}, nil, false},
		{[]string{"-p", "hi"}, []string{"TACKLE_SANDBOX=off"}, false},
		{[]string{"-test.v", "-test.run=TestX"}, nil, false},
	} {
		if got := WillProbe(tc.args, env(tc.env...)); got != tc.want {
			t.Errorf("WillProbe(%q, %q) = %v, want %v", tc.args, tc.env, got, tc.want)
		}
	}
}
