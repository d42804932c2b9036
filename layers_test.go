package main

import (
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// importLayers is the import order of tackle's packages, lowest first, as
// ARCHITECTURE.md draws it: a package imports only packages of lower
// layers, never one of its own layer or above. Every package of the
// module must be listed, so that a new one is placed on purpose.
var importLayers = [][]string{
	{"tools/chat", "tools/suggest", "tools/child", "tools/child/childtest", "tools/atomicfile", "tools/sandbox"}, // the shared vocabulary and helpers
	{"tools", "tools/sandbox/sandboxtest"},                                                                              // the tools and the workspace boundary; the sandbox's test helpers
	{"hooks", "hooks/wire", "tools/mcp", "tools/mcp/mcptest"},                                                           // the hook engine and the JSON forms of its inputs; MCP servers as tools
	{"hooks/approval", "hooks/checks", "hooks/command", "hooks/process", "hooks/redact", "hooks/hooktest"},              // built-in hooks, runtimes
	{"agent", "agent/llmtest", "agent/project", "agent/window", "hooks/claude"},                                         // the Worker and the model client
	{"agent/session", "agent/subagent", "agent/slash", "themes", "app/config", "app/prestart", "tui/internal/markdown"}, // what the front ends and the application use; the task tool; custom slash commands
	{"tui", "tui/headless", "tui/acp"},                                                                                  // the front ends
	{"app", "tools/bench/grepcmd", "tools/bench/floor", "tools/bench/libfloor"},                                         // the application; benchmark commands
	{".", "app/e2e"}, // the tackle command (main.go hands app.Main the process's streams) and the end-to-end tests of the binary
}

const module = "github.com/tackle-dev/tackle"

func TestImportsFollowTheLayers(t *testing.T) {
	t.Parallel()
	layerOf := map[string]int{}
	for i, l := range importLayers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	pkgs := modulePackages(t)
	for _, p := range pkgs {
		if _, ok := layerOf[p.rel]; !ok {
			t.Errorf("package %s is in no layer: add it to importLayers (layers_test.go) and ARCHITECTURE.md", p.rel)
		}
	}
	for _, p := range pkgs {
		from, ok := layerOf[p.rel]
		if !ok {
			continue
		}
		for _, imp := range p.imports {
			to, ok := layerOf[imp]
			if ok && to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): an import must go to a lower layer", p.rel, from, imp, to)
			}
		}
	}
	for rel := range layerOf {
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.rel == rel }) {
			t.Errorf("importLayers lists %s, which is not a package of the module", rel)
		}
	}
}

// TestRootIsOnlyMain: the module's root package is the tackle command
// and nothing else. main.go hands app.Main the process's streams and
// exits with its code; the application and its policy live in app/ and
// the packages below it (ARCHITECTURE.md).
func TestRootIsOnlyMain(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			code = append(code, name)
		}
	}
	if !slices.Equal(code, []string{"main.go"}) {
		t.Errorf("the root package's code files are %q, want only main.go: the application lives in app/", code)
	}
	b, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 30 {
		t.Errorf("main.go has %d lines, want 30 at most: it only hands app.Main the process's streams", n)
	}
}

// appOnly are the packages that are the application's, not the library's:
// only app imports them (agent/, hooks/ and tools/ can be embedded
// without them). Test files count too.
var appOnly = []string{"app/config", "tui/headless", "tui/acp"}

func TestApplicationPackagesStayTheApplications(t *testing.T) {
	t.Parallel()
	for _, p := range modulePackages(t) {
		for _, imp := range append(p.imports, p.testImports...) {
			if slices.Contains(appOnly, imp) && p.rel != "app" && p.rel != imp {
				t.Errorf("%s imports %s, which only app may import: it is the application's (ARCHITECTURE.md)", p.rel, imp)
			}
		}
	}
}

// The layer check must see real imports, or it passes by reading nothing.
func TestModulePackagesSeesImports(t *testing.T) {
	t.Parallel()
	for _, p := range modulePackages(t) {
		if p.rel == "agent" {
			if !slices.Contains(p.imports, "tools/chat") || !slices.Contains(p.imports, "hooks") {
				t.Errorf("agent imports %v, want tools/chat and hooks among them", p.imports)
			}
			return
		}
	}
	t.Fatal("package agent not found")
}

// pkg is one package of the module: its directory relative to the root,
// slash-separated ("." for the root), and the module packages its
// non-test files import, the same way.
type pkg struct {
	rel     string
	imports []string
	// testImports are those of its test files (both packages).
	testImports []string
}

func modulePackages(t *testing.T) []pkg {
	t.Helper()
	var out []pkg
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(p, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(p)
		out = append(out, pkg{rel: rel, imports: moduleImports(bp.Imports), testImports: moduleImports(append(bp.TestImports, bp.XTestImports...))})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// moduleImports are the module's packages among imports, relative to the
// module root ("." for the root).
func moduleImports(imports []string) []string {
	var out []string
	for _, imp := range imports {
		switch {
		case imp == module:
			out = append(out, ".")
		case strings.HasPrefix(imp, module+"/"):
			out = append(out, path.Clean(strings.TrimPrefix(imp, module+"/")))
		}
	}
	return out
}
