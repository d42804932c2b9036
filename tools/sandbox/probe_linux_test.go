package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestProbe(t *testing.T) {
	t.Parallel()
	r := Probe()
	t.Logf("%s; limits: %q", r, r.Limits)
	abi, err := landlockABI()
	if err != nil {
		if r.Level != LevelNone {
			t.Errorf("no Landlock (%v), level %s", err, r.Level)
		}
		return
	}
	if r.ABI != abi || r.Level == LevelNone {
		t.Errorf("Landlock ABI %d, probe says %s", abi, r)
	}
	if (r.Level == LevelFull) != (shared != nil) {
		t.Errorf("level %s, shared namespaces %v", r.Level, shared)
	}
	if r.Level < LevelFull && len(r.Reasons) == 0 {
		t.Errorf("level %s without a reason", r.Level)
	}
	// The report is the caller's to change.
	r.Reasons = append(r.Reasons[:0], "changed")
	if again := Probe(); len(again.Reasons) > 0 && again.Reasons[0] == "changed" {
		t.Errorf("Probe shares its slices")
	}
}

// The probe's cost, paid once per process: it makes the shared
// namespaces and sets a sandbox up twice at most.
func BenchmarkProbe(b *testing.B) {
	for b.Loop() {
		_, ns := detect()
		if ns != nil {
			ns.close()
		}
	}
}

// filterThread starts cmd from a locked thread that is left with
// no_new_privs and filter (a child inherits both), and that the runtime
// then ends.
func filterThread(t *testing.T, cmd *exec.Cmd, filter []unix.SockFilter) {
	t.Helper()
	err := onSpareThread(func() error {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return err
		}
		if err := installFilter(filter); err != nil {
			return err
		}
		return cmd.Start()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// refuse is a seccomp filter that fails the calls for which test says so
// (the flags of clone and unshare are their first argument) with errno,
// and makes clone3 (whose flags are out of a filter's reach) look missing,
// as Docker's default profile does.
func refuse(nrs []uint32, flags uint32, errno unix.Errno) []unix.SockFilter {
	p := []bpfInsn{
		ld(offArch),
		jeq(auditArch, "", "allow"),
		ld(offNr),
		jeq(unix.SYS_CLONE3, "nosys", ""),
	}
	for _, nr := range nrs {
		p = append(p, jeq(nr, "check", ""))
	}
	p = append(p,
		ret(retAllow),
		labelled("check", ld(offArg0)),
	)
	if flags == 0 {
		p = append(p, ret(retErrno(errno)))
	} else {
		p = append(p, jset(flags, "deny", "allow"), labelled("deny", ret(retErrno(errno))))
	}
	p = append(p,
		labelled("allow", ret(retAllow)),
		labelled("nosys", ret(retErrno(unix.ENOSYS))),
	)
	return assemble(p)
}

// probeIn runs the probe in a helper process started by start, and
// returns what it found.
func probeIn(t *testing.T, start func(cmd *exec.Cmd)) probeResult {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(helperBin, os.TempDir())
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=probe", "GORACE=atexit_sleep_ms=0")
	cmd.Stdout, cmd.Stderr = &out, &out
	start(cmd)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("probe helper: %v\n%s", err, out.String())
	}
	var r probeResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	return r
}

// The probe degrades for real where namespaces are refused, and where
// Landlock is missing.
func TestProbeDegrades(t *testing.T) {
	if auditArch == 0 {
		t.Skip("no seccomp filter for this architecture")
	}
	if Probe().Level < LevelLandlock {
		t.Skipf("no sandbox here: %s", Probe())
	}
	t.Run("seccomp refuses user namespaces", func(t *testing.T) {
		t.Parallel()
		if !haveLauncher {
			t.Skip("built without cgo: no namespaces to refuse")
		}
		r := probeIn(t, func(cmd *exec.Cmd) {
			filterThread(t, cmd, refuse([]uint32{unix.SYS_UNSHARE, unix.SYS_CLONE}, unix.CLONE_NEWUSER, unix.EPERM))
		})
		if r.Level != LevelLandlock || !strings.Contains(strings.Join(r.Reasons, ";"), "namespaces: unshare: Operation not permitted") || r.Start != "" {
			t.Errorf("want level landlock because unshare is refused, and Start to work: %+v", r)
		}
	})
	t.Run("inside a Landlock domain", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "", false)
		r := probeIn(t, func(cmd *exec.Cmd) {
			cmd.Dir = f.ws
			if _, err := (launch{level: LevelLandlock, abi: Probe().ABI, launcher: haveLauncher}).start(cmd, f.policy); err != nil {
				t.Fatal(err)
			}
		})
		// The outer sandbox refuses writing uid_map, and listing /, which
		// the inner ruleset needs: nothing runs, but nothing gets out.
		if r.Level != LevelLandlock || !strings.Contains(strings.Join(r.Reasons, ";"), "namespaces: ") {
			t.Errorf("want level landlock, namespaces refused: %+v", r)
		}
	})
	t.Run("no Landlock", func(t *testing.T) {
		t.Parallel()
		r := probeIn(t, func(cmd *exec.Cmd) {
			filterThread(t, cmd, refuse([]uint32{unix.SYS_LANDLOCK_CREATE_RULESET}, 0, unix.ENOSYS))
		})
		if r.Level != LevelNone || r.ABI != 0 || !strings.Contains(strings.Join(r.Reasons, ";"), "landlock: the kernel does not have it") ||
			!strings.Contains(r.Start, ErrUnavailable.Error()) {
			t.Errorf("want level none and ErrUnavailable from Start: %+v", r)
		}
	})
}
