package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tui/headless"
)

// TestREADMEExitCodes: README.md's table of exit codes is exitCodes, row
// for row.
func TestREADMEExitCodes(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Exit codes\n")
	if !ok {
		t.Fatal(`README.md has no "### Exit codes" section`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	row := regexp.MustCompile(`(?m)^\| (\d+) \| (.*) \|$`)
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	for _, c := range exitCodes {
		want = append(want, strconv.Itoa(c.code)+" "+c.meaning)
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md's exit codes:\n%s\nexitCodes (exit.go):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExitCodeOf: each kind of error has its code, wrapped or not, and
// every documented code is one of them.
func TestExitCodeOf(t *testing.T) {
	abort := &agent.HookError{Event: hooks.PreLLMRequest, Hook: "budget", Reason: "too long"}
	reached := map[int]bool{}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("model request failed"), ExitError},
		{usagef("no prompt"), ExitUsage},
		{fmt.Errorf("session: %w", usageError{errors.New("bad hook")}), ExitUsage},
		{deniedError{}, ExitDenied},
		{abort, ExitHookAbort},
		{cappedError{"retry budget"}, ExitCapped},
		{incompleteError{"cut"}, ExitIncomplete},
		{interruptedError{}, ExitInterrupted},
		{interruptedError{abort}, ExitInterrupted},
	} {
		if got := exitCodeOf(tc.err); got != tc.want {
			t.Errorf("exitCodeOf(%#v) = %d, want %d", tc.err, got, tc.want)
		}
		reached[tc.want] = true
	}
	for _, c := range exitCodes {
		if !reached[c.code] {
			t.Errorf("exit code %d (%s) is documented but no error maps to it", c.code, c.help)
		}
	}
}

// TestRunEnd: how a piped run ended gives its exit code and message,
// the precedence of the cases included.
func TestRunEnd(t *testing.T) {
	abort := &agent.HookError{Event: hooks.OnPromptSubmit, Hook: "guard"}
	finished := agent.Outcome{Status: agent.StatusFinished}
	capped := agent.Outcome{Status: agent.StatusCapped, Reason: "retry budget of 3 rounds used up"}
	paused := agent.Outcome{Status: agent.StatusPaused, Reason: "a hook paused the turn end"}
	failed := agent.Outcome{Status: agent.StatusFinished, HookFailures: 2}
	const skipped = "2 tool call(s) skipped because a pre_tool_call hook failed (see the warnings above)"
	for _, tc := range []struct {
		name        string
		res         headless.Result
		interrupted bool
		code        int
		msg         string
	}{
		{"finished", headless.Result{Outcome: finished}, false, ExitOK, ""},
		{"error", headless.Result{Err: errors.New("stream cut")}, false, ExitError, "stream cut"},
		{"hook abort", headless.Result{Err: abort}, false, ExitHookAbort, abort.Error()},
		{"capped", headless.Result{Outcome: capped}, false, ExitCapped, "run capped: retry budget of 3 rounds used up"},
		{"capped with denials", headless.Result{Outcome: capped, Denied: 1}, false, ExitCapped, "run capped: retry budget of 3 rounds used up"},
		{"paused", headless.Result{Outcome: paused}, false, ExitDenied, "run paused: a hook paused the turn end (a non-interactive run cannot answer it)"},
		{"denied", headless.Result{Outcome: finished, Denied: 1}, false, ExitDenied, ""},
		{"denied and hook failures", headless.Result{Outcome: failed, Denied: 1}, false, ExitDenied, skipped},
		{"hook failures", headless.Result{Outcome: failed}, false, ExitError, skipped},
		{"incomplete", headless.Result{Outcome: agent.Outcome{Status: agent.StatusFinished, Incomplete: "cut"}}, false, ExitIncomplete, "the answer is incomplete: cut"},
		{"interrupted", headless.Result{Outcome: finished}, true, ExitInterrupted, ""},
		{"interrupted abort", headless.Result{Err: abort}, true, ExitInterrupted, abort.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.interrupted {
				cancel()
			}
			err := runEnd(ctx, tc.res)
			if code := exitCodeOf(err); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			var out strings.Builder
			report(&out, err)
			want := ""
			if tc.msg != "" {
				want = "tackle: " + tc.msg + "\n"
			}
			if out.String() != want {
				t.Errorf("report printed %q, want %q", out.String(), want)
			}
		})
	}
}
