package approval

import (
	"testing"
)

// The tests in this file are the classes of bypass a red-team pass found
// against the policy (issue 21): for each class, rules a user gets from
// one "always" keypress (or writes by hand) must not cover the forms
// that run code, write, or read outside the workspace, and must still
// cover the harmless forms (the control).

// ruleCase is one rule with the commands it must cover and refuse.
type ruleCase struct {
	rule    string
	covers  []string
	refuses []string
}

func checkRuleCases(t *testing.T, tests []ruleCase, opts ...Option) {
	t.Helper()
	root := t.TempDir()
	for _, tt := range tests {
		p := mustPolicy(t, Default, []string{tt.rule}, nil, append([]Option{WithWorkspace(root), WithProtection(Protection{Home: "/home/u"})}, opts...)...)
		for _, cmd := range tt.covers {
			if got := p.Decide(bashCall(cmd)); got.Action != cont {
				t.Errorf("%s does not cover %q: %s %q", tt.rule, cmd, actionNames[got.Action], got.Reason)
			}
		}
		for _, cmd := range tt.refuses {
			if got := p.Decide(bashCall(cmd)); got.Action == cont {
				t.Errorf("%s covers %q: %q", tt.rule, cmd, got.Reason)
			}
		}
	}
}

// TestClass1SubscriptsAndVariables: bash evaluates array subscripts in the
// names builtins take (test -v, printf -v, read, declare …), which runs
// $(…) inside them; and a builtin that sets PATH, IFS, BASH_ENV … changes
// what the next command runs. Deny rules saw the subscript trap, allow
// rules did not.
func TestClass1SubscriptsAndVariables(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{rule: "bash(test *)",
			covers:  []string{"test -v x", "test -n \"$x\"", "test -f main.go", "test \"$a\" = \"$b\"", "test \"$x\"", "test ! \"$x\"", "test -v 'x[1]'"},
			refuses: []string{"test -v 'x[$(touch pwned)]'", "test -v \"$n\"", "test -v 'x[i]'", "test -R 'x[$(id)]'", "test $a $b", "test \"$a\" \"$b\"", "test -v `echo x`", "test -v $'x[$(id)]'", "test -n a -a \"$x\" \"$y\""}},
		{rule: "bash(\\[ *)",
			covers:  []string{"[ -d src ]", "[ \"$a\" != x ]"},
			refuses: []string{"[ -v 'x[$(touch pwned)]' ]", "[ -v \"$1\" ]", "[ $x ]"}},
		{rule: "bash(printf *)",
			covers:  []string{"printf '%s\\n' hello", "printf -v out %s x", "printf '%s' \"$x\""},
			refuses: []string{"printf -v 'x[$(touch pwned)]' %s a", "printf -v PATH %s /tmp", "printf -v IFS x", "printf -vBASH_ENV %s x", "printf -v \"$n\" x", "printf -v http_proxy x", "printf -v 'x[i]' %s 1"}},
		{rule: "bash(read *)",
			covers:  []string{"read line", "read -r a b"},
			refuses: []string{"read PATH", "read -a 'x[$(id)]'", "read 'x[i]'", "read -r GIT_DIR", "read $v"}},
		{rule: "bash(declare *)",
			covers:  []string{"declare x=1", "declare -a list"},
			refuses: []string{"declare PATH=/tmp", "declare 'x[$(touch pwned)]=1'", "declare LD_PRELOAD=./x.so", "declare -x GIT_CONFIG_COUNT=1", "declare IFS"}},
		{rule: "bash(export *)", covers: []string{"export x=1"}, refuses: []string{"export GIT_CONFIG_COUNT=1", "export PATH=.:$PATH", "export GOFLAGS=-toolexec=./x"}},
		{rule: "bash(local *)", refuses: []string{"local PATH=/tmp"}},
		{rule: "bash(readonly *)", refuses: []string{"readonly BASH_ENV=x"}},
		{rule: "bash(mapfile *)", covers: []string{"mapfile -t lines"}, refuses: []string{"mapfile -C 'touch pwned' x", "mapfile PATH"}},
		{rule: "bash(getopts *)", covers: []string{"getopts ab opt"}, refuses: []string{"getopts a IFS", "getopts a \"$v\""}},
		{rule: "bash(wait *)", covers: []string{"wait", "wait -n -p pid"}, refuses: []string{"wait -n -p 'x[$(touch pwned)]'", "wait -p PATH"}},
		{rule: "bash(unset *)", covers: []string{"unset x"}, refuses: []string{"unset 'x[$(id)]'", "unset PATH"}},
		{rule: "bash(echo *)", covers: []string{"echo '[x]'"}, refuses: []string{"echo 'x[$(id)]'"}},
	})
}
