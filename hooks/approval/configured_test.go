package approval

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	writeTreeTB(t, root, files)
}

func writeTreeTB(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCommandFiles: what configured command lines execute or import.
func TestCommandFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"tools/check.py":       "import json\nfrom helpers import x\nimport os.path as p, sys\n",
		"guardlib/__init__.py": "from guardlib import policy\n",
		"lint.py":              "import textwrap\n",
		"ci.mk":                "include rules.mk\n-include $(HOME)/x.mk\n",
		"Makefile":             "all:\n\ttrue\n",
		"package.json":         `{"scripts": {"lint": "eslint . && node tools/fix.js", "prelint": "sh scripts/pre.sh", "test": "jest"}}`,
		"scripts/lint.sh":      "#!/bin/sh\n",
	})
	in := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	tests := []struct {
		argv        []string
		files, dirs []string // some of what must be there
	}{
		{argv: []string{"python3", "-m", "guardlib"}, files: []string{"guardlib.py"}, dirs: []string{"guardlib"}},
		{argv: []string{"python3", "-m", "py_compile", "{files}"}, files: []string{"py_compile.py"}, dirs: []string{"py_compile"}},
		{argv: []string{"python3.11", "-mguardlib.cli"}, dirs: []string{"guardlib"}},
		{argv: []string{"python3", "-B", "tools/check.py"}, files: []string{"tools/check.py", "tools/json.py", "tools/helpers.py", "tools/os.py", "tools/sys.py"}, dirs: []string{"tools/helpers"}},
		{argv: []string{"python", "lint.py"}, files: []string{"lint.py", "textwrap.py"}},
		{argv: []string{"node", "-r", "x", "scripts/lint.js"}, files: []string{"scripts/lint.js"}},
		{argv: []string{"bash", "-c", "./scripts/lint.sh && python3 -m mylint"}, files: []string{"scripts/lint.sh", "mylint.py"}, dirs: []string{"mylint"}},
		{argv: []string{"sh", "scripts/lint.sh"}, files: []string{"scripts/lint.sh"}},
		{argv: []string{"ruby", "check.rb"}, files: []string{"check.rb"}},
		{argv: []string{"perl", "-I", "lib", "check.pl"}, files: []string{"check.pl"}},
		{argv: []string{"php", "hook.php"}, files: []string{"hook.php"}},
		{argv: []string{"deno", "run", "-A", "hook.ts"}, files: []string{"hook.ts"}},
		{argv: []string{"bun", "hook.ts"}, files: []string{"hook.ts"}},
		{argv: []string{"go", "run", "./cmd/lint"}, files: []string{"go.mod", "go.sum", "go.work"}, dirs: []string{"cmd/lint"}},
		{argv: []string{"go", "run", "golang.org/x/tools/cmd/stringer@latest"}, files: []string{"go.mod"}},
		{argv: []string{"go", "tool", "staticcheck"}, files: []string{"go.mod", "go.sum"}},
		{argv: []string{"make", "-f", "ci.mk", "lint"}, files: []string{"ci.mk", "rules.mk"}},
		{argv: []string{"make", "lint"}, files: []string{"Makefile", "makefile", "GNUmakefile"}},
		{argv: []string{"npx", "eslint", "."}, files: []string{"package.json", "node_modules/.bin/eslint"}, dirs: []string{"node_modules/eslint"}},
		{argv: []string{"npm", "run", "lint"}, files: []string{"package.json", "tools/fix.js", "scripts/pre.sh"}},
		{argv: []string{"env", "FOO=1", "python3", "-m", "m"}, files: []string{"m.py"}, dirs: []string{"m"}},
		{argv: []string{"timeout", "5", "ruby", "x.rb"}, files: []string{"x.rb"}},
		{argv: []string{"uv", "run", "python", "-m", "mylint"}, files: []string{"pyproject.toml", "uv.lock", "mylint.py"}},
		{argv: []string{"bundle", "exec", "rubocop"}, files: []string{"Gemfile", "Gemfile.lock"}},
		{argv: []string{"./hooks/guard", "--config=./guard.toml"}, files: []string{"hooks/guard", "guard.toml"}},
		{argv: []string{"npx", "eslint", "{files}"}, files: []string{"eslint.config.js", "eslint.config.mjs", ".eslintrc.cjs"}},
		{argv: []string{"python3", "-m", "pytest", "-q"}, files: []string{"conftest.py", "pytest.py"}, dirs: []string{"pytest"}},
		{argv: []string{"golangci-lint", "run"}, files: []string{".golangci.yml", ".golangci.yaml"}},
		{argv: []string{"rubocop", "{files}"}, files: []string{".rubocop.yml"}},
		{argv: []string{"mypy", "."}, files: []string{"mypy.ini", "pyproject.toml"}},
	}
	for _, tt := range tests {
		files, dirs := CommandFiles(tt.argv, root)
		for _, f := range tt.files {
			if !slices.Contains(files, in(f)) {
				t.Errorf("%q: files %q lack %s", tt.argv, files, f)
			}
		}
		for _, d := range tt.dirs {
			if !slices.Contains(dirs, in(d)) {
				t.Errorf("%q: dirs %q lack %s", tt.argv, dirs, d)
			}
		}
		if slices.Contains(dirs, root) {
			t.Errorf("%q: the whole workspace is protected", tt.argv)
		}
	}
	files, dirs := ScriptFiles("cd sub; python3 -m guardlib < input.txt", root)
	if !slices.Contains(dirs, in("guardlib")) || !slices.Contains(files, in("guardlib.py")) {
		t.Errorf("script: files %q dirs %q", files, dirs)
	}
}

