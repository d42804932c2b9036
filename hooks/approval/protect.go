package approval

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Protected paths are files whose change can make code run later, outside
// the call the user looked at, or that hold secrets: git's own files (a
// .git/config core.fsmonitor line or a .git/hooks script runs on the next
// git command), tackle's config and state (a command hook planted there
// runs on tackle's next start), the hook and check scripts tackle's config
// runs, the project files that run code without the user running it
// (ProjectFiles: editors' project settings, git hook managers' hooks),
// shell startup files, and secret files such as .env.
//
// A write or edit of a protected path asks in every mode — accept-edits,
// with an allow rule such as edit_file(**), and in yolo too — unless an
// allow rule names that exact path (write_file(.git/config), or for bash a
// rule without wildcards that covers the whole command), or protection is
// switched off (Protection.Off, tackle's --dangerously-skip-protection).
// Paths are matched after symbolic links are resolved, by name anywhere
// (.git, .env, .bashrc at any depth) and by absolute path (the config and
// state directories, ~/.gitconfig, ~/.ssh), so a workspace that is $HOME
// or contains the config directory is covered.
//
// Git reads a directory as a repository whatever its name when it holds
// a HEAD file with objects/ and refs/: such a directory in the workspace
// is protected like .git, and so is every file named HEAD (writing one is
// the last step of making such a directory). /etc/gitconfig is protected.
//
// For bash the policy sees the files a command writes where the parser
// can: redirects, the write operands of the commands in commands.go (cp,
// mv, tee, touch, sed -i, dd of=, ln, install, git config, curl -o, go's
// -cpuprofile, sed w, awk's print > …), and any word naming a protected
// path in a command that is not in the table or that writes or runs code.
// A word that expands is judged by what it may expand to (expand.go):
// braces (.git/confi{g,g}), the values the program gives its variables,
// globs by the files they match now and by the protected names they may
// match later (.gi?/config, .[g]it/hooks/pre-commit, .*); a write target
// known only at run time (tee "$X", echo > $(…)) counts as protected.
// Relative paths are judged from every directory the program may cd into;
// a program that cds somewhere that cannot be followed (home, -, outside
// the workspace, a directory known only at run time) and then writes
// asks. It does not see a file written by a program (python -c, a script,
// make).

// Protection says which paths outside the workspace's own names are
// protected and whether protection is on.
type Protection struct {
	// Home is the user's home directory: ~ in bash words, and the home
	// of ~/.gitconfig, ~/.ssh and the shell startup files.
	Home string
	// ConfigDir and StateDir are tackle's configuration and state
	// directories ($XDG_CONFIG_HOME/tackle, $XDG_STATE_HOME/tackle).
	ConfigDir, StateDir string
	// Files are more protected files, by absolute path: the hook and
	// check scripts the configuration runs (CommandFiles).
	Files []string
	// Dirs are more protected directories, with everything in them, by
	// absolute path: the packages configured commands import (python -m
	// MOD's MOD/, see CommandFiles).
	Dirs []string
	// Off switches protection off: protected paths follow the mode and
	// the rules like any other.
	Off bool
}

// WithProtection configures protected paths. Without it, paths are
// protected by name only (.git, .env, .bashrc …).
func WithProtection(pr Protection) Option {
	return func(p *Policy) {
		pr.Files = slices.Clone(pr.Files)
		pr.Dirs = slices.Clone(pr.Dirs)
		p.env.prot = pr
		p.env.shared = &protRoots{}
	}
}

// ProjectFiles are the names, in a project, of the files and directories
// that make code run without the user running it: tackle's and Claude
// Code's project settings, a project's MCP servers, editors' project
// settings (VS Code's tasks run when the folder is opened, its settings
// name the programs extensions start; JetBrains' and dev containers'
// likewise), and git hook managers' hooks and configurations (husky,
// pre-commit, lefthook), which run on the user's next commit. They are
// protected at any depth; the sandbox keeps those at the workspace root
// read-only.
var ProjectFiles = slices.Concat([]string{
	".tackle", ".claude", ".mcp.json",
	".vscode", ".idea", ".devcontainer",
	".husky",
}, hookManagerFiles)

