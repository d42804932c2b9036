package approval

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Configured commands (command hooks, hook servers, check commands, MCP
// servers) run outside any approval, often as the user's trusted code.
// What they execute or import from files the model can write must be a
// protected path, or the model could run code through them unasked
// (issue 21 class 6: a check `python3 -m py_compile {files}` imported a
// py_compile.py the model wrote; a hook `python3 -m guardlib` imported a
// rewritten guardlib/policy.py). CommandFiles works out those files for
// one command line; the caller adds them to Protection.Files and
// Protection.Dirs.
//
// It knows: every word that is a path (it has a /, or names a file where
// the command runs); the configuration files well-known linters and test
// runners load code from (toolConfigs); interpreters' script operands (python, node, deno,
// bun, ruby, perl, php, sh, bash …) and python -m MOD (MOD.py and the
// package directory MOD/ where it runs), with the top-level modules a
// Python script or module imports where it lives (a stdlib name included:
// a file of that name would shadow it); sh -c and bash -c programs; go
// run PKG and go tool (the package and go.mod, go.sum, go.work); make
// (the makefile and what it includes); npx X, npm/pnpm/yarn/bun run S
// (package.json, the package X, and what script S runs); uv run, poetry
// run and bundle exec (their project files) and wrappers (env, timeout,
// nice, nohup). It cannot follow what those programs import in turn
// (node_modules, a virtual environment, a package's own imports);
// protecting the entry points and running the checks with
// PYTHONSAFEPATH=1 (hooks/checks) are what it gives.

// maxScriptDepth bounds how deeply command lines in command lines (sh -c,
// package.json scripts) are followed.
const maxScriptDepth = 4

// CommandFiles returns the files and directories (absolute, cleaned) that
// the command argv, run in dir, executes or imports, whether they exist
// or not (the model must not be able to create them either).
func CommandFiles(argv []string, dir string) (files, dirs []string) {
	var c collector
	c.command(argv, dir, 0)
	return c.files, c.dirs
}

// ScriptFiles is CommandFiles for each simple command of a shell program
// (a command hook given as a script), run in dir.
func ScriptFiles(script, dir string) (files, dirs []string) {
	var c collector
	c.script(script, dir, 0)
	return c.files, c.dirs
}

type collector struct {
	files, dirs []string
	// code keeps only what the commands execute or import: not every
	// other word that names a path (CommandCode).
	code bool
}

// CommandCode is CommandFiles without the other paths the command names
// (a log it appends to, a file it reads as data): only the files and
// directories it executes or imports — what must stay as it was for the
// command to do what it did (child.Pins).
func CommandCode(argv []string, dir string) (files, dirs []string) {
	c := collector{code: true}
	c.command(argv, dir, 0)
	return c.files, c.dirs
}

// ScriptCode is CommandCode for each simple command of a shell program.
func ScriptCode(script, dir string) (files, dirs []string) {
	c := collector{code: true}
	c.script(script, dir, 0)
	return c.files, c.dirs
}

func (c *collector) file(p string) {
	if p = filepath.Clean(p); !slices.Contains(c.files, p) {
		c.files = append(c.files, p)
	}
}

func (c *collector) dir(p string) {
	if p = filepath.Clean(p); !slices.Contains(c.dirs, p) {
		c.dirs = append(c.dirs, p)
	}
}

func abs(p, dir string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// script follows every simple command of a shell program.
func (c *collector) script(src, dir string, depth int) {
	if depth > maxScriptDepth {
		return
	}
	prog := analyzeShell(src)
	if prog.err != nil {
		// What cannot be parsed is read as words.
		c.words(strings.Fields(src), dir)
		return
	}
	for _, list := range [][]*command{prog.cmds, prog.guesses} {
		for _, cmd := range list {
			var argv []string
			for _, w := range cmd.args() {
				if w.static {
					argv = append(argv, w.text)
				} else {
					argv = append(argv, strings.Trim(w.tmpl, `'"`))
				}
			}
			c.command(argv, dir, depth+1)
		}
	}
	for _, rd := range prog.redirs {
		if !rd.write && rd.w.static {
			c.pathWord(rd.w.text, dir) // sh < script.sh
		}
	}
}

// words adds every word that is a path: one with a slash, or the name of
// a file in dir (not a program found on PATH).
func (c *collector) words(words []string, dir string) {
	for _, w := range words {
		c.pathWord(w, dir)
	}
}

func (c *collector) pathWord(w, dir string) {
	w = strings.Trim(w, `'"`)
	if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$`") {
		if k, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(k, "-") && v != "" {
			c.pathWord(v, dir) // --config=./x
		}
		return
	}
	p := abs(w, dir)
	if !strings.Contains(w, "/") {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return
		}
	}
	c.file(p)
}

// versioned strips a version from an interpreter's name: python3.12 →
// python3 → python.
var versioned = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z]+?)[0-9.]*$`) })

