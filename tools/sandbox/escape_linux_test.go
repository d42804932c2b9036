package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// setuidID is a copy of id(1) that is set-user-ID: to uid 65534 when the
// test runs as root, to root when the root run made it for the
// unprivileged one (SANDBOX_TEST_SETUID). "" when neither.
func setuidID(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SANDBOX_TEST_SETUID"); p != "" {
		return p
	}
	if os.Getuid() != 0 {
		return ""
	}
	return makeSetuidID(t, t.TempDir(), 65534)
}

func makeSetuidID(t *testing.T, dir string, owner int) string {
	t.Helper()
	id, err := exec.LookPath("id")
	if err != nil {
		t.Skip("no id(1)")
	}
	b, err := os.ReadFile(id)
	if err != nil {
		t.Fatal(err)
	}
	dir, err = os.MkdirTemp(fixtureBase, "tackle-sandbox-setuid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	p := filepath.Join(dir, "id")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, owner, owner); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o4755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	// Outside the sandbox it works, or the test proves nothing.
	out, err := exec.Command(p, "-u").Output()
	if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(owner) {
		t.Fatalf("the set-user-ID copy of id says %q, %v outside the sandbox; want %d", out, err, owner)
	}
	return p
}

func TestCommandGainsNoPrivileges(t *testing.T) {
	suid := setuidID(t)
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		r := f.mustRun(t, m, `id -u; grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs)' /proc/self/status`)
		lines := strings.Split(strings.TrimSpace(r.out), "\n")
		if lines[0] != strconv.Itoa(os.Getuid()) {
			t.Errorf("uid %s inside, want %d (mapped to itself)", lines[0], os.Getuid())
		}
		for _, l := range lines[1:] {
			name, value, _ := strings.Cut(l, ":")
			value = strings.TrimSpace(value)
			switch {
			case name == "NoNewPrivs":
				if value != "1" {
					t.Errorf("NoNewPrivs %s", value)
				}
			case name == "CapBnd" && m.launch.level == LevelLandlock && os.Getuid() != 0:
				// Without a capability there is nothing to drop, and
				// nothing to gain with no_new_privs.
			case value != "0000000000000000":
				t.Errorf("%s: %s, want none", name, value)
			}
		}
		if suid != "" {
			r := f.mustRun(t, m, suid+" -u")
			if strings.TrimSpace(r.out) != strconv.Itoa(os.Getuid()) {
				t.Errorf("a set-user-ID binary ran as %s, want %d", r.out, os.Getuid())
			}
		}
	})
}

// Running the launcher again inside the sandbox (any binary that links
// the package is one: tackle, this test) with a policy that allows
// everything only nests a sandbox in the first.
func TestCommandNestedSandboxGainsNothing(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		before := digest(t, filepath.Join(f.ws, ".git"))
		inner := `cat "$HOME/.ssh/id_ed25519"; echo x >> "$WS/.git/config"; echo x >> "$HOME/.bashrc"; echo inner-ran`
		r := f.run(t, m, fmt.Sprintf(`SANDBOX_TEST_HELPER=nested "$HELPER" %q "$TMPDIR"`, inner))
		noSecret(t, "nested", r.out)
		if !strings.Contains(r.out, "inner-ran") && !strings.Contains(r.out, "error:") {
			t.Errorf("the nested sandbox neither ran nor failed:\n%s", r)
		}
		if m.launch.level == LevelFull && digest(t, filepath.Join(f.ws, ".git")) != before {
			t.Errorf(".git changed")
		}
		if b, _ := os.ReadFile(filepath.Join(f.home, ".bashrc")); string(b) != "# bashrc" {
			t.Errorf(".bashrc changed: %q", b)
		}
		if m.launch.level == LevelFull && !strings.Contains(r.out, "nested level landlock") {
			// Namespaces cannot be made inside (writing uid_map is refused),
			// so the nested probe falls to Landlock.
			t.Errorf("want the nested sandbox at level landlock:\n%s", r)
		}
	})
}