// hookManagerFiles are the configuration files of git hook managers,
// whose commands the hooks they install run.
var hookManagerFiles = []string{
	".huskyrc", ".huskyrc.json", ".pre-commit-config.yaml", ".overcommit.yml", ".simple-git-hooks.json",
	"lefthook.yml", "lefthook.yaml", "lefthook.json", "lefthook.toml", ".lefthook.yml", ".lefthook.yaml",
	".lefthook.json", ".lefthook.toml", "lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yml",
	".lefthook-local.yaml",
}

// shellStartup are the names of shell startup files.
var shellStartup = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".bash_aliases", ".bash_env",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc",
	".login", ".logout", ".xprofile", ".xinitrc", ".xsession", ".inputrc",
}

// secretNames are glob patterns of the base names of secret files.
var secretNames = []string{
	".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", "_netrc", ".npmrc", ".pypirc", ".pgpass",
	".git-credentials", ".htpasswd", ".dockercfg", "credentials", "credentials.json",
}

// protectedName says why a path is protected by its names alone, or "".
// p is slash-separated, relative or absolute.
func protectedName(p string) string {
	comps := strings.Split(strings.ToLower(p), "/")
	for i, c := range comps {
		switch {
		case c == ".git":
			return "git's own files: a change there can make git run commands"
		case c == ".tackle":
			return "tackle's project settings, which can run commands"
		case c == ".claude":
			return "Claude Code's project settings and hook scripts, which can run commands"
		case c == ".vscode" || c == ".idea" || c == ".devcontainer":
			return "an editor's project settings, which can run commands when the project is opened"
		case c == ".husky":
			return "git hook scripts (husky), which run on the next commit"
		case c == "fish" && i+1 < len(comps) && (comps[i+1] == "config.fish" || comps[i+1] == "conf.d" || comps[i+1] == "functions"):
			return "a shell startup file, which runs in every new shell"
		}
	}
	lower := path.Base(strings.ToLower(p))
	if lower == ".mcp.json" {
		return "a project's MCP servers, which run commands"
	}
	if slices.Contains(hookManagerFiles, lower) {
		return "a git hook manager's configuration, whose commands run on the next commit"
	}
	if slices.Contains(shellStartup, lower) {
		return "a shell startup file, which runs in every new shell"
	}
	for _, g := range secretNames {
		if ok, _ := path.Match(g, lower); ok {
			return "a secret file"
		}
	}
	return ""
}

// pathEnv resolves the paths calls name: against the workspace root (or
// the directories a bash program may cd into), with the home directory
// for ~, following symbolic links.
type pathEnv struct {
	root string // the workspace root, symbolic links resolved; "" if unknown
	prot Protection
	// dirs are the directories below the root a bash program may be in
	// when it names a relative path ("." is the root); nil means the root.
	dirs   []string
	shared *protRoots
	// vars gives the values a bash program gives its variables, and
	// dotglob says that its globs may match names starting with a dot
	// (expand.go); both are set for one program (withProgram).
	vars    varLookup
	dotglob bool
}

// withProgram returns the environment for the words of prog.
func (e *pathEnv) withProgram(prog *program) *pathEnv {
	c := *e
	c.vars = prog.vars.lookup(e.prot.Home)
	c.dotglob = prog.globOpts
	return &c
}

// protRoots are the absolute protected paths, resolved once.
type protRoots struct {
	once sync.Once
	abs  []protRoot
}

// in returns the environment for a program that may be in dirs.
func (e *pathEnv) in(dirs []string) *pathEnv {
	c := *e
	c.dirs = dirs
	return &c
}

// bases returns the directories relative paths are taken from.
func (e *pathEnv) bases() []string {
	if len(e.dirs) == 0 {
		return []string{e.root}
	}
	out := make([]string, len(e.dirs))
	for i, d := range e.dirs {
		out[i] = filepath.Join(e.root, filepath.FromSlash(d))
	}
	return out
}

// protRoot is an absolute protected file or directory.
type protRoot struct {
	path string
	dir  bool // and everything below it
	why  string
}

