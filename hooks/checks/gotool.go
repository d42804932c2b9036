package checks

import (
	"context"
	"fmt"
	"go/build"
	goparser "go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/tools/child"
)

// goTools is the Go toolchain the checks use, found once per session.
type goTools struct {
	once  sync.Once
	goCmd string // absolute path of go; "" if not found
	gofmt string // absolute path of gofmt; "" if not found
	// flags are the user's GOFLAGS (environment and go env file) without
	// any -mod flag; the checks add their own.
	flags []string
	err   error // why go was not found
}

// find locates go on PATH (or Config.Go) and the gofmt of the same
// installation: next to go, else in `go env GOROOT`/bin, else on PATH.
func (g *goTools) find(ctx context.Context, c *Checker) {
	g.once.Do(func() {
		pathEnv := getenv(c.env, "PATH")
		goCmd, err := child.LookPath(orDefault(c.cfg.Go, "go"), pathEnv, c.root)
		if err != nil {
			g.err = err
		} else {
			g.goCmd = goCmd
		}
		var goroot, flags string
		if g.goCmd != "" {
			// GOFLAGS may come from the go env file as well as the
			// environment; go env knows both.
			pr := c.run(ctx, proc{
				argv:    []string{g.goCmd, "env", "GOROOT", "GOFLAGS"},
				dir:     c.root,
				env:     withEnv(c.env, "GOTOOLCHAIN=local", "GOPROXY=off"),
				timeout: gofmtTimeout,
			})
			if pr.err == nil && pr.exit == 0 {
				lines := strings.Split(string(pr.stdout), "\n")
				if len(lines) >= 2 {
					goroot, flags = strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
				}
			} else {
				flags = getenv(c.env, "GOFLAGS")
			}
		}
		for _, f := range strings.Fields(flags) {
			if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "--mod=") {
				g.flags = append(g.flags, f)
			}
		}
		var candidates []string
		if g.goCmd != "" {
			if real, err := filepath.EvalSymlinks(g.goCmd); err == nil {
				candidates = append(candidates, filepath.Join(filepath.Dir(real), "gofmt"))
			}
		}
		if goroot != "" {
			candidates = append(candidates, filepath.Join(goroot, "bin", "gofmt"))
		}
		for _, p := range candidates {
			if child.Executable(p) {
				g.gofmt = p
				return
			}
		}
		if p, err := child.LookPath("gofmt", pathEnv, c.root); err == nil {
			g.gofmt = p
		}
	})
}

// goUnit is one run of a go tool: go vet of one package, or a linter over
// the changed packages of one module.
type goUnit struct {
	dir  string   // absolute directory the tool runs in
	mod  string   // absolute module root; "" for files outside any module
	args []string // package patterns ("./sub", ".") or, outside a module, file names
	// files are the changed workspace files it covers; pkgDirs their
	// workspace directories.
	files   []string
	pkgDirs []string
}

// name says what the unit checks, for messages: "./sub" in module m, or
// the files.
func (u goUnit) name(root string) string {
	where, _ := within(root, u.dir)
	where = filepath.ToSlash(where)
	if u.mod == "" {
		return strings.Join(u.files, " ")
	}
	if len(u.args) == 1 && u.args[0] == "." {
		return where
	}
	if where == "." {
		return strings.Join(u.args, " ")
	}
	return fmt.Sprintf("%s in %s", strings.Join(u.args, " "), where)
}

// goPlan groups the Go files to check by module and package.
type goPlan struct {
	packages []goUnit // one per package
	modules  []goUnit // one per module (or loose package), in the order of packages
}

