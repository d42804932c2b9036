package checks

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGoEnv(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"plain/go.mod":                goMod,
		"vendored/go.mod":             goMod,
		"vendored/vendor/modules.txt": "",
		"work/go.work":                "go 1.22\n\nuse ./m\n",
		"work/m/go.mod":               goMod,
	}, Config{Env: []string{
		"PATH=" + filepath.Dir(goBinary(t)),
		"HOME=" + os.Getenv("HOME"),
		"GOFLAGS=-mod=mod -tags=integration",
		"GOPROXY=https://proxy.golang.org",
		"GOTOOLCHAIN=auto",
		"OPENAI_API_KEY=sk-secret",
		"GITHUB_TOKEN=ghp_secret",
	}})
	f.c.gotools.find(context.Background(), f.c)
	if f.c.gotools.goCmd == "" || f.c.gotools.gofmt == "" {
		t.Fatalf("go tools = %+v", &f.c.gotools)
	}
	for mod, want := range map[string][]string{
		"plain":    {"GOFLAGS=-tags=integration -mod=readonly", "GOWORK=off"},
		"vendored": {"GOFLAGS=-tags=integration -mod=vendor", "GOWORK=off"},
		"work/m":   {"GOWORK=" + filepath.Join(f.dir, "work", "go.work")},
		"":         {"GOFLAGS=-tags=integration -mod=readonly", "GOWORK=off"},
	} {
		abs := ""
		if mod != "" {
			abs = filepath.Join(f.dir, mod)
		}
		env := f.c.goEnv(abs)
		for _, w := range append(want, "GOTOOLCHAIN=local", "GOPROXY=off", "GO111MODULE=on") {
			if !slices.Contains(env, w) {
				t.Errorf("env of %q lacks %s: %q", mod, w, env)
			}
		}
		for _, kv := range env {
			if strings.Contains(kv, "secret") || strings.HasPrefix(kv, "GOTOOLCHAIN=auto") || strings.HasPrefix(kv, "GOPROXY=https") {
				t.Errorf("env of %q has %s", mod, kv)
			}
		}
	}
}

func TestVendorIsFormattedButNotVetted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"go.mod":                    goMod,
		"vendor/modules.txt":        "",
		"vendor/example.com/v/v.go": "package v\nimport \"fmt\"\nfunc F() { fmt.Printf(\"%d\", \"x\") }\n",
	}, Config{})
	r := f.check("vendor/example.com/v/v.go")
	if len(r.Diagnostics) != 0 || !slices.Equal(r.Formatted, []string{"vendor/example.com/v/v.go"}) || !slices.Equal(r.Checks, []string{"gofmt"}) {
		t.Errorf("result = %+v", r)
	}
}
