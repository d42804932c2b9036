// Package project gathers what the model is told about the project at
// the start of a conversation: the instruction files people write for
// coding agents (AGENTS.md, else CLAUDE.md) from the repository root down
// to the workspace plus the user's own, and a short environment block
// (OS, shell, date, workspace, git branch and status, Go version).
package project

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/child"
)

// MaxFileBytes bounds what is taken of one instruction file.
const MaxFileBytes = 32 << 10

// commandTimeout bounds each command run for the environment block.
const commandTimeout = 3 * time.Second

// File is one instruction file.
type File struct {
	Path    string // absolute
	Content string
	// Truncated is set when the file was longer than MaxFileBytes.
	Truncated bool
}

// Context is what the system prompt says about the project.
type Context struct {
	Instructions []File
	Environment  string
}

// Options are Gather's inputs, injected for tests.
type Options struct {
	// Workspace is the workspace root (absolute).
	Workspace string
	// UserDir is tackle's config directory; UserDir/AGENTS.md is the
	// user's own instructions. Empty skips them.
	UserDir string
	// Env is the environment, as os.Environ gives it: SHELL is read
	// from it, and git and go run with it. Nil is the process's.
	Env []string
	// Now is the clock (the date in the environment block).
	Now func() time.Time
	// Sandbox, when set, runs git in the OS sandbox with the workspace
	// read-only: whatever a planted repository's configuration would
	// run stays inside it (hardened.go turns off what it can first).
	Sandbox *tools.Sandbox
}

// Gather reads the instruction files and builds the environment block.
// A file that cannot be read is skipped; only a canceled ctx is an error.
func Gather(ctx context.Context, o Options) (Context, error) {
	var c Context
	if o.UserDir != "" {
		if f, ok := readInstructions(filepath.Join(o.UserDir, "AGENTS.md")); ok {
			c.Instructions = append(c.Instructions, f)
		}
	}
	gitRoot := findGitRoot(o.Workspace)
	for _, dir := range dirsDown(gitRoot, o.Workspace) {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
			if f, ok := readInstructions(filepath.Join(dir, name)); ok {
				c.Instructions = append(c.Instructions, f)
				break // CLAUDE.md only where there is no AGENTS.md
			}
		}
	}
	env, err := environment(ctx, o, gitRoot)
	if err != nil {
		return Context{}, err
	}
	c.Environment = env
	return c, nil
}

// findGitRoot returns the nearest directory at or above dir that holds
// .git (a directory, or a file for a worktree), or "".
func findGitRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// dirsDown lists the directories from top down to dir, both included;
// with no top (or a top that is not above dir), dir alone.
func dirsDown(top, dir string) []string {
	dir = filepath.Clean(dir)
	rel, err := filepath.Rel(top, dir)
	if top == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{dir}
	}
	out := []string{top}
	if rel == "." {
		return out
	}
	d := top
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		out = append(out, d)
	}
	return out
}

// readInstructions reads a regular file, at most MaxFileBytes of it.
func readInstructions(path string) (File, bool) {
	// Opened without blocking (tools.ReadRegular): a repository's
	// AGENTS.md linked to a FIFO (/dev/initctl) hung the start.
	b, err := tools.ReadRegular(path, MaxFileBytes+1)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return File{}, false
	}
	content := strings.ToValidUTF8(string(b[:min(len(b), MaxFileBytes)]), "") // a cut rune is dropped
	return File{Path: path, Content: content, Truncated: len(b) > MaxFileBytes}, true
}