// moduleUnits returns one unit per module with all its changed packages
// but those in the directories broken (syntax errors), and the files
// left out.
//
// All the packages of a module go to one go command, not one each: go
// vet (Go 1.26) caches the facts-only run it makes of a package that is
// only a dependency under the same key as a full run, without the
// findings, so vetting ./cmd after ./lib in separate commands could
// replay an empty result for ./lib. Within one command a package that is
// named is always vetted in full. The price is that a package that does
// not load stops the whole command; its error is reported and the rest
// is checked in the next round.
func (p goPlan) moduleUnits(broken []string) (units []goUnit, skipped []string) {
	isBroken := func(u goUnit) bool {
		return slices.ContainsFunc(u.pkgDirs, func(d string) bool { return slices.Contains(broken, d) })
	}
	for _, m := range p.modules {
		if m.mod == "" {
			if isBroken(m) {
				skipped = append(skipped, m.files...)
			} else {
				units = append(units, m)
			}
			continue
		}
		u := goUnit{dir: m.dir, mod: m.mod}
		for _, pkg := range p.packages {
			switch {
			case pkg.mod != m.mod:
			case isBroken(pkg):
				skipped = append(skipped, pkg.files...)
			default:
				u.args = append(u.args, pkg.args...)
				u.files = append(u.files, pkg.files...)
				u.pkgDirs = append(u.pkgDirs, pkg.pkgDirs...)
			}
		}
		if len(u.args) > 0 {
			units = append(units, u)
		}
	}
	return units, skipped
}

// planGo groups files (workspace paths of .go files) into packages and
// modules. A file's module is the nearest go.mod at or above it, but not
// above the workspace root; a file with none is checked with the other
// files of its directory that declare the same package and match the
// build constraints (go vet of the file alone would call every name from
// a sibling file undefined); a file its build constraints exclude (a
// //go:build ignore program) is vetted alone.
func (c *Checker) planGo(root *os.Root, files []string) goPlan {
	mods := moduleRoots{ws: root, abs: c.root, known: make(map[string]string)}
	var pkgs, modules unitGroups
	for _, f := range files {
		dir := path.Dir(f)
		mod := mods.of(dir)
		key, unit, ok := c.packageUnit(root, f, mod)
		if !ok {
			continue // no package clause: gofmt reports it
		}
		u := pkgs.get(key, unit)
		u.add(f, dir)
		modKey := mod
		if mod == "" {
			modKey = key
		}
		m := modules.get(modKey, goUnit{dir: u.dir, mod: mod})
		m.add(f, dir, u.args...)
	}
	return goPlan{packages: pkgs.list(), modules: modules.list()}
}

// moduleRoots finds the modules of workspace directories, remembering
// each answer.
type moduleRoots struct {
	ws    *os.Root
	abs   string            // the workspace root's absolute path
	known map[string]string // workspace dir → absolute module root
}

// of returns the absolute root of the module that holds dir (a workspace
// path): the nearest directory at or above it, but not above the
// workspace root, with a go.mod; "" if there is none.
func (m *moduleRoots) of(dir string) string {
	if mod, ok := m.known[dir]; ok {
		return mod
	}
	var mod string
	if fi, err := m.ws.Stat(filepath.Join(filepath.FromSlash(dir), "go.mod")); err == nil && fi.Mode().IsRegular() {
		mod = filepath.Join(m.abs, filepath.FromSlash(dir))
	} else if dir != "." {
		mod = m.of(path.Dir(dir))
	}
	m.known[dir] = mod
	return mod
}

// packageUnit returns the go vet unit for the package of the workspace
// file f in module mod ("" for none), without files, and the key that
// names that package; false when f has no package clause.
func (c *Checker) packageUnit(root *os.Root, f, mod string) (string, goUnit, bool) {
	dir := path.Dir(f)
	abs := filepath.Join(c.root, filepath.FromSlash(dir))
	if mod != "" {
		rel, _ := within(mod, abs)
		pattern := "./" + filepath.ToSlash(rel)
		if rel == "." {
			pattern = "."
		}
		return mod + "\x00" + pattern, goUnit{dir: mod, mod: mod, args: []string{pattern}}, true
	}
	name := packageName(root, f)
	if name == "" {
		return "", goUnit{}, false
	}
	key := abs + "\x00" + name
	u := goUnit{dir: abs, args: c.looseFiles(root, dir, name)}
	if !slices.Contains(u.args, path.Base(f)) {
		// Excluded by its build constraints (a //go:build ignore
		// generator, say): go vet checks a file named on its command
		// line anyway, so vet it alone.
		key += "\x00" + f
		u.args = []string{path.Base(f)}
	}
	return key, u, true
}

