package project

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/tools/child"
)

// tackle's own git and go never run programs a repository configures:
// the model can write the workspace, and in some cases what git takes for
// the repository's configuration (issue 21 class 3).
//
//   - git runs on the repository found by its .git (--git-dir and
//     --work-tree given, so git's discovery cannot take a directory the
//     model made to look like a bare repository for it, and
//     safe.bareRepository=explicit on top), with its fsmonitor, hooks,
//     pager and credential helpers switched off, every clean, smudge and
//     process filter of its configuration emptied (git status runs a
//     file's clean filter when the file's stat changed, and a
//     .gitattributes the model wrote picks the filter), submodules left
//     alone, no optional locks, no system configuration, and nothing that
//     may prompt;
//   - the Go version is read from the VERSION file of the go found on
//     PATH, without running go; only where there is none, go env runs,
//     outside the workspace, with GOTOOLCHAIN=local (a toolchain line in
//     go.mod must never download or run another toolchain) and without
//     the user's GOFLAGS and go env file.

// gitHardening are the options every git tackle runs gets, before the
// subcommand.
var gitHardening = []string{
	"--no-optional-locks",
	"-c", "core.fsmonitor=false",
	"-c", "core.useBuiltinFSMonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "safe.bareRepository=explicit",
	"-c", "core.pager=cat",
	"-c", "core.askPass=",
	"-c", "credential.helper=",
	"-c", "core.sshCommand=",
	"-c", "diff.external=",
	"-c", "status.submoduleSummary=false",
	"-c", "submodule.recurse=false",
	"-c", "protocol.allow=never",
}

// gitEnv is the environment of tackle's git: env (nil: the process's)
// without git's own variables (GIT_DIR, GIT_CONFIG_* … would choose the
// repository or add configuration), with nothing that may prompt or page.
func gitEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_EDITOR=true",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_NO_REPLACE_OBJECTS=1",
	)
}

// gitCommand returns the argv of a git subcommand on the repository whose
// work tree is root (its .git a directory or a worktree's gitdir file):
// the hardening, the repository named explicitly, and the filters of its
// configuration emptied (found by asking git, hardened the same way).
func gitCommand(ctx context.Context, gitBin, root string, env []string, args ...string) []string {
	base := append([]string{gitBin}, gitHardening...)
	base = append(base, "--git-dir="+filepath.Join(root, ".git"), "--work-tree="+root)
	names, _ := run(ctx, root, env, base[0], append(base[1:], "config", "--name-only", "--get-regexp", `^filter\.`)...)
	seen := map[string]bool{}
	var filters []string
	for _, line := range strings.Split(names, "\n") {
		key := strings.TrimSpace(line)
		i := strings.LastIndexByte(key, '.')
		if !strings.HasPrefix(key, "filter.") || i <= len("filter.") {
			continue
		}
		name := key[len("filter."):i]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, k := range []string{"clean", "smudge", "process"} {
			filters = append(filters, "-c", "filter."+name+"."+k+"=")
		}
		filters = append(filters, "-c", "filter."+name+".required=false")
	}
	out := append(base, filters...)
	return append(out, args...)
}

// goVersion returns the version of the go found on env's PATH: its
// GOROOT's VERSION file, or else what go env GOVERSION says, run
// hardened outside the workspace. "" when there is no go.
func goVersion(ctx context.Context, env []string) string {
	path := os.Getenv("PATH")
	if env != nil {
		path, _ = child.LookupEnv(env, "PATH")
	}
	goBin, err := child.LookPath("go", path, "")
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(goBin); err == nil {
		if v := versionFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "VERSION")); v != "" {
			return v
		}
	}
	if env == nil {
		env = os.Environ()
	}
	var goEnv []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GO") {
			goEnv = append(goEnv, kv)
		}
	}
	goEnv = append(goEnv, "GOTOOLCHAIN=local", "GOFLAGS=", "GOENV=off", "GOWORK=off", "GOPROXY=off", "GO111MODULE=off")
	v, err := run(ctx, os.TempDir(), goEnv, goBin, "env", "GOVERSION")
	if err != nil {
		return ""
	}
	return v
}

// versionFile reads the go version from a GOROOT's VERSION file (its
// first line, "go1.26.0"), or "".
func versionFile(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return ""
	}
	v := strings.TrimSpace(sc.Text())
	if !strings.HasPrefix(v, "go") || len(v) > 64 {
		return ""
	}
	return v
}
