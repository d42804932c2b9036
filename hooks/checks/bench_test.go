package checks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchModule is a small module: one package of three files using fmt,
// strings and os, the kind of package a one-file edit touches.
var benchModule = map[string]string{
	"go.mod": goMod,
	"util.go": `package main

import "strings"

func shout(s string) string { return strings.ToUpper(s) + "!" }
`,
	"config.go": `package main

import "os"

func home() string { return os.Getenv("HOME") }
`,
}

func benchMain(i int) string {
	return fmt.Sprintf(`package main

import "fmt"

// edit %d
func main() {
	fmt.Println(shout("hello"), home())
}
`, i)
}

// BenchmarkCheckRound measures one round of turn-end checks (gofmt and
// go vet, the real binaries) after a one-file edit in a small module.
// Each iteration changes main.go, so vet has to check the package again.
// "warm" uses the build cache as the session left it; "cold" gives every
// round a fresh, empty GOCACHE, so go vet first compiles the standard
// library packages the module imports. The gofmt-ms and vet-ms metrics
// are the checks' own durations as reported in their Finished events.
//
//	go test ./hooks/checks -run '^$' -bench CheckRound -benchtime 10x -count 3 -p 1
func BenchmarkCheckRound(b *testing.B) {
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			for p, content := range benchModule {
				write(b, dir, p, content)
			}
			var mu sync.Mutex
			durs := map[string]time.Duration{}
			c, err := New(Config{Workspace: dir, Tools: (*fakeInspector)(nil), Report: func(e Event) {
				if f, ok := e.(Finished); ok {
					mu.Lock()
					durs[f.Check] += f.Duration
					mu.Unlock()
				}
			}})
			if err != nil {
				b.Fatal(err)
			}
			base := c.env
			ctx := context.Background()
			round := func(i int) {
				c.Track("main.go")
				if r := c.Check(ctx); len(r.Diagnostics) > 0 || len(r.Errors) > 0 || len(r.Checks) != 2 {
					b.Fatalf("round %d: %+v", i, r)
				}
			}
			write(b, dir, "main.go", benchMain(-1))
			round(-1) // finds the tools; warms the cache for "warm"
			clear(durs)
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				write(b, dir, "main.go", benchMain(i))
				var cache string
				if cold {
					cache = b.TempDir()
					c.env = append(base[:len(base):len(base)], "GOCACHE="+cache)
				}
				b.StartTimer()
				round(i)
				b.StopTimer()
				if cold {
					os.RemoveAll(cache)
				}
				b.StartTimer()
			}
			b.StopTimer()
			for check, d := range durs {
				b.ReportMetric(float64(d.Milliseconds())/float64(b.N), check+"-ms")
			}
		})
	}
}

// BenchmarkSnapshot measures the walk taken before and after every bash
// command: "medium" is a generated tree of 5,000 files in 500
// directories (half of them .go), "goroot" the Go distribution's src
// directory (about 11,000 files, 7,700 .go).
//
//	go test ./hooks/checks -run '^$' -bench Snapshot -count 3 -p 1
func BenchmarkSnapshot(b *testing.B) {
	medium := b.TempDir()
	for d := range 250 {
		for f := range 20 {
			ext := ".go"
			if f%2 == 1 {
				ext = ".txt"
			}
			p := filepath.Join(medium, fmt.Sprintf("pkg%03d/sub%d", d, d%3), fmt.Sprintf("f%02d%s", f, ext))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	isGo := func(rel string) bool { return strings.HasSuffix(rel, ".go") }
	trees := []struct{ name, dir string }{{"medium", medium}}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		src := filepath.Join(strings.TrimSpace(string(out)), "src")
		if _, err := os.Stat(src); err == nil {
			trees = append(trees, struct{ name, dir string }{"goroot", src})
		}
	}
	for _, tree := range trees {
		b.Run(tree.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				s, err := takeSnapshot(context.Background(), tree.dir, isGo)
				if err != nil {
					b.Fatal(err)
				}
				n = len(s)
			}
			b.ReportMetric(float64(n), "files")
		})
	}
}