func (e *pathEnv) roots() []protRoot {
	r := e.shared
	r.once.Do(func() {
		add := func(p string, dir bool, why string) {
			if p == "" || !filepath.IsAbs(p) {
				return
			}
			r.abs = append(r.abs, protRoot{path: realPath(filepath.Clean(p)), dir: dir, why: why})
		}
		pr := e.prot
		add(pr.ConfigDir, true, "tackle's configuration: a command hook there runs on tackle's next start")
		add("/etc/gitconfig", false, "git's system configuration, which can make git run commands")
		add(pr.StateDir, true, "tackle's state (sessions and trust)")
		for _, f := range pr.Files {
			add(f, false, "a script tackle's configuration runs as a hook or check")
		}
		for _, d := range pr.Dirs {
			add(d, true, "code a hook or check of tackle's configuration imports")
		}
		if h := pr.Home; h != "" {
			add(filepath.Join(h, ".gitconfig"), false, "git's configuration, which can make git run commands")
			add(filepath.Join(h, ".config", "git"), true, "git's configuration, which can make git run commands")
			add(filepath.Join(h, ".ssh"), true, "ssh keys and configuration")
			add(filepath.Join(h, ".config", "tackle"), true, "tackle's configuration: a command hook there runs on tackle's next start")
		}
	})
	return r.abs
}

// protected says why the file at abs (absolute, resolved) is protected,
// or "".
func (e *pathEnv) protected(abs string) string {
	if e.prot.Off {
		return ""
	}
	for _, r := range e.roots() {
		if abs == r.path || r.dir && strings.HasPrefix(abs, r.path+string(filepath.Separator)) {
			return r.why
		}
	}
	p := filepath.ToSlash(abs)
	if e.root != "" {
		if rel, ok := e.rel(abs); ok {
			p = rel // the workspace's own path above it does not count
		}
	}
	if why := protectedName(p); why != "" {
		return why
	}
	return e.inGitDir(abs)
}

// Git takes a directory for a repository, whatever its name, when it
// holds a HEAD file (with objects/ and refs/, or a commondir file): its
// config and hooks then run on git commands there, as .git's do. So a
// HEAD file is protected (writing one is the last step of making such a
// directory, whatever the order of the others), and so is everything in
// a directory with one, in the workspace.

const whyGitDir = "a directory git takes for a repository (it has a HEAD file): its config and hooks can make git run commands"

// inGitDir says why abs is in (or is) a directory of the workspace that
// git takes for a repository, or is a HEAD file; "" if not.
func (e *pathEnv) inGitDir(abs string) string {
	base := filepath.Base(abs)
	if base == "HEAD" || foldCase && strings.EqualFold(base, "HEAD") {
		return "a HEAD file, which makes its directory a git repository whose config and hooks can make git run commands"
	}
	if e.root == "" {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, ok := e.rel(d); !ok {
			return ""
		}
		if hasHEAD(d) {
			return whyGitDir
		}
		if d == e.root {
			return ""
		}
	}
}

