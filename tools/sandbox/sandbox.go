package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Level is how much of the sandbox the system allows.
type Level int

// The levels, weakest first.
const (
	// LevelNone: no OS sandbox; Start refuses with ErrUnavailable.
	LevelNone Level = iota
	// LevelLandlock: Landlock (and the seccomp filter) without
	// namespaces.
	LevelLandlock
	// LevelFull: user, mount and network namespaces, then Landlock.
	LevelFull
)

func (l Level) String() string {
	switch l {
	case LevelNone:
		return "none"
	case LevelLandlock:
		return "landlock"
	case LevelFull:
		return "full"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Policy is what a sandboxed command may do. Paths are absolute; Start
// resolves their symbolic links.
type Policy struct {
	// Workspace is the workspace root, a directory that exists. It is
	// writable unless ReadOnly.
	Workspace string
	// ReadOnly makes the workspace read-only too (plan mode).
	ReadOnly bool
	// Writable are more writable roots, such as GOCACHE and GOMODCACHE.
	// Missing ones are left out: create them first.
	Writable []string
	// Protected are paths inside writable roots that stay read-only: .git
	// directories at any depth, .tackle, .claude, .mcp.json, the scripts
	// hooks and checks run. At LevelFull existing ones are read-only
	// mounts; at LevelLandlock they stay writable and Process.Changed
	// reports what changed. A missing one can be created at either level
	// (Process.Changed reports it).
	Protected []string
	// Hidden are paths no command may read (secrets: ~/.ssh, ~/.aws,
	// tackle's own config and state …). XDG_RUNTIME_DIR and /run/user/UID
	// are always hidden.
	Hidden []string
	// TempDir is the command's private temporary directory, which must
	// exist and is writable. At LevelFull it is the command's /tmp, and
	// TMPDIR is /tmp; at LevelLandlock TMPDIR names it.
	TempDir string
	// Network leaves the network reachable (and unix sockets usable).
	Network bool
	// MaxLevel is the highest level to use; the zero value means the
	// best the system allows.
	MaxLevel Level
}

// Report says which level the system allows and why not more.
type Report struct {
	Level Level
	// ABI is the kernel's Landlock ABI version, 0 without Landlock.
	ABI int
	// Reasons say why each higher level is not available.
	Reasons []string
	// Limits say what the level does not cover.
	Limits []string
}

func (r Report) String() string {
	s := "sandbox: " + r.Level.String()
	if r.ABI > 0 {
		s += fmt.Sprintf(" (Landlock ABI %d)", r.ABI)
	}
	if len(r.Reasons) > 0 {
		s += "; " + strings.Join(r.Reasons, "; ")
	}
	return s
}

var (
	// ErrUnavailable: the system has no sandbox at the level asked for;
	// the caller falls back to its policy and says so.
	ErrUnavailable = errors.New("no OS sandbox available")
	// ErrLaunch: setting the sandbox up for a command failed; the command
	// did not run.
	ErrLaunch = errors.New("sandbox setup failed")
)

var probeOnce = sync.OnceValue(probe)

// Probe finds, once per process, the best level the system allows: it
// reads the Landlock ABI and sets a sandbox up for a trivial command to
// prove namespaces, mounts and Landlock work together. Safe for
// concurrent use; later calls return the first answer.
func Probe() Report {
	r := probeOnce()
	r.Reasons = slices.Clone(r.Reasons)
	r.Limits = slices.Clone(r.Limits)
	return r
}

// Process is a command started in the sandbox.
type Process struct {
	level  Level
	before snapshot
}

// Level is the level the command runs at.
func (p *Process) Level() Level { return p.level }

// Changed lists the protected paths that changed since the command
// started (call it after cmd.Wait): files written, created, removed,
// renamed or whose mode changed under a protected path at LevelLandlock;
// at either level, protected paths that did not exist and now do, and
// those that are symbolic links (no mount can pin one) and were replaced.
// Another process changing them at the same time shows too.
func (p *Process) Changed() []string {
	return p.before.changed(p.before.again())
}

// Start starts cmd inside the sandbox p describes, at the best level the
// system allows (at most p.MaxLevel), like cmd.Start: cmd's Dir, Env,
// standard streams, ExtraFiles and SysProcAttr (Setsid …) keep their
// meaning, cmd.Process is the command itself, and cmd.Wait reaps it. It
// returns once the command runs inside the sandbox; a failure to set the
// sandbox up is an error wrapping ErrLaunch, and the command did not run.
// Where the system has no sandbox it returns an error wrapping
// ErrUnavailable without starting anything.
func Start(cmd *exec.Cmd, p Policy) (*Process, error) {
	level := levelOf(p)
	if level == LevelNone {
		return nil, fmt.Errorf("start %s: %w (%s)", cmd.Path, ErrUnavailable, Probe())
	}
	return start(cmd, p, level, haveLauncher)
}

// Prepare does ahead of time the part of Start that does not depend on
// the command, for commands of policy p whose standard streams are pipes
// or nothing: on Linux, the Landlock ruleset, which Start takes from the
// rulesets it keeps while nothing they were built from changes. So the
// first command does not list the directories on the way to the hidden
// paths (1–4 ms for a home of a few hundred entries). It waits for the
// probe: call it on a goroutine of its own. It does nothing where Start
// would not sandbox.
func Prepare(p Policy) {
	if level := levelOf(p); level != LevelNone {
		prepare(p, level)
	}
}

// levelOf is the level of a command of policy p: the system's, at most
// p.MaxLevel.
func levelOf(p Policy) Level {
	level := Probe().Level
	if p.MaxLevel != LevelNone && p.MaxLevel < level {
		level = p.MaxLevel
	}
	return level
}

// resolved is a Policy checked and with its paths resolved.
type resolved struct {
	Policy
	writable  []string // the writable roots: workspace (unless read-only), Writable, TempDir
	protected []string // existing protected paths
	missing   []string // protected paths that do not exist, or are symbolic links (which no mount can pin)
	hidden    []string // existing hidden paths, with the defaults
	dir       string   // the command's working directory
}

func resolvePolicy(p Policy, cmdDir string) (resolved, error) {
	r := resolved{Policy: p}
	links := resolver{}
	var err error
	if r.Workspace, err = links.dir("workspace", p.Workspace); err != nil {
		return r, err
	}
	if r.TempDir, err = links.dir("temp dir", p.TempDir); err != nil {
		return r, err
	}
	if !p.ReadOnly {
		r.writable = append(r.writable, r.Workspace)
	}
	r.writable = append(r.writable, r.TempDir)
	for _, w := range p.Writable {
		if w, ok := links.existing(w); ok {
			r.writable = append(r.writable, w)
		}
	}
	for _, pp := range p.Protected {
		if !filepath.IsAbs(pp) {
			return r, fmt.Errorf("protected path %q is not absolute", pp)
		}
		// The path as named is protected: its directory's links are
		// resolved, not its own (a link can be replaced by a file).
		pp = filepath.Clean(pp)
		if dir, ok := links.existing(filepath.Dir(pp)); ok {
			pp = filepath.Join(dir, filepath.Base(pp))
		}
		if fi, err := os.Lstat(pp); err == nil && fi.Mode()&os.ModeSymlink == 0 {
			r.protected = append(r.protected, pp)
		} else {
			r.missing = append(r.missing, pp)
		}
	}
	for _, h := range append(slices.Clone(p.Hidden), defaultHidden()...) {
		if h, ok := links.existing(h); ok && h != "/" {
			r.hidden = append(r.hidden, h)
		}
	}
	r.writable = compact(r.writable)
	r.protected = compact(r.protected)
	r.missing = compact(r.missing)
	r.hidden = compact(r.hidden)
	r.dir = cmdDir
	if r.dir == "" {
		if r.dir, err = os.Getwd(); err != nil {
			return r, fmt.Errorf("working directory: %w", err)
		}
	}
	if r.dir, err = filepath.Abs(r.dir); err != nil {
		return r, fmt.Errorf("working directory: %w", err)
	}
	return r, nil
}

// resolver resolves the symbolic links of absolute paths as
// filepath.EvalSymlinks does, remembering the paths it resolved on the
// way: a policy's paths share most of their directories (forty hidden
// paths in one home), which EvalSymlinks would walk again from the root
// for each, a system call a component.
type resolver map[string]resolution

type resolution struct {
	path string
	ok   bool // it exists
}

// dir resolves the directory path names, what it is for the error.
func (links resolver) dir(what, path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s %q is not an absolute path", what, path)
	}
	r, ok := links.existing(path)
	if !ok {
		_, err := filepath.EvalSymlinks(path) // for its reason
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s %s is not a directory", what, path)
	}
	return r, nil
}

// existing resolves the links of an absolute path that exists.
func (links resolver) existing(path string) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	if path != filepath.Clean(path) {
		// EvalSymlinks applies a ".." after a link to the link's target,
		// not to the link's directory as Clean would.
		r, err := filepath.EvalSymlinks(path)
		return r, err == nil
	}
	if v, ok := links[path]; ok {
		return v.path, v.ok
	}
	v := resolution{path: "/", ok: true}
	if path != "/" {
		v = resolution{}
		if dir, ok := links.existing(filepath.Dir(path)); ok {
			p := filepath.Join(dir, filepath.Base(path))
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				r, err := filepath.EvalSymlinks(p)
				v = resolution{r, err == nil}
			} else if err == nil {
				v = resolution{p, true}
			}
		}
	}
	links[path] = v
	return v.path, v.ok
}

