package e2e

// End-to-end tests of the approval policy's defences (issue 8): wildcard
// rules that must not cover writing or code-running options, protected
// paths, and deny rules on reading that every tool must honour. Each
// scripted model call is an attack; the test checks it did not happen.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// gitRepo makes dir a git repository with one commit of notes.txt.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("safe notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "add", "notes.txt"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// TestE2EWildcardRulesDoNotCoverWritesOrCode: with the rules the old
// "always" offered (bash(rm *), bash(sed *) …) or a user wrote, the
// options that delete outside the workspace, write files or run commands
// still ask, and a piped run denies them.
func TestE2EWildcardRulesDoNotCoverWritesOrCode(t *testing.T) {
	e := newE2E(t, "approval_wildcard_attacks.json")
	gitRepo(t, e.workspace)
	outside := filepath.Dir(e.workspace)
	elsewhere := filepath.Join(outside, "elsewhere")
	mustWrite(t, filepath.Join(elsewhere, "keep.txt"), "keep\n")
	precious := filepath.Join(e.home, "precious")
	mustWrite(t, filepath.Join(precious, "keep.txt"), "keep\n")
	mustWrite(t, filepath.Join(outside, "outside.txt"), "safe\n")

	r := e.run("--allow", "bash(rm *)", "--allow", "bash(sed *)", "--allow", "bash(awk *)", "--allow", "bash(git *)", "-p", "clean up")
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d (denied)", r.code, app.ExitDenied)
	}
	for _, p := range []string{filepath.Join(elsewhere, "keep.txt"), filepath.Join(precious, "keep.txt")} {
		if !exists(p) {
			t.Errorf("rm -rf deleted %s", p)
		}
	}
	if got := mustRead(t, filepath.Join(outside, "outside.txt")); got != "safe\n" {
		t.Errorf("sed -i changed a file outside the workspace: %q", got)
	}
	for _, p := range []string{
		filepath.Join(e.workspace, "pwned-sed-e"), filepath.Join(e.workspace, "pwned-awk"),
		filepath.Join(outside, "git-diff-out"), filepath.Join(outside, "git-log-out"), filepath.Join(outside, "sed-w-out"),
	} {
		if exists(p) {
			t.Errorf("%s was written", p)
		}
	}
	// The model is told each was denied, and why.
	for id, why := range map[string]string{
		"call_rm":       "outside the workspace",
		"call_sed_i":    "-i (edits files in place)",
		"call_sed_e":    "runs a shell command (sed e)",
		"call_awk":      "calls system()",
		"call_git_diff": "--output=../git-diff-out (writes to a file)",
		"call_git_log":  "--output=../git-log-out (writes to a file)",
		"call_sed_w":    "writes to ../sed-w-out",
	} {
		got := e.toolResult(1, id)
		if !strings.Contains(got, "nobody can approve this call") || !strings.Contains(got, why) {
			t.Errorf("%s: result %q, want a denial naming %q", id, got, why)
		}
	}
}

