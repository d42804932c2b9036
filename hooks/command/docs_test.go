//go:build unix

package command_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// The examples of docs/hooks.md, run as written (testdata/hooks holds the
// scripts).

func needJQ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
}

func fixture(t *testing.T, name string) command.Command {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return command.Exec(p)
}

func TestDocsNoRm(t *testing.T) {
	needJQ(t)
	spec := command.Spec{
		Name:    "no-rm",
		Command: command.Shell(`jq -e '.tool_call.arguments.command | test("rm -rf") | not' >/dev/null || { echo 'rm -rf is not allowed' >&2; exit 2; }`),
		Tools:   []string{"bash"},
	}
	reg, _ := setup(t, "pre_tool_call", spec)
	for args, want := range map[string]hooks.PreToolResult{
		`{"command":"ls -la"}`:           {},
		`{"command":"cd / && rm -rf x"}`: {Action: hooks.ToolSkip, Reason: "rm -rf is not allowed"},
	} {
		got, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash", Arguments: args}}, 0, nil)
		if got != want {
			t.Errorf("%s: got %+v, want %+v", args, got, want)
		}
	}
}

func TestDocsAskPush(t *testing.T) {
	needJQ(t)
	spec := command.Spec{Name: "ask-push", Command: fixture(t, "ask-push.sh"), Tools: []string{"bash"}}
	reg, _ := setup(t, "pre_tool_call", spec)
	for args, want := range map[string]hooks.PreToolResult{
		`{"command":"git status"}`:           {},
		`{"command":"git push origin main"}`: {Action: hooks.ToolPause, Reason: "pushing needs your approval"},
	} {
		got, _ := reg.RunPreToolCall(ctx, &hooks.PreToolInput{Call: chat.ToolCall{Name: "bash", Arguments: args}}, 0, nil)
		if got != want {
			t.Errorf("%s: got %+v, want %+v", args, got, want)
		}
	}
}

func TestDocsRedactToken(t *testing.T) {
	needJQ(t)
	reg, _ := setup(t, "post_tool_call", command.Spec{Name: "redact", Command: fixture(t, "redact-token.sh")})
	in := &hooks.PostToolInput{Result: chat.ToolResult{Status: chat.StatusOK, Content: "token=ghp_abc123XYZ\n"}}
	var tr hooktest.Trace
	if got := reg.RunPostToolCall(ctx, in, tr.Record); got != (hooks.PostToolResult{}) {
		t.Errorf("got %+v (trace %s)", got, &tr)
	}
	if in.Result.Content != "token=[redacted]\n" {
		t.Errorf("content = %q (trace %s)", in.Result.Content, &tr)
	}
}

func TestDocsCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"sum.go":      "package m\n\nfunc Sum(a, b int) int { return a - b }\n",
		"sum_test.go": "package m\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum(1, 2) != 3 {\n\t\tt.Fatal(\"Sum(1, 2) != 3\")\n\t}\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := hooks.NewRegistry()
	spec := command.Spec{Name: "tests", Command: fixture(t, "check.sh"), Timeout: "5m"}
	if err := command.Register(reg, "on_turn_end", spec, command.Options{Workdir: dir}); err != nil {
		t.Fatal(err)
	}
	var tr hooktest.Trace
	got, _ := reg.RunTurnEnd(ctx, &hooks.TurnEndInput{}, 0, tr.Record)
	if got.Action != hooks.TurnContinueWithMessages || len(got.Messages) != 1 {
		t.Fatalf("got %+v (trace %s)", got, &tr)
	}
	msg := got.Messages[0]
	if msg.Role != chat.RoleUser || !strings.HasPrefix(msg.Content, "The tests fail; fix them before finishing:\n") ||
		!strings.Contains(msg.Content, "Sum(1, 2) != 3") {
		t.Errorf("message = %+v", msg)
	}

	if err := os.WriteFile(filepath.Join(dir, "sum.go"), []byte("package m\n\nfunc Sum(a, b int) int { return a + b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := reg.RunTurnEnd(ctx, &hooks.TurnEndInput{}, 0, nil); got.Action != hooks.TurnFinish {
		t.Errorf("after the fix: got %+v", got)
	}
}

func TestDocsRememberTicket(t *testing.T) {
	needJQ(t)
	reg, _ := setup(t, "pre_compact", command.Spec{Name: "ticket", Command: fixture(t, "remember-ticket.sh")})
	in := &hooks.CompactInput{Trigger: hooks.CompactAuto, Summary: "## Requests\nFix the parser."}
	var tr hooktest.Trace
	if got := reg.RunPreCompact(ctx, in, tr.Record); got != (hooks.CompactResult{}) {
		t.Errorf("got %+v (trace %s)", got, &tr)
	}
	if want := "## Requests\nFix the parser.\nThe work is for ticket T-1234."; in.Summary != want {
		t.Errorf("summary = %q, want %q", in.Summary, want)
	}
}