// environment is the environment block: one "key: value" line each.
// gitRoot is the work tree of the repository the workspace is in, or "".
func environment(ctx context.Context, o Options, gitRoot string) (string, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	var b strings.Builder
	fmt.Fprintf(&b, "os: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	if sh := lookup(o.Env, "SHELL"); sh != "" {
		fmt.Fprintf(&b, "shell: %s\n", filepath.Base(sh))
	}
	fmt.Fprintf(&b, "date: %s\n", now().Format("2006-01-02 (Monday)"))
	fmt.Fprintf(&b, "workspace: %s\n", o.Workspace)
	if gitRoot != "" {
		git, err := gitStatus(ctx, gitRoot, o.Env, o.Sandbox)
		if err != nil {
			return "", err
		}
		b.WriteString(git)
	} else {
		b.WriteString("git: not a git repository\n")
	}
	if _, err := os.Stat(filepath.Join(o.Workspace, "go.mod")); err == nil {
		if v := goVersion(ctx, o.Env); v != "" {
			fmt.Fprintf(&b, "go: %s\n", v)
		} else if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// maxStatusLines bounds the git status shown.
const maxStatusLines = 20

// gitStatus returns the branch and a short status of the repository
// whose work tree is root, run hardened (hardened.go).
func gitStatus(ctx context.Context, root string, env []string, sb *tools.Sandbox) (string, error) {
	path := os.Getenv("PATH")
	if env != nil {
		path, _ = child.LookupEnv(env, "PATH")
	}
	gitBin, err := child.LookPath("git", path, "")
	if err != nil {
		return "git: status unavailable (git is not installed)\n", nil
	}
	env = gitEnv(env)
	// The sandbox readies the status's rules while git config lists the
	// repository's filters.
	prepared := make(chan struct{})
	go func() {
		defer close(prepared)
		sb.Prepare(tools.Run{ReadOnly: true})
	}()
	argv := gitCommand(ctx, gitBin, root, env, "status", "--porcelain=v1", "--branch", "--untracked-files=normal", "--ignore-submodules=all")
	<-prepared
	out, err := runIn(ctx, sb, root, env, argv[0], argv[1:]...)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "git: status unavailable (" + err.Error() + ")\n", nil
	}
	lines := strings.Split(out, "\n")
	var b strings.Builder
	branch := strings.TrimPrefix(lines[0], "## ")
	fmt.Fprintf(&b, "git branch: %s\n", branch)
	changes := lines[1:]
	if len(changes) == 1 && changes[0] == "" {
		changes = nil
	}
	if len(changes) == 0 {
		b.WriteString("git status: clean\n")
		return b.String(), nil
	}
	fmt.Fprintf(&b, "git status: %d changed or untracked\n", len(changes))
	for i, l := range changes {
		if i == maxStatusLines {
			fmt.Fprintf(&b, "  … and %d more\n", len(changes)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String(), nil
}

// run runs a program in dir with env (nil: the process's) and a time
// limit, and returns its trimmed output.
func run(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	return runIn(ctx, nil, dir, env, name, args...)
}

// runIn is run in the sandbox sb (nil: none), the workspace read-only.
func runIn(ctx context.Context, sb *tools.Sandbox, dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done, err := sb.Start(cmd, tools.Run{ReadOnly: true})
	if err == nil {
		err = cmd.Wait()
		done()
	}
	if err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("%s: %s", name, firstLine(msg))
		}
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// lookup returns the value of key in env ("KEY=value" strings; the last
// wins), or the process's when env is nil.
func lookup(env []string, key string) string {
	if env == nil {
		return os.Getenv(key)
	}
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// Prompt renders the context as a section of the system prompt. The
// instruction files come with their paths, so the model can tell the
// user's own from the repository's.
func (c Context) Prompt() string {
	var b strings.Builder
	if len(c.Instructions) > 0 {
		b.WriteString("# Project instructions\n\nThe instruction files below were written for coding agents working on this project. Follow them unless the user says otherwise; a file deeper in the tree refines the ones above it.\n")
		for _, f := range c.Instructions {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", f.Path, strings.TrimSpace(f.Content))
			if f.Truncated {
				fmt.Fprintf(&b, "\n(The file is longer; only its first %d bytes are shown. Read it with read_file for the rest.)\n", MaxFileBytes)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("# Environment\n\n")
	b.WriteString(c.Environment)
	b.WriteString("\n")
	return b.String()
}
