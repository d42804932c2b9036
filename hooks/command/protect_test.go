package command_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestProtectCommandHookRunsOnResultsOfAStoppedRun(t *testing.T) {
	reg := hooks.NewRegistry()
	err := command.RegisterAll(reg, map[string][]command.Spec{"post_tool_call": {
		{Name: "mask", Command: command.Shell(`echo '{"action": "continue", "output": "masked"}'`), Protect: true},
	}}, command.Options{Workdir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the run was interrupted
	in := hooks.PostToolInput{Call: chat.ToolCall{ID: "c", Name: "bash"}, Result: chat.ToolResult{Status: chat.StatusOK, Content: "token=abc"}}
	reg.RunPostToolProtect(ctx, &in, nil)
	if in.Result.Content != "masked" {
		t.Errorf("content = %q", in.Result.Content)
	}
}

func TestProtectIsOnlyForPostToolCallCommandHooks(t *testing.T) {
	err := command.RegisterAll(hooks.NewRegistry(), map[string][]command.Spec{"pre_tool_call": {
		{Name: "guard", Command: command.Shell("true"), Protect: true},
	}}, command.Options{Workdir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `"protect" is only for post_tool_call`) || !strings.Contains(err.Error(), `"guard"`) {
		t.Errorf("err = %v", err)
	}
}
