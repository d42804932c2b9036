package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/subagent"
	"github.com/tackle-dev/tackle/tools"
)

// TestSubagentToolNames: subagents may have tackle's tools and MCP
// servers' (which join later), never task, nor a name no tool has.
func TestSubagentToolNames(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tools.NewRegistry(ws)
	if err := checkSubagentTools([]string{"read_file", "bash", "todo", "fetch", "mcp__git__status"}, reg); err != nil {
		t.Errorf("good names: %v", err)
	}
	// fetch reaches other machines: a subagent has it only when named.
	if slices.Contains(subagent.DefaultTools, tools.Fetch) {
		t.Errorf("the general agent's default tools include fetch: %v", subagent.DefaultTools)
	}
	err = checkSubagentTools([]string{"read_file", "task", "Read"}, reg)
	if err == nil || !strings.HasPrefix(err.Error(), "task, Read: not a tool a subagent can have") || strings.Contains(err.Error(), "tackle's are bash, edit_file, glob, grep, list_dir, read_file, task") {
		t.Errorf("bad names: %v", err)
	}
}