// The command holds its own fds only (0-2 and cmd.ExtraFiles), none of
// the launcher's, and no trace of it in its environment.
func TestCommandLeavesNoLauncherFdsOrMarker(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		inherited := inheritedFds(t)
		for _, extra := range []bool{false, true} {
			got, out := commandFds(t, f, m, extra)
			want := "0 1 2 "
			if extra {
				want = "0 1 2 3 "
			}
			if !m.launch.launcher {
				// Without the launcher, as with plain exec.
				want += inherited
			}
			if got != want {
				t.Errorf("extra file %v: open fds %q, want %q", extra, got, want)
			}
			wantOut := "ready\n0\n"
			if extra {
				wantOut = "ready\n0\nreadme"
			}
			if out != wantOut {
				t.Errorf("extra file %v: output %q, want %q (no marker in the environment; README on fd 3)", extra, out, wantOut)
			}
		}
	})
}

// commandFds lists, from outside, the fds of a sandboxed bash waiting on
// its input, and returns them with what it printed.
func commandFds(t *testing.T, f *fixture, m mode, extra bool) (string, string) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	script := `echo ready; read line; env | grep -c _TACKLE_SANDBOX; true`
	if extra {
		script += `; cat <&3`
	}
	cmd := f.command(script, nil)
	cmd.Stdin, cmd.Stdout = inR, outW
	if extra {
		readme, err := os.Open(filepath.Join(f.ws, "README"))
		if err != nil {
			t.Fatal(err)
		}
		defer readme.Close()
		cmd.ExtraFiles = []*os.File{readme}
	}
	if _, err := m.launch.start(cmd, f.policy); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	ready := make([]byte, len("ready\n"))
	if _, err := io.ReadFull(outR, ready); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, e := range entries {
		fd, _ := strconv.Atoi(e.Name())
		fds = append(fds, fd)
	}
	slices.Sort(fds)
	var got string
	for _, fd := range fds {
		got += strconv.Itoa(fd) + " "
	}
	inW.Write([]byte("go\n"))
	inW.Close()
	rest, _ := io.ReadAll(outR)
	if err := cmd.Wait(); err != nil {
		t.Errorf("%v", err)
	}
	return got, string(ready) + string(rest)
}

// inheritedFds are the fds above 2 this process has without close-on-exec
// (inherited from whatever started the test), which a plain exec passes
// on, as "3 4 ".
func inheritedFds(t *testing.T) string {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	slices.Sort(fds)
	var s string
	for _, fd := range fds {
		s += strconv.Itoa(fd) + " "
	}
	return s
}

// The command behaves as it would outside: working directory, environment,
// standard streams, its own pid as session and group leader (Setsid), exit
// status and signals.
func TestCommandBehavesAsBefore(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		var out bytes.Buffer
		cmd := f.command(`pwd -P; echo "$OWN_VAR"; cat; SANDBOX_TEST_HELPER=ids exec "$HELPER"`, &out)
		cmd.Env = append(cmd.Env, "OWN_VAR=own value")
		cmd.Stdin = strings.NewReader("from stdin\n")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if _, err := m.launch.start(cmd, f.policy); err != nil {
			t.Fatal(err)
		}
		if cmd.Path == "/proc/self/exe" || len(cmd.Args) == 0 || cmd.Args[0] != "bash" {
			t.Errorf("cmd shows the launcher: %s %q", cmd.Path, cmd.Args)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		pid := cmd.Process.Pid
		want := fmt.Sprintf("%s\nown value\nfrom stdin\n%d %d %d\n", f.ws, pid, pid, pid)
		if out.String() != want {
			t.Errorf("output %q, want %q", out.String(), want)
		}

		r := f.run(t, m, `exit 7`)
		if code := r.cmd.ProcessState.ExitCode(); code != 7 {
			t.Errorf("exit code %d, want 7", code)
		}
		r = f.run(t, m, `kill -KILL $$`)
		if st := r.cmd.ProcessState.Sys().(syscall.WaitStatus); !st.Signaled() || st.Signal() != syscall.SIGKILL {
			t.Errorf("status %v, want killed by SIGKILL", r.cmd.ProcessState)
		}

		// The group the caller kills is the command's: a child that waits
		// on a pipe dies with it.
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		cmd = f.command(`sleep 1000 & echo started; wait`, nil)
		cmd.Stdout, cmd.Stderr = pw, nil
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if _, err := m.launch.start(cmd, f.policy); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		line := make([]byte, len("started\n"))
		if _, err := io.ReadFull(pr, line); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill the group: %v", err)
		}
		cmd.Wait()
		if rest, _ := io.ReadAll(pr); len(rest) != 0 { // EOF: sleep, which held the pipe, is gone
			t.Errorf("after the group kill: %q", rest)
		}
	})
}

