package project

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

// Each test plants what would make a git (or go) tackle runs at start
// execute a program that leaves a marker file; a control run of the plain
// command shows that the plant works, and Gather must leave no marker.

// marker returns a path for a marker file and a shell command making it.
func marker(t *testing.T, name string) (string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	return p, "touch '" + p + "'"
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// plain runs git as tackle used to: git status in dir, discovering the
// repository, nothing switched off.
func plain(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain=v1", "--branch", "--untracked-files=normal")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.CombinedOutput() // it may fail; only its side effects count
}

// gatherEnv runs Gather with the process's environment and no global git
// configuration.
func gatherEnv(t *testing.T, ws string, env ...string) Context {
	t.Helper()
	c, err := Gather(context.Background(), Options{Workspace: ws, Now: func() time.Time { return day },
		Env: append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null"), env...)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
}

// TestStartupGitIgnoresAPlantedRepository: the workspace is below a
// repository's root, and its root was made to look like a repository
// (HEAD, objects/, refs/, an index, a config with core.fsmonitor): git's
// discovery takes it for the repository; tackle's git uses the .git it
// found.
func TestStartupGitIgnoresAPlantedRepository(t *testing.T) {
	requireGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	ws := filepath.Join(repo, "ws")
	git(t, repo, "init", "-q", "--bare", ws)
	mark, touch := marker(t, "fsmonitor-ran")
	write(t, filepath.Join(ws, "wt", "a"), "a")
	git(t, ws, "config", "core.bare", "false")
	git(t, ws, "config", "core.worktree", filepath.Join(ws, "wt"))
	git(t, ws, "--git-dir=.", "--work-tree=wt", "add", "a")
	git(t, ws, "config", "core.fsmonitor", touch+"; false")

	plain(t, ws)
	if !exists(mark) {
		t.Fatal("control: the planted fsmonitor did not run under a plain git status")
	}
	os.Remove(mark)

	c := gatherEnv(t, ws)
	if exists(mark) {
		t.Error("tackle's git status ran the planted core.fsmonitor")
	}
	if !strings.Contains(c.Environment, "git branch: No commits yet on main") {
		t.Errorf("the status is not the enclosing repository's:\n%s", c.Environment)
	}
}

// TestStartupGitRunsNoConfiguredPrograms: a repository whose
// configuration has a core.fsmonitor, a clean filter or a process filter
// (picked by a .gitattributes, run by git status on a file whose stat
// changed), or a post-index-change hook.
func TestStartupGitRunsNoConfiguredPrograms(t *testing.T) {
	requireGit(t)
	for name, plant := range map[string]func(t *testing.T, repo, touch string){
		"fsmonitor": func(t *testing.T, repo, touch string) { git(t, repo, "config", "core.fsmonitor", touch+"; false") },
		"clean filter": func(t *testing.T, repo, touch string) {
			git(t, repo, "config", "filter.x.clean", touch+"; cat")
			write(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=x\n")
		},
		"process filter": func(t *testing.T, repo, touch string) {
			git(t, repo, "config", "filter.lfs-like.process", touch+"; false")
			git(t, repo, "config", "filter.lfs-like.required", "false")
			write(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=lfs-like\n")
		},
		"post-index-change hook": func(t *testing.T, repo, touch string) {
			hook := filepath.Join(repo, ".git", "hooks", "post-index-change")
			write(t, hook, "#!/bin/sh\n"+touch+"\n")
			if err := os.Chmod(hook, 0o755); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			git(t, repo, "init", "-q", "-b", "main")
			write(t, filepath.Join(repo, "a.txt"), "a\n")
			git(t, repo, "add", ".")
			git(t, repo, "commit", "-q", "-m", "first")
			mark, touch := marker(t, "ran")
			plant(t, repo, touch)
			stir := func(d time.Duration) {
				// A changed stat makes git read the file again, through
				// its filter, and refresh the index.
				later := time.Now().Add(d)
				if err := os.Chtimes(filepath.Join(repo, "a.txt"), later, later); err != nil {
					t.Fatal(err)
				}
			}
			stir(time.Hour)
			plain(t, repo)
			if !exists(mark) {
				t.Fatalf("control: the %s did not run under a plain git status", name)
			}
			os.Remove(mark)

			stir(2 * time.Hour)
			c := gatherEnv(t, repo)
			if exists(mark) {
				t.Errorf("tackle's git status ran the configured %s", name)
			}
			if !strings.Contains(c.Environment, "git branch: main") {
				t.Errorf("environment:\n%s", c.Environment)
			}
		})
	}
}

// TestGoVersionWithoutRunningGo: the Go version comes from the VERSION
// file of the go on PATH; go itself does not run.
func TestGoVersionWithoutRunningGo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	ws := t.TempDir()
	write(t, filepath.Join(ws, "go.mod"), "module x\n\ngo 1.22\n\ntoolchain go1.99.9\n")
	goroot := t.TempDir()
	mark, touch := marker(t, "go-ran")
	write(t, filepath.Join(goroot, "VERSION"), "go1.30.1\ntime 2026-01-01T00:00:00Z\n")
	write(t, filepath.Join(goroot, "bin", "go"), "#!/bin/sh\n"+touch+"\necho go0.0.0\n")
	os.Chmod(filepath.Join(goroot, "bin", "go"), 0o755)
	c := gatherEnv(t, ws, "PATH="+filepath.Join(goroot, "bin")+":/usr/bin:/bin")
	if !strings.Contains(c.Environment, "go: go1.30.1") {
		t.Errorf("environment:\n%s", c.Environment)
	}
	if exists(mark) {
		t.Error("go ran")
	}

	// Without a VERSION file, go env runs: outside the workspace, with
	// the local toolchain and none of the user's GOFLAGS or go env file.
	os.Remove(filepath.Join(goroot, "VERSION"))
	write(t, filepath.Join(goroot, "bin", "go"), "#!/bin/sh\necho \"go-$GOTOOLCHAIN-$GOFLAGS-$GOENV-$(pwd)\"\n")
	c = gatherEnv(t, ws, "PATH="+filepath.Join(goroot, "bin")+":/usr/bin:/bin", "GOFLAGS=-toolexec=./x", "GOTOOLCHAIN=auto")
	want := "go: go-local--off-" + os.TempDir()
	if !strings.Contains(c.Environment, want) {
		t.Errorf("environment lacks %q:\n%s", want, c.Environment)
	}
}

// TestGoVersionOfTheRealToolchain: with the real go and a go.mod asking
// for a toolchain that does not exist, the version is the local one
// (nothing is downloaded: go does not run).
func TestGoVersionOfTheRealToolchain(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	out, err := exec.Command(goBin, "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	local := strings.TrimSpace(string(out))
	ws := t.TempDir()
	write(t, filepath.Join(ws, "go.mod"), "module x\n\ngo 1.22\n\ntoolchain go1.99.9\n")
	modcache := t.TempDir()
	c := gatherEnv(t, ws, "PATH="+filepath.Dir(goBin), "GOTOOLCHAIN=auto", "GOMODCACHE="+modcache, "GOPROXY=off")
	if !strings.Contains(c.Environment, "go: "+local+"\n") && !strings.HasSuffix(c.Environment, "go: "+local) {
		t.Errorf("environment lacks go: %s:\n%s", local, c.Environment)
	}
	if entries, _ := os.ReadDir(modcache); len(entries) > 0 {
		t.Errorf("something was downloaded into the module cache: %v", entries)
	}
}

// TestStartupGitInTheSandbox: with a sandbox, tackle's git status runs in
// it, the workspace read-only, and still says what it says outside.
func TestStartupGitInTheSandbox(t *testing.T) {
	requireGit(t)
	sandboxtest.Require(t, sandbox.LevelLandlock)
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "a.txt"), "a\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "first")
	write(t, filepath.Join(repo, "a.txt"), "changed\n")
	sb, rep := tools.NewSandbox(sandbox.Policy{Workspace: repo, TempDir: t.TempDir()})
	if sb == nil {
		t.Fatalf("no sandbox: %v", rep)
	}
	c, err := Gather(context.Background(), Options{Workspace: repo, Now: func() time.Time { return day },
		Env: append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null"), Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Environment, "git branch: main") || !strings.Contains(c.Environment, "git status: 1 changed or untracked\n   M a.txt") {
		t.Errorf("environment from the sandbox:\n%s", c.Environment)
	}
}
