package config

import (
	"os"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/mcp"
)

// TestREADMEMCPExample: the config example of README's "MCP servers"
// section is a valid config with valid servers.
func TestREADMEMCPExample(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## MCP servers\n")
	if !ok {
		t.Fatal(`README.md has no "## MCP servers" section`)
	}
	_, block, ok := strings.Cut(sec, "```json\n")
	if !ok {
		t.Fatal("the MCP servers section has no JSON example")
	}
	block, _, _ = strings.Cut(block, "```")
	cfg, err := Parse([]byte(block))
	if err != nil {
		t.Fatalf("README's MCP example: %v", err)
	}
	if err := mcp.ValidateAll(cfg.MCPServers); err != nil {
		t.Fatalf("README's MCP example: %v", err)
	}
	if len(cfg.MCPServers) != 3 || cfg.MCPServers["old"].IsEnabled() || cfg.MCPServers["github"].URL == "" {
		t.Errorf("README's MCP example reads as %+v", cfg.MCPServers)
	}
}
