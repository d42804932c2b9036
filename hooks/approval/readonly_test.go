package approval

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
)

// sandboxWorkspace is a git repository with a README and a Go file.
func sandboxWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"README": "foo\n", "main.go": "package main\n", "src/a.go": "package src\n"})
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "init", "-q")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	} else if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

var (
	readOnlyPrograms = []string{
		"ls -la", "git status --short", "cat README", "grep -rn foo .", // the four
		"ls | grep x", "git log --oneline | head -5", "cat README 2>/dev/null", "echo $(git rev-parse HEAD)", "wc -l *.go",
		"cd src && ls", "for f in *.md; do wc -l \"$f\"; done", "LC_ALL=C sort README", "x=1; echo $x", "find . -name '*.go'",
		"sed -n 1,5p README", "awk '{print $1}' README", "head -n 5 README", "diff README main.go", "test -f README && echo yes",
		"git diff --stat", "git show HEAD:README", "env ls", "cat < README", "(cd src; ls)", "rg foo", "jq . x.json", "tree -L 2",
	}
	notReadOnlyPrograms = []string{
		"rm x", "echo x > f", "cat ../x", "cat ~/.ssh/id_rsa", "cat < /proc/$PPID/environ", "base64 < /proc/self/environ", "ls $X",
		"git config core.pager x", "sed -i s/a/b/ f", "go test ./...", "python3 x.py", "find . -delete", "find . -exec rm {} +",
		"cd .. && ls", "cd $D && ls", "PATH=/tmp ls", "timeout 5 ls", "sh -c ls", "eval ls", "xargs cat", "cat README | sh",
		"git -c core.pager=x log", "gofmt -cpuprofile=x x.go", "printf -v PATH x", "test -v 'x[$(id)]'", "echo $(rm x)", "tee out",
		"curl https://example.com", "sort -o out README", "cat README >> out", "ls; touch x", "tackle permissions revoke 1",
		"cat {README,../x}", "git log --output=x", "GIT_DIR=x git log", "export PATH=/tmp", "alias ls=rm", "source x.sh",
		"awk 'BEGIN{system(\"id\")}'", "sed 'w out' README", "./build.sh", "make", "git push", "grep -r foo ..", "ls /etc",
	}
)

// TestSandboxReadOnlyRunsWithoutAsking: with a sandbox, a program the
// policy reads as read-only runs without asking in the default and
// accept-edits modes, and runs in plan mode; anything else asks (or is
// skipped in plan mode) as before. Without a sandbox nothing changes.
func TestSandboxReadOnlyRunsWithoutAsking(t *testing.T) {
	root := sandboxWorkspace(t)
	opts := []Option{WithWorkspace(root), WithProtection(Protection{Home: t.TempDir()})}
	for _, mode := range []Mode{Default, AcceptEdits, Plan} {
		on := mustPolicy(t, mode, nil, nil, append(opts, WithSandbox(true))...)
		off := mustPolicy(t, mode, nil, nil, opts...)
		offWant := pause
		if mode == Plan {
			offWant = skip
		}
		for _, cmd := range readOnlyPrograms {
			if got := on.Decide(bashCall(cmd)); got.Action != cont {
				_, why := on.ReadOnly(bashCall(cmd))
				t.Errorf("%s, sandbox: %q: %s %q (%s), want Continue", mode, cmd, actionNames[got.Action], got.Reason, why)
			}
			if got := off.Decide(bashCall(cmd)); got.Action != offWant {
				t.Errorf("%s, no sandbox: %q: %s %q, want %s", mode, cmd, actionNames[got.Action], got.Reason, actionNames[offWant])
			}
		}
		for _, cmd := range notReadOnlyPrograms {
			if got := on.Decide(bashCall(cmd)); got.Action == cont {
				t.Errorf("%s, sandbox: %q runs unasked: %q", mode, cmd, got.Reason)
			}
		}
	}
}

// TestSandboxKeepsRulesAndProtection: deny rules still win, yolo is yolo,
// and the file tools are judged as before.
func TestSandboxKeepsRulesAndProtection(t *testing.T) {
	root := sandboxWorkspace(t)
	p := mustPolicy(t, Default, nil, []string{"bash(cat *)", "read_file(.env)"}, WithWorkspace(root), WithSandbox(true))
	for cmd, want := range map[string]hooks.PreToolAction{"cat README": skip, "grep foo .env": skip, "ls": cont} {
		if got := p.Decide(bashCall(cmd)); got.Action != want {
			t.Errorf("%q: %s %q, want %s", cmd, actionNames[got.Action], got.Reason, actionNames[want])
		}
	}
	if got := p.Decide(fileCall("write_file", "main.go")); got.Action != pause {
		t.Errorf("write_file with a sandbox: %s %q", actionNames[got.Action], got.Reason)
	}
	p.SetSandbox(false)
	if got := p.Decide(bashCall("ls")); got.Action != pause {
		t.Errorf("ls after SetSandbox(false): %s %q", actionNames[got.Action], got.Reason)
	}
}