// hasHEAD reports a directory holding a HEAD file.
func hasHEAD(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// gitDirShaped reports a directory git would take for a repository: a
// HEAD file and objects/ and refs/, or a HEAD and a commondir file (a
// linked worktree's).
func gitDirShaped(dir string) bool {
	if !hasHEAD(dir) {
		return false
	}
	if fi, err := os.Stat(filepath.Join(dir, "commondir")); err == nil && fi.Mode().IsRegular() {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// foreignGitDir says which directory a git command run in dir would take
// for a repository that is not a .git directory, looking from dir up to
// the workspace root, or "".
func (e *pathEnv) foreignGitDir(dir string) string {
	if e.root == "" {
		return ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, ok := e.rel(d); !ok {
			return ""
		}
		if filepath.Base(d) != ".git" && gitDirShaped(d) {
			return d
		}
		if d == e.root {
			return ""
		}
	}
}

// rel returns abs relative to the workspace root, slash-separated, when
// it is inside.
func (e *pathEnv) rel(abs string) (string, bool) {
	if e.root == "" {
		return "", false
	}
	r, err := filepath.Rel(e.root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// locate returns the absolute, resolved paths a word names now (see
// targets).
func (e *pathEnv) locate(w word) []string { return e.targets(w).paths }

// wordTargets is what a word may name as a path.
type wordTargets struct {
	// paths are absolute and resolved: the word's value, every value it
	// may expand to, the files its globs match now, and a glob's own
	// text (what bash passes on when nothing matches).
	paths []string
	// patterns are the word's globs as absolute patterns: a file made
	// later (by an earlier command of the program) may match them.
	patterns []string
	// unknown: part of the word is known only at run time; it may name
	// any path.
	unknown bool
}

// targets works out what a word may name: one path per directory the
// program may be in, for each value it may expand to (expand.go).
func (e *pathEnv) targets(w word) (t wordTargets) {
	exps, unknown := expandWord(w, e.vars, e.prot.Home)
	if unknown {
		return wordTargets{unknown: true}
	}
	add := func(p string) {
		if !slices.Contains(t.paths, p) {
			t.paths = append(t.paths, p)
		}
	}
	for _, x := range exps {
		if x.lit == "" {
			continue
		}
		for _, p := range e.locateStatic(x.lit) {
			add(p)
		}
		if !x.glob {
			continue
		}
		if e.dotglob && strings.Contains(x.pattern, "**") {
			return wordTargets{unknown: true} // shopt -s globstar: ** crosses directories
		}
		pattern := filepath.FromSlash(x.pattern)
		var abs []string
		switch {
		case filepath.IsAbs(pattern):
			abs = []string{pattern}
		case e.root == "":
			t.patterns = append(t.patterns, x.pattern) // judged by name only
			continue
		default:
			for _, b := range e.bases() {
				abs = append(abs, filepath.Join(escapeGlob(b, "*?[\\"), pattern))
			}
		}
		for _, pat := range abs {
			matches, ok := globFS(pat, e.dotglob)
			if !ok {
				return wordTargets{unknown: true}
			}
			for _, m := range matches {
				add(realPath(m))
			}
			if !slices.Contains(t.patterns, pat) {
				t.patterns = append(t.patterns, pat)
			}
		}
	}
	return t
}

// locateStatic returns the absolute, resolved paths a path names: one per
// directory the program may be in, for a relative path.
func (e *pathEnv) locateStatic(s string) []string {
	if s == "" {
		return nil
	}
	p := filepath.FromSlash(s)
	if filepath.IsAbs(p) || e.root == "" {
		return []string{e.absPath(s)}
	}
	var out []string
	for _, b := range e.bases() {
		if a := realPath(filepath.Join(b, p)); !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// wordOutside says how a word known only at run time may name a path
// outside the workspace, or unknown when it may be anything.
func (e *pathEnv) wordOutside(w word) (why string, unknown bool) {
	exps, unknown := expandWord(w, e.vars, e.prot.Home)
	if unknown {
		return "", true
	}
	for _, x := range exps {
		for _, cand := range pathCandidates(x.lit) {
			if why := e.outside(cand); why != "" {
				return why, false
			}
		}
		if !x.glob {
			continue
		}
		for _, c := range strings.Split(x.pattern, "/") {
			if hasMetaComp(c) && globMayMatch(c, "..") {
				return "a glob that may match ..", false
			}
		}
	}
	t := e.targets(w)
	if t.unknown {
		return "", true
	}
	for _, p := range t.paths {
		if _, ok := e.rel(p); e.root != "" && !ok && !harmlessSinks[p] {
			return "a glob matching a path outside the workspace", false
		}
	}
	return "", false
}

// protectedTarget says why what a word names may be a protected path, or
// "". A word known only at run time counts as protected when anyUnknown.
func (e *pathEnv) protectedTarget(w word, anyUnknown bool) string {
	if e.prot.Off {
		return ""
	}
	t := e.targets(w)
	if t.unknown {
		if anyUnknown {
			return "it is known only at run time and may name a protected path"
		}
		return ""
	}
	for _, abs := range t.paths {
		if why := e.protected(abs); why != "" {
			return why
		}
	}
	for _, pat := range t.patterns {
		if why := e.patternProtected(pat); why != "" {
			return why
		}
	}
	return ""
}

// protectedNames are the names protectedName knows that a glob written
// before the file exists may match (secret files are judged by the files
// that exist).
func protectedNames() []string {
	names := slices.Concat([]string{".git"}, ProjectFiles, shellStartup)
	// A name without a leading dot (lefthook.yml) would make every * ask:
	// a glob is judged by the files it matches now, which covers those.
	return slices.DeleteFunc(names, func(n string) bool { return !strings.HasPrefix(n, ".") })
}

// patternProtected says why a glob (absolute, or relative when there is
// no workspace root) may match a protected path made later, or "".
func (e *pathEnv) patternProtected(pattern string) string {
	comps := strings.Split(filepath.ToSlash(pattern), "/")
	for _, r := range e.roots() {
		rc := strings.Split(filepath.ToSlash(r.path), "/")
		if len(comps) < len(rc) || !r.dir && len(comps) != len(rc) {
			continue
		}
		match := true
		for i := range rc {
			match = match && globMayMatch(comps[i], rc[i])
		}
		if match {
			return r.why
		}
	}
	if e.root != "" {
		rootComps := len(strings.Split(filepath.ToSlash(e.root), "/"))
		if len(comps) >= rootComps {
			comps = comps[rootComps:] // the workspace's own path does not count
		}
	}
	for _, c := range comps {
		if !hasMetaComp(c) {
			continue
		}
		for _, name := range protectedNames() {
			if globMatch(strings.ToLower(c), name, e.dotglob) {
				return protectedName(name)
			}
		}
	}
	return ""
}

// dirRel returns the directory p (relative to the root, slash-separated,
// or absolute) relative to the root with symbolic links resolved, when it
// is inside the workspace.
func (e *pathEnv) dirRel(p string) (string, bool) {
	if e.root == "" {
		c := path.Clean(p)
		if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
			return "", false
		}
		return c, true
	}
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.root, abs)
	}
	abs = filepath.Clean(abs)
	if _, ok := e.rel(abs); !ok {
		return "", false
	}
	return e.rel(realPath(abs))
}

// absPath makes a path absolute against the workspace root and resolves
// its symbolic links.
func (e *pathEnv) absPath(s string) string {
	p := filepath.FromSlash(s)
	if !filepath.IsAbs(p) {
		if e.root == "" {
			return filepath.Clean(p) // no root: judged lexically
		}
		p = filepath.Join(e.root, p)
	}
	return realPath(filepath.Clean(p))
}

// outside says how a word that may be a path leads outside the
// workspace, or "" when it does not (or cannot be a path there). A
// relative path is judged from every directory the program may be in.
func (e *pathEnv) outside(s string) string {
	if harmlessSinks[s] || s == "/dev/stdin" || s == "-" {
		return ""
	}
	if e.root == "" {
		for _, d := range append([]string{"."}, e.dirs...) {
			c := path.Clean(path.Join(d, s))
			if path.IsAbs(s) || c == ".." || strings.HasPrefix(c, "../") {
				return "outside the workspace"
			}
		}
		return ""
	}
	p := filepath.FromSlash(s)
	cands := []string{p}
	if !filepath.IsAbs(p) {
		cands = cands[:0]
		for _, b := range e.bases() {
			cands = append(cands, filepath.Join(b, p))
		}
	}
	for _, c := range cands {
		c = filepath.Clean(c)
		if _, ok := e.rel(c); !ok {
			return "outside the workspace"
		}
		if _, ok := e.rel(realPath(c)); !ok {
			return "a symbolic link out of the workspace"
		}
	}
	return ""
}

// realPath resolves the symbolic links of the longest existing part of p
// (absolute, clean) and appends the rest: the file a write would reach,
// even one that does not exist yet, or one a dangling link points to.
func realPath(p string) string { return realPathN(p, 0) }

func realPathN(p string, depth int) string {
	var rest []string
	cur := p
	for i := 0; i < 256; i++ {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrInvalid) {
			return p // a loop or a permission problem: keep the path as written
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < maxLinkHops {
			// A dangling link: a write through it creates its target.
			if t, rerr := os.Readlink(cur); rerr == nil {
				if !filepath.IsAbs(t) {
					t = filepath.Join(filepath.Dir(cur), t)
				}
				return realPathN(filepath.Join(append([]string{filepath.Clean(t)}, rest...)...), depth+1)
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
	return p
}

// maxLinkHops bounds the dangling links realPath follows.
const maxLinkHops = 40