// toolConfigs are the files in the directory they run in that well-known
// linters and test runners load code from: JavaScript configuration
// files, pytest's conftest.py, the plugins mypy, pylint, rubocop and
// golangci-lint configurations name.
func toolConfigs(name string) []string {
	js := func(stems ...string) []string {
		var out []string
		for _, s := range stems {
			for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"} {
				out = append(out, s+ext)
			}
		}
		return out
	}
	switch name {
	case "eslint":
		return append(js("eslint.config", ".eslintrc"), "package.json")
	case "prettier":
		return append(js("prettier.config", ".prettierrc"), "package.json")
	case "jest":
		return append(js("jest.config"), "package.json")
	case "vitest":
		return js("vitest.config", "vite.config")
	case "stylelint":
		return append(js("stylelint.config", ".stylelintrc"), "package.json")
	case "pytest", "py.test":
		return []string{"conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"}
	case "mypy", "dmypy":
		return []string{"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"}
	case "pylint":
		return []string{".pylintrc", "pylintrc", "pyproject.toml", "setup.cfg"}
	case "rubocop":
		return []string{".rubocop.yml"}
	case "golangci-lint":
		return []string{".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"}
	}
	return nil
}

func (c *collector) command(argv []string, dir string, depth int) {
	if len(argv) == 0 || depth > maxScriptDepth {
		return
	}
	if c.code {
		c.pathWord(argv[0], dir) // the program itself, when it is a file
	} else {
		c.words(argv, dir)
	}
	name := filepath.Base(argv[0])
	base := versioned().ReplaceAllString(name, "$1")
	args := argv[1:]
	for _, f := range toolConfigs(name) {
		c.file(filepath.Join(dir, f))
	}
	switch base {
	case "env":
		i := 0
		for i < len(args) && (strings.HasPrefix(args[i], "-") || strings.Contains(args[i], "=")) {
			i++
		}
		c.command(args[i:], dir, depth+1)
	case "timeout":
		i := skipOptions(args, "sk")
		if i < len(args) {
			c.command(args[i+1:], dir, depth+1)
		}
	case "nice", "nohup", "exec", "command", "time", "stdbuf":
		c.command(args[skipOptions(args, "n"):], dir, depth+1)
	case "python", "pypy":
		c.python(args, dir)
		if i := slices.Index(args, "-m"); i >= 0 && i+1 < len(args) {
			for _, f := range toolConfigs(args[i+1]) { // python3 -m pytest
				c.file(filepath.Join(dir, f))
			}
		}
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish":
		for i, a := range args {
			if a == "-c" && i+1 < len(args) {
				c.script(args[i+1], dir, depth+1)
				return
			}
		}
		if i := skipOptions(args, "o"); i < len(args) {
			c.file(abs(args[i], dir))
		}
	case "node", "nodejs", "ruby", "perl", "php", "lua", "luajit", "Rscript", "tclsh":
		if i := skipOptions(args, interpreterArgs(base)); i < len(args) {
			c.file(abs(args[i], dir))
		}
	case "deno", "bun":
		c.jsRuntime(base, args, dir, depth)
	case "go":
		c.goCommand(args, dir)
	case "make", "gmake":
		c.makefiles(args, dir)
	case "npx", "bunx", "pnpx":
		c.file(filepath.Join(dir, "package.json"))
		if i := skipOptions(args, "p"); i < len(args) {
			pkg := args[i]
			c.file(filepath.Join(dir, "node_modules", ".bin", pkg))
			c.dir(filepath.Join(dir, "node_modules", pkg))
			for _, f := range toolConfigs(pkg) {
				c.file(filepath.Join(dir, f))
			}
		}
	case "npm", "pnpm", "yarn":
		c.packageScript(args, dir, depth)
	case "uv", "poetry", "pipenv", "pdm", "hatch":
		for _, f := range []string{"pyproject.toml", "uv.lock", "poetry.lock", "Pipfile", "Pipfile.lock", "pdm.lock"} {
			c.file(filepath.Join(dir, f))
		}
		if i := slices.Index(args, "run"); i >= 0 {
			rest := args[i+1:]
			c.command(rest[skipOptions(rest, ""):], dir, depth+1)
		}
	case "bundle":
		c.file(filepath.Join(dir, "Gemfile"))
		c.file(filepath.Join(dir, "Gemfile.lock"))
		if i := slices.Index(args, "exec"); i >= 0 {
			c.command(args[i+1:], dir, depth+1)
		}
	}
}

