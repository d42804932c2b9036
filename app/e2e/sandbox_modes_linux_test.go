//go:build linux

package e2e

// The sandbox and the approval modes (issue 21): what the sandbox lets
// run without asking in the default and plan modes, and the ways out of
// it, which ask in every mode.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/sandbox"
)

// runSandboxed runs tackle with args after sr's flags and setup, and
// returns the run and the sandbox level it reports.
func runSandboxed(t *testing.T, e *e2e, sr sandboxRun, args ...string) (result, string) {
	t.Helper()
	if sr.setup != nil {
		sr.setup(t, e)
	}
	all := append(append([]string(nil), sr.args...), args...)
	r := e.run(all...)
	level := runLevel(t, all, r.stderr)
	if sr.level != "" && level != sr.level {
		t.Fatalf("the run reports sandbox %s, want %s", level, sr.level)
	}
	return r, level
}

// TestE2EDefaultModeRunsReadOnlyCommands: in the default mode, piped and
// without --yes, ls -la, git status --short, cat README and grep -rn foo .
// run in the sandbox without asking and the run exits 0. Where protected
// paths are not read-only (level landlock) or there is no sandbox, they
// are denied as before: a piped run cannot ask, and exits 3.
func TestE2EDefaultModeRunsReadOnlyCommands(t *testing.T) {
	needSandbox(t)
	want := map[string]string{
		"call_ls":     "README",
		"call_status": "?? new.txt",
		"call_cat":    "foo is here",
		"call_grep":   "./README:1:foo is here",
	}
	for _, sr := range sandboxRuns {
		t.Run(sr.name, func(t *testing.T) {
			t.Parallel()
			e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
			gitRepo(t, e.workspace)
			mustWrite(t, filepath.Join(e.workspace, "README"), "foo is here\n")
			gitCommit(t, e.workspace, "README")
			mustWrite(t, filepath.Join(e.workspace, "new.txt"), "untracked\n")
			e.srv = llmtest.NewServer(t, llmtest.NewScript(
				llmtest.ToolCalls(bashCall("call_ls", "ls -la"), bashCall("call_status", "git status --short"),
					bashCall("call_cat", "cat README"), bashCall("call_grep", "grep -rn foo .")),
				llmtest.Text("Looked.")))
			r, level := runSandboxed(t, e, sr, "-p", "look around")
			for id, out := range want {
				got := e.toolResult(1, id)
				switch {
				case level == "full" && (!strings.Contains(got, out) || strings.Contains(got, "denied")):
					t.Errorf("%s: result %q, want it run (%q)", id, got, out)
				case level != "full" && !strings.Contains(got, "denied"):
					t.Errorf("sandbox %s: %s: result %q, want it denied", level, id, got)
				}
			}
			if wantCode := map[bool]int{true: app.ExitOK, false: app.ExitDenied}[level == "full"]; r.code != wantCode {
				t.Errorf("sandbox %s: exit %d, want %d", level, r.code, wantCode)
			}
		})
	}
}

// gitCommit commits files of the repository at dir.
func gitCommit(t *testing.T, dir string, files ...string) {
	t.Helper()
	git(t, dir, append([]string{"add"}, files...)...)
	git(t, dir, "commit", "-qm", "more")
}

// git runs git in dir without the user's or the system's configuration.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestE2EPlanModeRunsReadOnlyCommandsReadOnly: plan mode runs a command the
// policy reads as read-only in a read-only sandbox, and skips one that
// writes. The read-only command is git status in a repository whose
// core.fsmonitor (planted earlier, say in accept-edits) writes a file:
// the policy cannot see that git runs it, and the sandbox keeps the
// write out. The control, in yolo, shows the planted command does run
// and write.
func TestE2EPlanModeRunsReadOnlyCommandsReadOnly(t *testing.T) {
	sandboxtestFull(t)
	for _, mode := range []string{"plan", "yolo"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
			gitRepo(t, e.workspace)
			sub := filepath.Join(e.workspace, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			gitRepo(t, sub)
			pwned := filepath.Join(e.workspace, "pwned.txt")
			git(t, sub, "config", "core.fsmonitor", "echo pwned > "+pwned+"; false")
			e.srv = llmtest.NewServer(t, llmtest.NewScript(
				llmtest.ToolCalls(bashCall("call_status", "cd sub && git status --short"), bashCall("call_write", "echo planned > plan.txt"), bashCall("call_ls", "ls")),
				llmtest.Text("Planned.")))
			r := e.run("--mode", mode, "--max-parallel-tools", "1", "-p", "plan it")
			if r.code != app.ExitOK {
				t.Errorf("exit %d", r.code)
			}
			status, write, ls := e.toolResult(1, "call_status"), e.toolResult(1, "call_write"), e.toolResult(1, "call_ls")
			if !strings.Contains(ls, "notes.txt") {
				t.Errorf("ls did not run: %q", ls)
			}
			if strings.Contains(status, "skipped") || strings.Contains(status, "denied") {
				t.Errorf("git status did not run: %q", status)
			}
			switch mode {
			case "plan":
				if exists(pwned) {
					t.Errorf("in plan mode the planted fsmonitor wrote %s: %q", pwned, mustRead(t, pwned))
				}
				if !strings.Contains(status, "pwned.txt: Read-only file system") {
					t.Errorf("the planted fsmonitor did not run and fail to write: %q", status)
				}
				if exists(filepath.Join(e.workspace, "plan.txt")) || !strings.Contains(write, "plan mode") {
					t.Errorf("plan mode did not skip the write: %q", write)
				}
			case "yolo":
				if !exists(pwned) || !exists(filepath.Join(e.workspace, "plan.txt")) {
					t.Errorf("the planted fsmonitor (%v) or the write (%q) did not run: the test cannot tell", exists(pwned), write)
				}
			}
		})
	}
}

