package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/sandbox"
)

// hiddenSecrets are the paths below the home directory that hold the
// user's secrets: no command in the sandbox reads them. Tackle's own
// configuration and state are added to them (sandboxPolicy).
var hiddenSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json",
	".config/gh", ".config/hub", ".config/gcloud", ".config/op", ".config/git/credentials",
	".netrc", ".git-credentials", ".npmrc", ".yarnrc", ".pypirc", ".pgpass", ".my.cnf",
	".cargo/credentials", ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json",
	".gem/credentials", ".local/share/keyrings", ".password-store", ".vault-token",
	".claude", ".claude.json", ".codex", ".config/claude",
	".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".python_history", ".psql_history", ".mysql_history",
}

// sandboxed is the harness's sandbox: the sandbox, what the probe found,
// and its private temporary directory.
type sandboxed struct {
	sb     *tools.Sandbox
	report sandbox.Report
	off    bool   // --sandbox off
	tmp    string // removed by close
}

// newSandbox makes the sandbox of the commands tackle runs for the model
// (bash, !cmd, the turn-end checks, tackle's own git status): the
// workspace writable (read-only in plan mode, which policy's mode says),
// a private temp dir, the sandbox's own Go build cache and what the user
// config adds writable; the workspace's git directories, tackle's project
// files and the scripts configured commands run read-only; the user's
// secrets and tackle's config and state unreadable; no network unless
// configured. Where the system has no sandbox, sb is nil and the report
// says why.
func newSandbox(st Settings, root string, env environ, prot approval.Protection, policy func() *approval.Policy) (*sandboxed, error) {
	if st.Sandbox == "off" {
		return &sandboxed{off: true}, nil
	}
	tmp, err := os.MkdirTemp("", "tackle-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox temp dir: %w", err)
	}
	p := sandbox.Policy{Workspace: root, TempDir: tmp, Network: st.SandboxNet}
	var extraEnv []string
	if cache, err := sandboxGoCache(env); err == nil {
		p.Writable = append(p.Writable, cache)
		extraEnv = append(extraEnv, "GOCACHE="+cache)
	}
	home := env.get("HOME")
	for _, w := range st.User.SandboxWritable {
		p.Writable = append(p.Writable, expandHome(w, home))
	}
	if home != "" {
		for _, h := range hiddenSecrets {
			p.Hidden = append(p.Hidden, filepath.Join(home, h))
		}
	}
	p.Hidden = append(p.Hidden, prot.ConfigDir, prot.StateDir)
	for _, h := range st.User.SandboxHidden {
		p.Hidden = append(p.Hidden, expandHome(h, home))
	}
	// The project files at the workspace root stay read-only (its git
	// directories are found apart: tools.Repositories).
	for _, name := range approval.ProjectFiles {
		p.Protected = append(p.Protected, filepath.Join(root, name))
	}
	p.Protected = append(p.Protected, within(root, prot.Files)...)
	p.Protected = append(p.Protected, within(root, prot.Dirs)...)
	// git's optional index refresh would change .git (read-only, or
	// reported as a change at level landlock) for a mere git status.
	extraEnv = append(extraEnv, "GIT_OPTIONAL_LOCKS=0")

	sb, report := tools.NewSandbox(p,
		tools.WithRepositories(tools.NewRepositories(root)),
		tools.WithReadOnly(func() bool { return policy().Mode() == approval.Plan }),
		tools.WithSandboxEnv(extraEnv...))
	if sb == nil {
		os.RemoveAll(tmp)
		return &sandboxed{report: report}, nil
	}
	return &sandboxed{sb: sb, report: report, tmp: tmp}, nil
}

// sandboxGoCache is the Go build cache of the commands in the sandbox,
// made if need be: theirs alone, so that a command cannot plant a build
// output that a go build outside the sandbox would link. It is the
// cache's real path, which the commands' GOCACHE names: the sandbox
// makes a writable root writable where its links lead, and a link on the
// way may not be there for the command (one under /tmp, which the
// sandbox replaces).
func sandboxGoCache(env environ) (string, error) {
	dir, err := config.CacheDir(env.get)
	if err != nil {
		return "", err
	}
	cache := filepath.Join(dir, "sandbox", "go-build")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(cache)
}

// within returns the paths that lie inside root (the sandbox protects
// only inside what it lets commands write).
func within(root string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
			out = append(out, p)
		}
	}
	return out
}

// expandHome expands a leading ~ to home.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// status is the sandbox in a few words, for the status line: "sandbox",
// "sandbox (landlock)", "no sandbox", "sandbox off".
func (s *sandboxed) status() string {
	switch {
	case s.off:
		return "sandbox off"
	case s.sb == nil:
		return "no sandbox"
	case s.sb.Level() == sandbox.LevelFull:
		return "sandbox"
	}
	return "sandbox (" + s.sb.Level().String() + ")"
}

// describe is the sandbox for /status and the warning at start: its level
// and what it does not cover, or why there is none.
func (s *sandboxed) describe() string {
	switch {
	case s.off:
		return "off (--sandbox off): commands run under the approval policy alone"
	case s.sb == nil:
		return fmt.Sprintf("none: %s; commands run under the approval policy alone", strings.Join(s.report.Reasons, "; "))
	}
	d := s.sb.Describe(tools.Run{})
	if len(s.report.Limits) > 0 {
		d += "; not covered: " + strings.Join(s.report.Limits, "; ")
	}
	return d
}

// warning is what tackle says once at start about a sandbox weaker than
// the full one, or "".
func (s *sandboxed) warning() string {
	switch {
	case s.off:
		return ""
	case s.sb == nil:
		return "no OS sandbox on this system (" + strings.Join(s.report.Reasons, "; ") + "): the commands tackle runs for the model are held by the approval policy alone"
	case s.sb.Level() < sandbox.LevelFull:
		return fmt.Sprintf("the OS sandbox runs at level %s (%s): %s", s.sb.Level(), strings.Join(s.report.Reasons, "; "), strings.Join(s.report.Limits, "; "))
	}
	return ""
}

// changed is told of the protected paths a command changed: the user
// hears of it at once.
func (s *sandboxed) changed(emit func(agent.Event)) func([]string) {
	return func(paths []string) {
		emit(agent.Warning{Message: "a command changed protected paths: " + strings.Join(paths, ", ") + " — check them before you run git or tackle again"})
	}
}

func (s *sandboxed) close() {
	if s != nil && s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}