// interpreterArgs returns the options of interpreters that take a value, so
// that the value is not taken for the script.
func interpreterArgs(name string) string {
	switch name {
	case "node", "nodejs":
		return "r"
	case "ruby":
		return "rIC"
	case "perl":
		return "IMm"
	case "php":
		return "cdz"
	case "lua", "luajit":
		return "l"
	}
	return ""
}

// skipOptions returns the index of the first operand of args, whose
// short options in withValue take a value (the next word when not
// attached).
func skipOptions(args []string, withValue string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i + 1
		case len(a) < 2 || a[0] != '-':
			return i
		case !strings.HasPrefix(a, "--") && len(a) == 2 && strings.Contains(withValue, a[1:]):
			i++
		}
	}
	return len(args)
}

// python: -m MOD imports the top-level package MOD from dir (first on its
// path); a script's directory is first on the path of what it imports.
func (c *collector) python(args []string, dir string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c":
			return // code on the command line: the checks' PYTHONSAFEPATH=1 keeps dir off the path
		case a == "-m" && i+1 < len(args) || strings.HasPrefix(a, "-m") && len(a) > 2:
			mod := strings.TrimPrefix(a, "-m")
			if mod == "" {
				mod = args[i+1]
			}
			c.pythonModule(strings.SplitN(mod, ".", 2)[0], dir)
			return
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			script := abs(a, dir)
			c.file(script)
			c.pythonImports(script, filepath.Dir(script))
			return
		}
	}
}

// pythonModule protects the module or package top in dir, and what a
// module file imports from dir.
func (c *collector) pythonModule(top, dir string) {
	if top == "" || strings.ContainsAny(top, "/\\") {
		return
	}
	c.file(filepath.Join(dir, top+".py"))
	c.dir(filepath.Join(dir, top))
	c.pythonImports(filepath.Join(dir, top+".py"), dir)
	c.pythonImports(filepath.Join(dir, top, "__init__.py"), dir)
	c.pythonImports(filepath.Join(dir, top, "__main__.py"), dir)
}