// add adds the file f of the workspace directory dir to u, with the args
// u does not have yet.
func (u *goUnit) add(f, dir string, args ...string) {
	u.files = append(u.files, f)
	for _, a := range args {
		if !slices.Contains(u.args, a) {
			u.args = append(u.args, a)
		}
	}
	if !slices.Contains(u.pkgDirs, dir) {
		u.pkgDirs = append(u.pkgDirs, dir)
	}
}

// unitGroups collects units by key, in the order the keys first came.
type unitGroups struct {
	byKey map[string]*goUnit
	order []*goUnit
}

// get returns the unit of key, made from fresh if there is none yet.
func (g *unitGroups) get(key string, fresh goUnit) *goUnit {
	if u, ok := g.byKey[key]; ok {
		return u
	}
	if g.byKey == nil {
		g.byKey = make(map[string]*goUnit)
	}
	u := &fresh
	g.byKey[key] = u
	g.order = append(g.order, u)
	return u
}

// list returns the units in order.
func (g *unitGroups) list() []goUnit {
	var out []goUnit
	for _, u := range g.order {
		out = append(out, *u)
	}
	return out
}

// packageName reads the package clause of the workspace file f.
func packageName(root *os.Root, f string) string {
	src, err := root.ReadFile(filepath.FromSlash(f))
	if err != nil {
		return ""
	}
	af, err := goparser.ParseFile(token.NewFileSet(), "", src, goparser.PackageClauseOnly)
	if err != nil || af.Name == nil {
		return ""
	}
	return af.Name.Name
}

// looseFiles lists the .go files of the workspace directory dir that
// declare package name and match the build constraints (GOOS, GOARCH,
// tags) of this machine, by base name.
func (c *Checker) looseFiles(root *os.Root, dir, name string) []string {
	entries, err := fs.ReadDir(root.FS(), filepath.FromSlash(dir))
	if err != nil {
		return nil
	}
	abs := filepath.Join(c.root, filepath.FromSlash(dir))
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(n, ".go") {
			continue
		}
		if ok, err := build.Default.MatchFile(abs, n); err != nil || !ok {
			continue
		}
		if packageName(root, path.Join(dir, n)) == name {
			out = append(out, n)
		}
	}
	return out
}

