package project

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var day = time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gather(t *testing.T, o Options) Context {
	t.Helper()
	o.Now = func() time.Time { return day }
	o.Env = append(os.Environ(), "SHELL=/usr/bin/zsh")
	c, err := Gather(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func paths(c Context) []string {
	var out []string
	for _, f := range c.Instructions {
		out = append(out, f.Path)
	}
	return out
}

func TestInstructionsFromTheRepositoryRootDownToTheWorkspace(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	user := t.TempDir()
	ws := filepath.Join(repo, "services", "api")
	write(t, filepath.Join(user, "AGENTS.md"), "Answer in British English.")
	write(t, filepath.Join(repo, "AGENTS.md"), "Run make test.")
	write(t, filepath.Join(repo, "CLAUDE.md"), "ignored: AGENTS.md wins here")
	write(t, filepath.Join(repo, "services", "CLAUDE.md"), "Services use gRPC.")
	write(t, filepath.Join(ws, "AGENTS.md"), "The API is versioned.")
	write(t, filepath.Join(ws, "sub", "AGENTS.md"), "below the workspace: not read")
	write(t, filepath.Join(filepath.Dir(repo), "AGENTS.md"), "above the repository: not read")
	write(t, filepath.Join(ws, "go.mod"), "module x\n")

	c := gather(t, Options{Workspace: ws, UserDir: user})
	want := []string{
		filepath.Join(user, "AGENTS.md"),
		filepath.Join(repo, "AGENTS.md"),
		filepath.Join(repo, "services", "CLAUDE.md"),
		filepath.Join(ws, "AGENTS.md"),
	}
	if got := paths(c); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p := c.Prompt()
	for _, s := range []string{"Answer in British English.", "Run make test.", "Services use gRPC.", "The API is versioned.",
		"## " + filepath.Join(ws, "AGENTS.md"), "shell: zsh", "date: 2026-11-22 (Sunday)", "workspace: " + ws,
		"git branch: No commits yet on main", "git status: 3 changed or untracked", "go: go1."} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q:\n%s", s, p)
		}
	}
	for _, s := range []string{"ignored", "not read"} {
		if strings.Contains(p, s) {
			t.Errorf("prompt has %q", s)
		}
	}
}

func TestNotAGitRepository(t *testing.T) {
	ws := t.TempDir()
	c := gather(t, Options{Workspace: ws})
	if len(c.Instructions) != 0 {
		t.Errorf("instructions: %v", paths(c))
	}
	if !strings.Contains(c.Environment, "git: not a git repository") || strings.Contains(c.Environment, "go:") {
		t.Errorf("environment:\n%s", c.Environment)
	}
	if strings.Contains(c.Prompt(), "# Project instructions") {
		t.Error("an empty instructions section")
	}
}

func TestCleanRepositoryAndLongStatus(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "trunk")
	write(t, filepath.Join(repo, "a.txt"), "a")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "first")
	c := gather(t, Options{Workspace: repo})
	if !strings.Contains(c.Environment, "git branch: trunk") || !strings.Contains(c.Environment, "git status: clean") {
		t.Errorf("environment:\n%s", c.Environment)
	}
	write(t, filepath.Join(repo, "a.txt"), "changed")
	for i := range 30 {
		write(t, filepath.Join(repo, "u"+strings.Repeat("y", i+1)), "y")
	}
	c = gather(t, Options{Workspace: repo})
	if !strings.Contains(c.Environment, "git status: 31 changed or untracked") || !strings.Contains(c.Environment, "… and 11 more") {
		t.Errorf("environment:\n%s", c.Environment)
	}
}

func TestLongAndEmptyFiles(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "AGENTS.md"), strings.Repeat("é", MaxFileBytes)) // 2 bytes each
	user := t.TempDir()
	write(t, filepath.Join(user, "AGENTS.md"), "  \n\n")
	c := gather(t, Options{Workspace: ws, UserDir: user})
	if len(c.Instructions) != 1 {
		t.Fatalf("instructions: %v", paths(c))
	}
	f := c.Instructions[0]
	if !f.Truncated || len(f.Content) > MaxFileBytes || !strings.HasSuffix(f.Content, "é") {
		t.Errorf("truncated %v, %d bytes, ends %q", f.Truncated, len(f.Content), f.Content[len(f.Content)-4:])
	}
	if !strings.Contains(c.Prompt(), "only its first 32768 bytes are shown") {
		t.Error("the prompt does not say the file was cut")
	}
}

func TestCancelledContextIsAnError(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Gather(ctx, Options{Workspace: repo}); err == nil {
		t.Error("Gather with a cancelled context succeeded")
	}
}

// A repository's instruction file that is no file — a link to a FIFO
// (whose open would block: the start hung) or to /dev/zero — is left
// out, and the others are read.
func TestInstructionsThatAreNoFiles(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "fifo"), filepath.Join(ws, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ws, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	user := t.TempDir()
	write(t, filepath.Join(user, "AGENTS.md"), "be brief\n")
	c := gather(t, Options{Workspace: ws, UserDir: user})
	if len(c.Instructions) != 1 || c.Instructions[0].Content != "be brief\n" {
		t.Errorf("instructions: %v", paths(c))
	}
}