// defaultHidden are hidden whatever the policy says: the user's runtime
// directory, where the session bus, gpg-agent and ssh-agent listen.
func defaultHidden() []string {
	hidden := []string{fmt.Sprintf("/run/user/%d", os.Getuid())}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		hidden = append(hidden, d)
	}
	return hidden
}

func compact(paths []string) []string {
	slices.Sort(paths)
	return slices.Compact(paths)
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// Blocked reports whether a command that failed with err and printed
// output looks as if the sandbox refused it something (a file write or
// read, a connection, a socket): the caller may offer to run it again
// outside the sandbox. A command that succeeded was not blocked.
func Blocked(output string, err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrLaunch) {
		return true
	}
	for _, s := range blockedSigns {
		if strings.Contains(output, s) {
			return true
		}
	}
	return false
}

// blockedSigns are what commands print when the kernel refuses them what
// the sandbox takes away: strerror texts, Go's and Python's forms, and
// what a missing network looks like to common tools.
var blockedSigns = []string{
	"Permission denied",
	"permission denied",
	"Operation not permitted",
	"operation not permitted",
	"Read-only file system",
	"read-only file system",
	"EACCES", "EPERM", "EROFS",
	"Network is unreachable",
	"network is unreachable",
	"Cannot assign requested address",
	"Temporary failure in name resolution",
	"Could not resolve host",
	"Name or service not known",
	"no such host",
	"Address family not supported",
	"Connection refused",
	"connection refused",
}
