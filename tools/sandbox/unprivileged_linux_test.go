package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The property tests (TestCommand…, and those of the kept rulesets)
// again, as uid 65534: the sandbox
// must work for an unprivileged user (the usual case), and as root (CI's)
// where the command starts with every capability to drop. The copy of
// the test binary that the commands run as $HELPER is executable by
// anyone; a set-user-ID root copy of id(1) proves that it gains nothing.
func TestUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("this run is unprivileged")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	suid := makeSetuidID(t, "", 0)
	cmd := exec.Command(helperBin, "-test.run", "^(TestCommand|TestRuleset|TestPreparedRuleset)", "-test.v", "-test.count=1")
	cmd.Dir = "/"
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/nonexistent",
		"SANDBOX_TEST_SETUID=" + suid,
		"GORACE=atexit_sleep_ms=0",
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestCommandProtectedPaths/" + Probe().Level.String(), "--- PASS: TestCommandGainsNoPrivileges/landlock-thread",
		"--- PASS: TestRulesetRebuiltWhenAHiddenPathIsSwapped/" + Probe().Level.String(), "\nPASS\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("as uid 65534, want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "--- SKIP") && Probe().Level == LevelFull {
		t.Errorf("as uid 65534, tests were skipped:\n%s", out)
	}
}
