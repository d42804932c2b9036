package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/sandbox"
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

// BenchmarkBashSandbox is what the sandbox adds to a bash call of the
// model's, with a policy like tackle's (a workspace holding a
// repository, forty hidden paths in a home): `echo hi` through the bash
// tool without the sandbox and in it at each level.
func BenchmarkBashSandbox(b *testing.B) {
	home := b.TempDir()
	ws := filepath.Join(b.TempDir(), "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		b.Fatal(err)
	}
	var hidden []string
	for i := range 40 {
		p := filepath.Join(home, fmt.Sprintf(".secret%d", i))
		os.MkdirAll(p, 0o700)
		hidden = append(hidden, p)
	}
	for _, level := range []sandbox.Level{sandbox.LevelNone, sandbox.LevelLandlock, sandbox.LevelFull} {
		b.Run(level.String(), func(b *testing.B) {
			var sb *Sandbox
			if level != sandbox.LevelNone {
				if sandbox.Probe().Level < level {
					b.Skipf("no sandbox at level %s", level)
				}
				sb, _ = NewSandbox(sandbox.Policy{Workspace: ws, TempDir: b.TempDir(), Hidden: hidden, MaxLevel: level},
					WithRepositories(NewRepositories(ws)))
			}
			w, err := OpenWorkspace(ws)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			r := NewRegistry(w, WithSandbox(sb))
			call := chat.ToolCall{ID: "c", Name: Bash, Arguments: `{"command":"echo hi"}`}
			for b.Loop() {
				if res, err := r.Run(context.Background(), call); err != nil || res.Content != "hi" {
					b.Fatalf("%+v, %v", res, err)
				}
			}
		})
	}
}
