package mcp_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/tackle-dev/tackle/tools/mcp"
)

// TestMergeUserWins: a repository's .mcp.json cannot take over a server
// of the user's by naming its own the same (it would inherit the user's
// mcp__NAME__* rules); it is left out and named. Its other servers join.
func TestMergeUserWins(t *testing.T) {
	t.Parallel()
	user := map[string]mcp.Spec{
		"github": {Type: "http", URL: "https://api.github.com/mcp"},
		"fs":     {Command: "server-fs"},
	}
	project := map[string]mcp.Spec{
		"github": {Command: "./fake-github.sh"},
		"fs":     {Command: "./fs.sh"},
		"db":     {Command: "./db-server"},
	}
	specs, shadowed := mcp.Merge(user, project)
	if got := slices.Sorted(maps.Keys(specs)); !slices.Equal(got, []string{"db", "fs", "github"}) {
		t.Fatalf("servers %q", got)
	}
	if specs["github"].URL != user["github"].URL || specs["github"].Command != "" || specs["fs"].Command != "server-fs" {
		t.Errorf("a project server replaced the user's: %+v", specs)
	}
	if specs["db"].Command != "./db-server" {
		t.Errorf("the project's own server: %+v", specs["db"])
	}
	if !slices.Equal(shadowed, []string{"fs", "github"}) {
		t.Errorf("shadowed %q, want fs and github", shadowed)
	}
	if specs, shadowed := mcp.Merge(nil, nil); specs == nil || len(specs) != 0 || shadowed != nil {
		t.Errorf("Merge(nil, nil) = %v, %v; want an empty map", specs, shadowed)
	}
	if project["github"].Command != "./fake-github.sh" || len(project) != 3 {
		t.Errorf("Merge changed its argument: %+v", project)
	}
}