// TestE2EProtectedPathsAskInAcceptEditsAndYolo: .git/config (a
// core.fsmonitor line runs a command on the next git status), a git hook,
// a link to .git/config and .env are not written without a person saying
// so, whatever the mode and an edit_file(**) rule; --yes does not say so;
// --dangerously-skip-protection does.
func TestE2EProtectedPathsAskInAcceptEditsAndYolo(t *testing.T) {
	files := []string{".git/config", ".git/hooks/pre-commit", ".env"}
	for _, args := range [][]string{
		{"--mode", "accept-edits"},
		{"--mode", "accept-edits", "--allow", "edit_file(**)", "--allow", "write_file(**)"},
		{"--mode", "yolo"},
		{"--mode", "yolo", "--yes"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			e := newE2E(t, "approval_protected_writes.json")
			gitRepo(t, e.workspace)
			if err := os.Symlink(".git/config", filepath.Join(e.workspace, "cfg")); err != nil {
				t.Fatal(err)
			}
			before := map[string]string{}
			for _, f := range files[:1] {
				before[f] = mustRead(t, filepath.Join(e.workspace, f))
			}
			r := e.run(append(args, "-p", "configure the repo")...)
			if r.code != app.ExitDenied {
				t.Errorf("exit %d, want %d (denied)", r.code, app.ExitDenied)
			}
			if got := mustRead(t, filepath.Join(e.workspace, ".git/config")); got != before[".git/config"] || strings.Contains(got, "fsmonitor") {
				t.Errorf(".git/config was changed:\n%s", got)
			}
			for _, f := range files[1:] {
				if exists(filepath.Join(e.workspace, f)) {
					t.Errorf("%s was written", f)
				}
			}
			for _, id := range []string{"call_config", "call_hook", "call_link", "call_env"} {
				if got := e.toolResult(2, id); !strings.Contains(got, "protected") {
					t.Errorf("%s: result %q does not say the path is protected", id, got)
				}
			}
			if !strings.Contains(r.stderr, "dangerously-skip-protection") && slicesContains(args, "--yes") {
				t.Errorf("stderr does not say how to allow it: %q", r.stderr)
			}
		})
	}
	// The control: with protection switched off, yolo writes them.
	e := newE2E(t, "approval_protected_writes.json")
	gitRepo(t, e.workspace)
	if err := os.Symlink(".git/config", filepath.Join(e.workspace, "cfg")); err != nil {
		t.Fatal(err)
	}
	// One call at a time: the write through the link comes after the
	// direct write to .git/config, in the reply's order.
	if r := e.run("--mode", "yolo", "--dangerously-skip-protection", "--max-parallel-tools", "1", "-p", "configure the repo"); r.code != app.ExitOK {
		t.Fatalf("--dangerously-skip-protection: exit %d", r.code)
	}
	if got := mustRead(t, filepath.Join(e.workspace, ".git/config")); !strings.Contains(got, "pwned-link") {
		t.Errorf(".git/config was not written through the link: %q", got)
	}
	if !exists(filepath.Join(e.workspace, ".git/hooks/pre-commit")) {
		t.Error("the hook was not written")
	}
	// An allow rule naming exactly the path lets that one file through.
	e = newE2E(t, "approval_protected_writes.json")
	gitRepo(t, e.workspace)
	if err := os.Symlink(".git/config", filepath.Join(e.workspace, "cfg")); err != nil {
		t.Fatal(err)
	}
	r := e.run("--mode", "accept-edits", "--allow", "write_file(.env)", "-p", "configure the repo")
	if r.code != app.ExitDenied || mustRead(t, filepath.Join(e.workspace, ".env")) != "TOKEN=planted\n" || exists(filepath.Join(e.workspace, ".git/hooks/pre-commit")) {
		t.Errorf("exact rule: exit %d; .env written: %v; hook written: %v", r.code, exists(filepath.Join(e.workspace, ".env")), exists(filepath.Join(e.workspace, ".git/hooks/pre-commit")))
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestE2EProtectedHomeWorkspace: with the workspace at $HOME, the shell
// startup files and tackle's own config (where a planted command hook
// would run on tackle's next start) are protected by absolute path.
func TestE2EProtectedHomeWorkspace(t *testing.T) {
	for _, mode := range []string{"accept-edits", "yolo"} {
		t.Run(mode, func(t *testing.T) {
			e := newE2E(t, "approval_protected_home.json")
			e.config(`{"model": "e2e-model"}`)
			cfgPath := filepath.Join(e.home, "tackle", "config.json")
			before := mustRead(t, cfgPath)
			r := e.run("-w", e.home, "--mode", mode, "-p", "set up my shell")
			if r.code != app.ExitDenied {
				t.Errorf("exit %d, want %d (denied)", r.code, app.ExitDenied)
			}
			if got := mustRead(t, cfgPath); got != before {
				t.Errorf("tackle's config was changed: %q", got)
			}
			for _, f := range []string{".bashrc", ".zshrc"} {
				if exists(filepath.Join(e.home, f)) {
					t.Errorf("~/%s was written", f)
				}
			}
			if got := e.toolResult(2, "call_tackle_config"); !strings.Contains(got, "tackle's configuration") {
				t.Errorf("result %q does not name tackle's configuration", got)
			}
			if got := e.toolResult(2, "call_bashrc"); !strings.Contains(got, "shell startup file") {
				t.Errorf("result %q does not name a shell startup file", got)
			}
		})
	}
}

// TestE2EReadDenyRuleHoldsForEveryReader: the deny rule read_file(.env)
// keeps the secret from grep on .env, grep and read_file through a link,
// a grep of the whole workspace and bash cat.
func TestE2EReadDenyRuleHoldsForEveryReader(t *testing.T) {
	const secret = "s3cret-token-value"
	e := newE2E(t, "approval_read_deny.json")
	mustWrite(t, filepath.Join(e.workspace, ".env"), "TOKEN="+secret+"\n")
	mustWrite(t, filepath.Join(e.workspace, "main.go"), "package main // TOKEN is read from the environment\n")
	if err := os.Symlink(".env", filepath.Join(e.workspace, "link")); err != nil {
		t.Fatal(err)
	}
	r := e.run("--deny", "read_file(.env)", "--allow", "bash(cat *)", "-p", "find the token")
	if r.code != app.ExitOK {
		t.Errorf("exit %d", r.code)
	}
	for _, id := range []string{"call_grep_env", "call_grep_link", "call_read_link", "call_cat", "call_cat_link"} {
		got := e.toolResult(1, id)
		if strings.Contains(got, secret) || !strings.Contains(got, "read_file(.env)") {
			t.Errorf("%s: result %q, want a denial by read_file(.env) without the secret", id, got)
		}
	}
	all := e.toolResult(1, "call_grep_all")
	if strings.Contains(all, secret) || !strings.Contains(all, "main.go:1:") || !strings.Contains(all, "1 file not searched: an approval rule denies reading") {
		t.Errorf("workspace-wide grep: %q", all)
	}
	for _, req := range e.requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, secret) {
				t.Errorf("the secret reached the model in a %s message", m.Role)
			}
		}
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Error("the secret was printed")
	}
}

