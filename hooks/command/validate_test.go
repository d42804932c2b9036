package command_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/command"
)

// TestRegisterChecksTheProgram: a hook whose program cannot be found or
// run is refused when it is registered, with what is wrong.
func TestRegisterChecksTheProgram(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, filepath.Join(dir, "hooks", "subdir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte("#!/bin/sh\nexit 0\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("hooks/check.sh", 0o755)
	write("hooks/plain.sh", 0o644)
	write("bin/my-hook", 0o755)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "HOOKS=" + filepath.Join(dir, "hooks"), "SPACED=a b"}

	for _, tc := range []struct {
		name string
		cmd  command.Command
		env  map[string]string
		err  string // "" when it registers
	}{
		{"argv on PATH", command.Exec("sh", "-c", "true"), nil, ""},
		{"argv relative", command.Exec("./hooks/check.sh"), nil, ""},
		{"argv absolute", command.Exec(filepath.Join(dir, "hooks", "check.sh")), nil, ""},
		{"argv missing", command.Exec("tackle-no-such-program"), nil, `command: program "tackle-no-such-program" is not in $PATH (give its path, or install it)`},
		{"argv relative missing", command.Exec("./hooks/nope.sh"), nil, "command: ./hooks/nope.sh does not exist (a relative path is taken from the workspace, " + dir + ")"},
		{"argv absolute missing", command.Exec("/no/such/hook"), nil, "command: /no/such/hook does not exist"},
		{"argv not executable", command.Exec("./hooks/plain.sh"), nil, `command: ./hooks/plain.sh is not executable (chmod +x it, or run it with an interpreter: ["sh", "./hooks/plain.sh"])`},
		{"argv directory", command.Exec("./hooks/subdir"), nil, "command: ./hooks/subdir is a directory, not a program"},
		{"argv NUL", command.Exec("sh", "-c", "true\x00"), nil, "command: contains a NUL byte"},

		{"script on PATH", command.Shell("cat > out.json"), nil, ""},
		{"script builtin", command.Shell("exit 0"), nil, ""},
		{"script relative", command.Shell("./hooks/check.sh --flag | tee x"), nil, ""},
		{"script tilde", command.Shell("~/hooks/check.sh"), nil, ""},
		{"script variable", command.Shell(`"$HOOKS/check.sh" && echo ok`), nil, ""},
		{"script unquoted variable", command.Shell(`$HOOKS/check.sh`), nil, ""},
		{"script the hook's PATH", command.Shell("my-hook"), map[string]string{"PATH": bin + ":/usr/bin:/bin"}, ""},
		{"script missing", command.Shell("tackle-no-such-program --x"), nil, `command: the script's first command "tackle-no-such-program" is not in the hook's $PATH (give its path, or install it)`},
		{"script missing in a pipeline", command.Shell("tackle-no-such-program | cat && echo"), nil, `first command "tackle-no-such-program" is not in`},
		{"script missing in the hook's PATH", command.Shell("my-hook"), nil, `first command "my-hook" is not in the hook's $PATH`},
		{"script relative missing", command.Shell("./hooks/nope.sh arg"), nil, "the script's first command: command: ./hooks/nope.sh does not exist (a relative path is taken from the workspace, " + dir + ")"},
		{"script variable missing", command.Shell(`"$HOOKS/nope.sh"`), nil, "the script's first command: command: " + filepath.Join(dir, "hooks", "nope.sh") + " does not exist"},
		{"script not executable", command.Shell("./hooks/plain.sh"), nil, "./hooks/plain.sh is not executable"},
		// Left to sh: what cannot be known now, and failures the script handles.
		{"script handles it", command.Shell("tackle-no-such-program || exit 0"), nil, ""},
		{"script negated", command.Shell("! tackle-no-such-program"), nil, ""},
		{"script sets PATH", command.Shell("PATH=" + bin + " tackle-no-such-program"), nil, ""},
		{"script function", command.Shell("f() { :; }; f"), nil, ""},
		{"script subshell", command.Shell("(tackle-no-such-program)"), nil, ""},
		{"script substitution", command.Shell("$(echo tackle-no-such-program)"), nil, ""},
		{"script split variable", command.Shell("$SPACED"), nil, ""},
		{"script glob", command.Shell("./hooks/*.sh"), nil, ""},
		{"script does not parse", command.Shell("if then"), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := hooks.NewRegistry()
			err := command.Register(reg, "pre_tool_call", command.Spec{Name: "guard", Command: tc.cmd, Env: tc.env}, command.Options{Workdir: dir, Env: env})
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err == "":
				return
			case err == nil:
				t.Fatalf("registered; want an error with %q", tc.err)
			case !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), `command hook "guard" (pre_tool_call): `):
				t.Fatalf("error:\n%v\nwant it to name the hook and its event and contain\n%s", err, tc.err)
			}
			if reg.Len(hooks.PreToolCall) != 0 {
				t.Error("registered despite the error")
			}
		})
	}
}

func TestRegisterChecksNames(t *testing.T) {
	ok := command.Shell("true")
	reg := hooks.NewRegistry()
	reg.PreToolCall(hooks.Hook[hooks.PreToolInput, hooks.PreToolResult]{Name: "approval",
		Run: func(context.Context, *hooks.PreToolInput) (hooks.PreToolResult, error) {
			return hooks.PreToolResult{}, nil
		}})
	err := command.RegisterAll(reg, map[string][]command.Spec{
		"pre_tool_call": {{Name: "approval", Command: ok}},
		"on_turn_end":   {{Name: "tests", Command: ok}, {Name: "lint", Command: ok}, {Name: "tests", Command: ok}},
		"on_abort":      {{Name: "tests", Command: ok}, {Name: "bad\x1b[2Jname", Command: ok}},
	}, command.Options{Workdir: t.TempDir()})
	want := `hooks.pre_tool_call[0] "approval": "approval" is already the name of a pre_tool_call hook (one of tackle's own, or registered before): the hooks of an event need names of their own
hooks.on_turn_end[2] "tests": "tests" is also the name of hooks.on_turn_end[0]: the hooks of an event need names of their own
hooks.on_abort[1] "bad\x1b[2Jname": "name" "bad\x1b[2Jname": want printable characters only (it is shown in the UI and the decision trace)`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant\n%s", err, want)
	}
	if err := command.Register(reg, "pre_tool_call", command.Spec{Name: "approval", Command: ok}, command.Options{Workdir: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), `"approval" is already the name of a pre_tool_call hook`) {
		t.Errorf("Register: %v", err)
	}
}
