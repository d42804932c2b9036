package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Prefix starts the name of every MCP tool.
const Prefix = "mcp__"

// maxName is the longest tool name model APIs take.
const maxName = 64

// sanitize replaces what a model API's tool name cannot hold (anything
// but ASCII letters, digits, '_' and '-') with '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// serverNames gives each configured server the name its tools carry:
// sanitised, with no "__" in it (so that mcp__SERVER__TOOL always splits
// at the first "__" after the prefix), at most 24 bytes, and distinct,
// a clash resolved by a numeric suffix in the order of the configured
// names. The map goes from configured name to tool-name part.
func serverNames(configured []string) map[string]string {
	sorted := slices.Clone(configured)
	slices.Sort(sorted)
	out := make(map[string]string, len(sorted))
	taken := map[string]bool{}
	for _, name := range sorted {
		base := sanitize(name)
		for strings.Contains(base, "__") {
			base = strings.ReplaceAll(base, "__", "_")
		}
		base = strings.Trim(base, "_")
		if base == "" {
			base = "server"
		}
		if len(base) > 24 {
			base = strings.TrimRight(base[:24], "_")
		}
		n := base
		for i := 2; taken[n]; i++ {
			n = fmt.Sprintf("%s%d", base, i)
		}
		taken[n] = true
		out[name] = n
	}
	return out
}

// toolNames gives each of a server's tools its name for the model:
// mcp__SERVER__TOOL, sanitised, at most 64 bytes (a long name is cut and
// ends in a hash of the whole), distinct, a clash resolved by a numeric
// suffix in the order of the tools' own names. The map goes from a
// tool's own name to the model's.
func toolNames(server string, tools []string) map[string]string {
	sorted := slices.Clone(tools)
	slices.Sort(sorted)
	out := make(map[string]string, len(sorted))
	taken := map[string]bool{}
	prefix := Prefix + server + "__"
	for _, t := range sorted {
		n := prefix + sanitize(t)
		if t == "" {
			n = prefix + "tool"
		}
		if len(n) > maxName {
			sum := sha256.Sum256([]byte(t))
			n = n[:maxName-9] + "_" + hex.EncodeToString(sum[:4])
		}
		for i := 2; taken[n]; i++ {
			suffix := fmt.Sprintf("_%d", i)
			base := n
			if len(base)+len(suffix) > maxName {
				base = base[:maxName-len(suffix)]
			}
			if !taken[base+suffix] {
				n = base + suffix
				break
			}
		}
		taken[n] = true
		out[t] = n
	}
	return out
}

// SplitName returns the server and tool parts of an MCP tool name, and
// false for a name that is not one.
func SplitName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != ""
}