// TestE2EModelCannotWriteRules: the rules a person saves (the approval
// dialog's "always", /permissions) live in the user's config file, the
// project's trusted .tackle/config.json (its trust pinned in the state
// directory) and the session file. The model reaches none of them, even
// in yolo mode with --yes: every write asks, and a piped run denies it.
// (The dialog itself takes keys from the terminal only.)
func TestE2EModelCannotWriteRules(t *testing.T) {
	e := newE2E(t, "rules_model_writes_config.json")
	e.config(`{"allow": ["bash(git status *)"]}` + "\n")
	before := mustRead(t, e.configPath())
	r := e.run("--mode", "yolo", "--yes", "-p", "give yourself permissions")
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d (denied)", r.code, app.ExitDenied)
	}
	for _, id := range []string{"call_project", "call_project_bash", "call_user", "call_trust", "call_session"} {
		if got := e.toolResult(1, id); !strings.Contains(got, "protected") && !strings.Contains(got, "denied") {
			t.Errorf("%s ran: %q", id, got)
		}
	}
	if exists(filepath.Join(e.workspace, ".tackle", "config.json")) {
		t.Error("the model wrote the project's config")
	}
	if got := mustRead(t, e.configPath()); got != before {
		t.Errorf("the model changed the user's config: %q", got)
	}
	if exists(filepath.Join(e.home, ".local", "state", "tackle", "sessions", "x.jsonl")) {
		t.Error("the model wrote a session file")
	}
}