var pyImport = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:from\s+([A-Za-z_][A-Za-z0-9_]*)|import\s+([A-Za-z_][A-Za-z0-9_., \t]*))`)
})

// pythonImports protects, for each top-level module the Python file f
// imports, the file and package of that name in dir: an existing one is
// what it imports, and a new one would shadow the module it means.
func (c *collector) pythonImports(f, dir string) {
	b, err := os.ReadFile(f)
	if err != nil || len(b) > 1<<20 {
		return
	}
	for _, m := range pyImport().FindAllStringSubmatch(string(b), -1) {
		names := []string{m[1]}
		if m[2] != "" {
			names = nil
			for _, part := range strings.Split(m[2], ",") {
				fields := strings.Fields(part) // import a.b as c
				if len(fields) > 0 {
					names = append(names, strings.SplitN(fields[0], ".", 2)[0])
				}
			}
		}
		for _, n := range names {
			if n != "" && n != "__future__" {
				c.file(filepath.Join(dir, n+".py"))
				c.dir(filepath.Join(dir, n))
			}
		}
	}
}

// jsRuntime: deno run X, bun run X or bun X run the file X; bun run S
// may be a package.json script.
func (c *collector) jsRuntime(name string, args []string, dir string, depth int) {
	i := skipOptions(args, "")
	if i < len(args) && (args[i] == "run" || args[i] == "x") {
		i++
		i += skipOptions(args[i:], "")
	}
	if i >= len(args) {
		return
	}
	target := args[i]
	if name == "bun" && !strings.ContainsAny(target, "./") {
		c.packageScript(append([]string{"run"}, args[i:]...), dir, depth)
		return
	}
	c.file(abs(target, dir))
}

// goCommand: go run and go tool build and run code from the module: the
// package (unless it is the whole directory), go.mod, go.sum, go.work.
func (c *collector) goCommand(args []string, dir string) {
	if len(args) == 0 {
		return
	}
	switch args[0] {
	case "run", "tool", "generate", "test", "build", "vet":
	default:
		return
	}
	for _, f := range []string{"go.mod", "go.sum", "go.work", "go.work.sum"} {
		c.file(filepath.Join(dir, f))
	}
	if args[0] != "run" {
		return
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if strings.Contains(a, "@") || !(strings.HasPrefix(a, ".") || filepath.IsAbs(a)) {
			return // a module version, or an import path outside dir
		}
		if p := abs(a, dir); p != filepath.Clean(dir) {
			if strings.HasSuffix(a, ".go") {
				c.file(p)
			} else {
				c.dir(p)
			}
		}
		return
	}
}

var makeInclude = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*-?s?include\s+(.+)$`) })

// makefiles: make runs the recipes of its makefile (-f, else the default
// names in -C's directory or dir) and of the files it includes.
func (c *collector) makefiles(args []string, dir string) {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(args):
			files = append(files, args[i+1])
			i++
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			files = append(files, a[2:])
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			_, v, _ := strings.Cut(a, "=")
			files = append(files, v)
		case (a == "-C" || a == "--directory") && i+1 < len(args):
			dir = abs(args[i+1], dir)
			i++
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			dir = abs(a[2:], dir)
		}
	}
	if len(files) == 0 {
		files = []string{"GNUmakefile", "makefile", "Makefile"}
	}
	for _, f := range files {
		p := abs(f, dir)
		c.file(p)
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 1<<20 {
			continue
		}
		for _, m := range makeInclude().FindAllStringSubmatch(string(b), -1) {
			for _, inc := range strings.Fields(m[1]) {
				if !strings.ContainsAny(inc, "$(*?") {
					c.file(abs(inc, dir))
				}
			}
		}
	}
}

// packageScript: npm run S (npm test, npm start …), pnpm S, yarn S run
// the script S of package.json, with node_modules/.bin on PATH.
func (c *collector) packageScript(args []string, dir string, depth int) {
	pkg := filepath.Join(dir, "package.json")
	c.file(pkg)
	i := skipOptions(args, "")
	if i >= len(args) {
		return
	}
	script := args[i]
	switch script {
	case "run", "run-script", "exec":
		i++
		i += skipOptions(args[i:], "")
		if i >= len(args) {
			return
		}
		script = args[i]
	case "t", "tst":
		script = "test"
	}
	b, err := os.ReadFile(pkg)
	if err != nil {
		return
	}
	var p struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &p) != nil {
		return
	}
	for _, s := range []string{"pre" + script, script, "post" + script} {
		if body, ok := p.Scripts[s]; ok {
			c.script(body, dir, depth+1)
			// A bare program name is one of node_modules/.bin first.
			if fields := strings.Fields(body); len(fields) > 0 {
				if w := fields[0]; !strings.ContainsAny(w, "/$=-'\"") && path.Base(w) == w {
					c.file(filepath.Join(dir, "node_modules", ".bin", w))
				}
			}
		}
	}
}