// sandboxtestFull skips the test unless the system has the sandbox at
// level full: read-only commands run unasked (and in plan mode) only
// there.
func sandboxtestFull(t *testing.T) {
	t.Helper()
	needSandbox(t)
	if r := sandbox.Probe(); r.Level != sandbox.LevelFull {
		t.Skipf("read-only commands run unasked only at sandbox level full; this system has %s", r)
	}
}

// TestE2EOutsideSandboxAsksInYolo: a bash call asking to run outside the
// sandbox is asked of the user even in yolo mode: piped without --yes it
// is denied (exit 3) and writes nothing; with --yes it runs, outside,
// and writes where the sandbox would not let it.
func TestE2EOutsideSandboxAsksInYolo(t *testing.T) {
	needSandbox(t)
	for _, yes := range []bool{false, true} {
		t.Run(map[bool]string{false: "piped", true: "--yes"}[yes], func(t *testing.T) {
			t.Parallel()
			outside := varTmpDir(t)
			target := filepath.Join(outside, "out.txt")
			e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
			args, _ := json.Marshal(map[string]any{"command": "echo escaped > " + target, "outside_sandbox": true})
			e.srv = llmtest.NewServer(t, llmtest.NewScript(
				llmtest.ToolCalls(llmtest.Call("call_out", "bash", string(args))),
				llmtest.Text("Done.")))
			flags := []string{"--mode", "yolo", "-p", "write it"}
			if yes {
				flags = append([]string{"--yes"}, flags...)
			}
			r := e.run(flags...)
			got := e.toolResult(1, "call_out")
			if !yes {
				if r.code != app.ExitDenied || exists(target) || !strings.Contains(got, "denied") {
					t.Errorf("without --yes: exit %d, written %v, result %q; want it denied (exit 3)", r.code, exists(target), got)
				}
				return
			}
			if r.code != app.ExitOK || !exists(target) {
				t.Errorf("with --yes: exit %d, written %v, result %q; want it run outside the sandbox", r.code, exists(target), got)
			}
		})
	}
}

// TestE2ETUIOutsideSandboxAsks: in the UI, in yolo mode, a call asking to
// run outside the sandbox opens the approval dialog, which says so.
func TestE2ETUIOutsideSandboxAsks(t *testing.T) {
	needSandbox(t)
	outside := varTmpDir(t)
	target := filepath.Join(outside, "out.txt")
	e := &e2e{t: t, workspace: t.TempDir(), home: t.TempDir()}
	args, _ := json.Marshal(map[string]any{"command": "echo escaped > " + target, "outside_sandbox": true})
	e.srv = llmtest.NewServer(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_out", "bash", string(args))),
		llmtest.Text("Wrote it outside.")))
	s := e.startTUI("--mode", "yolo")
	s.waitFor("Ask tackle to do something")
	s.typeText("write it")
	s.keys("Enter")
	screen := s.waitFor("Allow bash?")
	if !strings.Contains(screen, "outside the sandbox") {
		t.Errorf("the dialog does not say the command runs outside the sandbox:\n%s", screen)
	}
	if exists(target) {
		t.Fatal("the command ran before it was approved")
	}
	s.keys("y")
	s.waitFor("Wrote it outside.")
	if !exists(target) {
		t.Error("the approved command did not write outside the sandbox")
	}
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Errorf("exit status %d", code)
	}
}