// TestConfiguredImportsAreProtected: a trusted hook `python3 -m guardlib`
// imports guardlib/policy.py, which the model could rewrite with
// write_file in accept-edits (issue 21 class 6): with the hook's files
// protected, every way of writing them asks, in every mode. With real
// python3, a control shows that the rewritten module is what the hook
// runs.
func TestConfiguredImportsAreProtected(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"guardlib/__init__.py": "",
		"guardlib/__main__.py": "from guardlib import policy\npolicy.check()\n",
		"guardlib/policy.py":   "def check():\n    pass\n",
		"a.py":                 "x = 1\n",
	})
	var pr Protection
	for _, argv := range [][]string{{"python3", "-m", "guardlib"}, {"python3", "-m", "py_compile", "{files}"}} {
		f, d := CommandFiles(argv, root)
		pr.Files, pr.Dirs = append(pr.Files, f...), append(pr.Dirs, d...)
	}
	for _, mode := range []Mode{AcceptEdits, Yolo} {
		p := mustPolicy(t, mode, []string{"edit_file", "write_file"}, nil, WithWorkspace(root), WithProtection(pr))
		for _, call := range []chatCall{
			{fileCall("write_file", "guardlib/policy.py"), "rewrite the imported module"},
			{fileCall("edit_file", "guardlib/__main__.py"), "edit the package's main"},
			{fileCall("write_file", "guardlib/evil.py"), "a new module of the package"},
			{fileCall("write_file", "guardlib.py"), "a module shadowing the package"},
			{fileCall("write_file", "py_compile.py"), "a module shadowing the check's stdlib module"},
			{bashCall("echo 'import os' >> guardlib/policy.py"), "append with bash"},
			{bashCall("cp x.py guardlib/policy.py"), "cp over it"},
		} {
			if got := p.Decide(call.call); got.Action != pause {
				t.Errorf("%s, %s: %s %q, want Pause", mode, call.name, actionNames[got.Action], got.Reason)
			}
		}
		if got := p.Decide(fileCall("write_file", "a.py")); got.Action != cont {
			t.Errorf("%s: an ordinary file: %s %q", mode, actionNames[got.Action], got.Reason)
		}
	}

	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the control run is skipped")
	}
	mark := filepath.Join(t.TempDir(), "ran")
	writeTree(t, root, map[string]string{"guardlib/policy.py": "def check():\n    open(" + strconv.Quote(mark) + ", 'w').close()\n"})
	hook := exec.Command(python, "-m", "guardlib")
	hook.Dir = root
	if out, err := hook.CombinedOutput(); err != nil {
		t.Fatalf("python3 -m guardlib: %v\n%s", err, out)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Error("control: the hook did not run the rewritten guardlib/policy.py")
	}
}
