package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolverIsEvalSymlinks: the resolver that remembers what it
// resolved gives what filepath.EvalSymlinks gives, for every path of up
// to three components over a tree of links of every kind (absolute,
// relative, through "..", to files, chained, dangling, in a loop), asked
// in an order that makes it use what it remembered.
func TestResolverIsEvalSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(rel string) {
		if err := os.WriteFile(filepath.Join(root, rel), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("d/sub")
	file("d/f")
	file("d/sub/g")
	link(filepath.Join(root, "d"), "la")
	link("d", "lr")
	link("d/sub/..", "lup")
	link("d/f", "lf")
	link("nowhere", "ldang")
	link("lloop2", "lloop1")
	link("lloop1", "lloop2")
	link("../la", "d/back")
	link(filepath.Join(root, "d/sub"), "d/abs")
	link("lr/sub", "chain")

	names := []string{"d", "f", "sub", "g", "la", "lr", "lup", "lf", "ldang", "lloop1", "back", "abs", "chain", "x", "..", "."}
	paths := []string{"/", root}
	for _, a := range names {
		paths = append(paths, filepath.Join(root, a), root+"/"+a)
		for _, b := range names {
			paths = append(paths, root+"/"+a+"/"+b)
			for _, c := range names {
				paths = append(paths, root+"/"+a+"/"+b+"/"+c)
			}
		}
	}
	links := resolver{}
	for _, p := range paths {
		want, err := filepath.EvalSymlinks(p)
		got, ok := links.existing(p)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("%s: resolver %q, %v; EvalSymlinks %q, %v", p, got, ok, want, err)
		}
	}
	if len(links) < 100 {
		t.Fatalf("the resolver remembered %d paths: the test does not exercise what it remembers", len(links))
	}
}

// BenchmarkResolvePolicy resolves a policy like tackle's: forty hidden
// paths in a home (a few of them present), the workspace's protected
// paths.
func BenchmarkResolvePolicy(b *testing.B) {
	home := filepath.Join(b.TempDir(), "home")
	ws := filepath.Join(home, "src", "proj")
	tmp := b.TempDir()
	p := Policy{Workspace: ws, TempDir: tmp}
	for i := range 40 {
		h := filepath.Join(home, ".secret", "s"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		if i%4 == 0 {
			if err := os.MkdirAll(h, 0o700); err != nil {
				b.Fatal(err)
			}
		}
		p.Hidden = append(p.Hidden, h)
	}
	for _, name := range []string{".git", ".tackle", ".claude", ".mcp.json", "hooks/check.sh", "Makefile"} {
		p.Protected = append(p.Protected, filepath.Join(ws, name))
	}
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := resolvePolicy(p, ws); err != nil {
			b.Fatal(err)
		}
	}
}