// goEnv is the environment of go vet and the Go linters in module mod:
//
//   - GOTOOLCHAIN=local: a go or toolchain line in go.mod never makes go
//     download and run another toolchain;
//   - GOFLAGS gets -mod=readonly (-mod=vendor when the module vendors),
//     replacing any -mod flag: go.mod and go.sum are never rewritten;
//     the user's other GOFLAGS (build tags, -buildvcs) are kept;
//   - GOPROXY=off: nothing is downloaded; a dependency missing from the
//     module cache is reported at once instead of hanging on the network;
//   - GOWORK: the go.work between the module and the workspace root, if
//     there is one, else off — a go.work above the workspace is not the
//     project's;
//   - GO111MODULE=on: module mode, which the grouping above assumes.
func (c *Checker) goEnv(mod string) []string {
	flags := slices.Clone(c.gotools.flags)
	mode := "-mod=readonly"
	if mod != "" {
		if fi, err := os.Stat(filepath.Join(mod, "vendor", "modules.txt")); err == nil && fi.Mode().IsRegular() {
			mode = "-mod=vendor"
		}
	}
	flags = append(flags, mode)
	work := "off"
	if mod != "" {
		for dir := mod; ; dir = filepath.Dir(dir) {
			if fi, err := os.Stat(filepath.Join(dir, "go.work")); err == nil && fi.Mode().IsRegular() {
				work = filepath.Join(dir, "go.work")
				break
			}
			if dir == c.root || filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return withEnv(c.env,
		"GOTOOLCHAIN=local",
		"GOFLAGS="+strings.Join(flags, " "),
		"GOPROXY=off",
		"GOWORK="+work,
		"GO111MODULE=on",
	)
}

// offlineHint is added to the error of a Go tool that needed a module
// that is not in the module cache.
const offlineHint = "a dependency is not in the module cache and checks never download (GOPROXY=off); run `go mod download` in the module"

// readonlyImport matches go's message for an import that no required
// module provides, under -mod=readonly.
var readonlyImport = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^cannot find module providing package (\S+): import lookup disabled by -mod=readonly`)
})

// unitResult is what one go tool run found.
type unitResult struct {
	diags   []Diagnostic
	dropped int    // diagnostics about files not changed in this run
	err     string // the tool could not check the unit; for the user
}

// runGoTool runs argv (a go vet or linter command line, without the
// unit's arguments) on unit u and reads its output. keepTypeErrs keeps
// go vet's type-check errors about unchanged files of the unit's
// packages: a package that does not type-check cannot be vetted at all,
// and the change is the likely cause.
func (c *Checker) runGoTool(ctx context.Context, check string, argv []string, u goUnit, changed []string, continuation, keepTypeErrs bool) unitResult {
	pr := c.run(ctx, proc{
		argv:     append(slices.Clone(argv), u.args...),
		dir:      u.dir,
		env:      c.goEnv(u.mod),
		timeout:  c.cfg.VetTimeout,
		combined: true,
	})
	var res unitResult
	if pr.err != nil {
		res.err = fmt.Sprintf("%s %s: %v", check, u.name(c.root), pr.err)
		return res
	}
	if pr.exit == 0 {
		return res
	}
	p := outputParser{check: check, dir: u.dir, root: c.root, continuation: continuation}.parse(string(pr.stdout))
	offline := false
	for i, d := range p.diags {
		if strings.Contains(d.Message, "disabled by GOPROXY=off") {
			res.err = fmt.Sprintf("%s %s: %s: %s", check, u.name(c.root), offlineHint, firstLine(d.Message))
			offline = true
		}
		if m := readonlyImport().FindStringSubmatch(d.Message); m != nil {
			// The explicit -mod=readonly words it for the flag, not
			// for the fix.
			p.diags[i].Message += "\n\tno module in go.mod provides it; to add one: go get " + m[1]
		}
	}
	if offline {
		// Not the model's to fix: the user has to download.
		return res
	}
	kept, dropped := filterChanged(p.diags, changed, func(i int) bool {
		return keepTypeErrs && p.typeErrs[i] && slices.Contains(u.pkgDirs, path.Dir(p.diags[i].Path))
	})
	res.diags, res.dropped = kept, len(dropped)
	if len(p.diags) == 0 {
		msg := fmt.Sprintf("exit status %d", pr.exit)
		for _, l := range p.other {
			if !strings.HasPrefix(l, "#") {
				msg = l
				break
			}
		}
		res.err = fmt.Sprintf("%s %s: %s", check, u.name(c.root), msg)
	}
	return res
}

// linter is an extra Go linter tackle knows how to run.
type linter struct {
	name string
	argv func(u goUnit) []string
}

// knownLinters are the linters Config.Linters may name.
var knownLinters = map[string]linter{
	"staticcheck": {name: "staticcheck", argv: func(goUnit) []string { return []string{"staticcheck"} }},
	"golangci-lint": {name: "golangci-lint", argv: func(u goUnit) []string {
		argv := []string{"golangci-lint", "run"}
		if inGitRepo(u.dir) {
			// Only what changed since the last commit: the run's
			// edits, not the module's old findings.
			argv = append(argv, "--new-from-rev=HEAD")
		}
		return argv
	}},
}

// LinterNames lists the linters Config.Linters may name.
func LinterNames() []string {
	names := make([]string, 0, len(knownLinters))
	for n := range knownLinters {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// inGitRepo reports whether dir is inside a git work tree (a .git entry
// at or above it).
func inGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
