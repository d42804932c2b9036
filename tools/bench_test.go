package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// BenchmarkGrepGoroot greps the Go source tree, the way the model would.
// tools/bench/grep_vs_rg.sh compares the same search with ripgrep.
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	src := filepath.Join(goroot, "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	ws, err := OpenWorkspace(src)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	r := NewRegistry(ws)
	for _, pattern := range []string{`func \w+Context\(`, `(?i)deadline exceeded`, `\bTODO\b`} {
		b.Run(pattern, func(b *testing.B) {
			args, _ := json.Marshal(GrepArgs{Pattern: pattern})
			c := chat.ToolCall{Name: "grep", Arguments: string(args)}
			var last string
			for b.Loop() {
				res, err := r.Run(context.Background(), c)
				if err != nil || res.Status != chat.StatusOK {
					b.Fatalf("%v %s", err, res.Content)
				}
				last = res.Content
			}
			lines := strings.Split(strings.TrimSpace(last), "\n")
			b.Log(lines[len(lines)-1])
		})
	}
}