// A command whose standard output is a file outside the writable roots
// (or a terminal) may still open it again by name.
func TestCommandReopensItsStandardStreams(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		out, err := os.Create(filepath.Join(f.root, "out.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		errLog, err := os.Create(filepath.Join(f.root, "err.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer errLog.Close()
		cmd := f.command(`echo a; echo b >> /dev/stdout; echo c >> /proc/self/fd/1; echo d > /dev/stderr`, nil)
		cmd.Stdout, cmd.Stderr = out, errLog
		if _, err := m.launch.start(cmd, f.policy); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%v", err)
		}
		if b, _ := os.ReadFile(out.Name()); string(b) != "a\nb\nc\n" {
			t.Errorf("stdout %q", b)
		}
		// "> /dev/stderr" truncates the file, as it would outside.
		if b, _ := os.ReadFile(errLog.Name()); string(b) != "d\n" {
			t.Errorf("stderr %q", b)
		}
	})
}

// A command whose controlling terminal is a terminal (a caller that does
// not set Setsid) cannot type into it: the seccomp filter refuses TIOCSTI.
// The same helper outside the sandbox can, or the test proves nothing.
func TestCommandCannotTypeIntoItsTerminal(t *testing.T) {
	if auditArch == 0 {
		t.Skip("no seccomp filter for this architecture")
	}
	tiocsti := func(t *testing.T, start func(cmd *exec.Cmd) error) string {
		t.Helper()
		ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer ptmx.Close()
		if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
			t.Fatal(err)
		}
		n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer pts.Close()
		var out bytes.Buffer
		cmd := exec.Command(helperBin)
		cmd.Env = []string{"SANDBOX_TEST_HELPER=tiocsti", "GORACE=atexit_sleep_ms=0"}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		if err := start(cmd); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		return out.String()
	}
	if out := tiocsti(t, func(cmd *exec.Cmd) error { return cmd.Start() }); out != "typed\n" {
		t.Fatalf("outside the sandbox, TIOCSTI: %q", out)
	}
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		for _, network := range []bool{false, true} {
			p := f.policy
			p.Network = network
			out := tiocsti(t, func(cmd *exec.Cmd) error {
				cmd.Dir = f.ws
				_, err := m.launch.start(cmd, p)
				return err
			})
			if out != "error: operation not permitted\n" {
				t.Errorf("network %v: TIOCSTI in the sandbox: %q", network, out)
			}
		}
	})
}

// The kernel's keyrings (the session's, the user's) are out of reach; the
// helper reaches them outside the sandbox, or the test proves nothing.
func TestCommandCannotUseKeyrings(t *testing.T) {
	if auditArch == 0 {
		t.Skip("no seccomp filter for this architecture")
	}
	out, err := exec.Command("env", "SANDBOX_TEST_HELPER=keyctl", "GORACE=atexit_sleep_ms=0", helperBin).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "keyring ") {
		t.Skipf("no keyrings outside the sandbox either: %v %s", err, out)
	}
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		r := f.run(t, m, `SANDBOX_TEST_HELPER=keyctl "$HELPER"`)
		if r.out != "error: operation not permitted\n" {
			t.Errorf("keyctl in the sandbox:\n%s", r)
		}
	})
}
