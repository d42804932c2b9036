package approval

import "testing"

// BenchmarkDecideBash is the approval hook on typical bash programs, with
// rules and protection, in a workspace of a few files (docs/benchmarks.md).
func BenchmarkDecideBash(b *testing.B) {
	root := b.TempDir()
	for _, d := range []string{"src", "docs", ".git"} {
		writeTreeB(b, root, d+"/x.go")
	}
	a, d, err := Rules{Allow: []string{"bash(go test *)", "bash(git status *)", "bash(cat *)", "bash(grep *)"}, Deny: []string{"bash(rm *)"}}.Parse()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, cmd string }{
		{"chain", "go test ./... && git status --short"},
		{"glob-loop", `for f in src/*.go; do grep -n TODO "$f"; done`},
		{"braces-pipe", "cat src/{a,b}.go | grep -n foo"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := New(Default, inspector{}, WithRules(a, d), WithWorkspace(root), WithProtection(Protection{Home: "/home/u"}))
			call := bashCall(tc.cmd)
			for b.Loop() {
				p.Decide(call)
			}
		})
	}
}

func writeTreeB(b *testing.B, root, rel string) {
	b.Helper()
	writeTreeTB(b, root, map[string]string{rel: "package x\n"})
}
