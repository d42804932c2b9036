package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The test binary is also the helper the sandboxed commands run (as
// $HELPER, with SANDBOX_TEST_HELPER naming what to do): a copy of it
// where the sandbox can execute it (the go-build directory is under /tmp,
// which LevelFull replaces) and uid 65534 can too.
var helperBin string

// secretEnv is in the test process's environment: no command may read it.
const secretEnv = "SECRET-ENV-of-the-test-process"

// The fixtures live under /var/tmp: under /tmp, LevelFull would hide
// everything that is not a writable root, and a hidden path would be
// hidden for that reason alone.
const fixtureBase = "/var/tmp"

func TestMain(m *testing.M) {
	if action := os.Getenv("SANDBOX_TEST_HELPER"); action != "" {
		os.Exit(helper(action, os.Args[1:]))
	}
	os.Setenv("SANDBOX_TEST_SECRET", secretEnv)
	dir, err := copyHelper()
	if err != nil {
		fmt.Fprintln(os.Stderr, "copy the test binary:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func copyHelper() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(fixtureBase, "tackle-sandbox-helper-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return dir, err
	}
	helperBin = filepath.Join(dir, "sandbox.test")
	in, err := os.Open(self)
	if err != nil {
		return dir, err
	}
	defer in.Close()
	out, err := os.OpenFile(helperBin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return dir, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return dir, err
	}
	return dir, out.Close()
}

// helper does what a sandboxed command asks of the helper binary and
// returns its exit code.
func helper(action string, args []string) int {
	fail := func(err error) int {
		fmt.Println("error:", err)
		return 1
	}
	switch action {
	case "ids": // pid, process group, session
		pgid, _ := unix.Getpgid(0)
		sid, _ := unix.Getsid(0)
		fmt.Println(os.Getpid(), pgid, sid)
	case "connect-unix": // connect to a unix socket by path or, with @, abstract name
		c, err := net.Dial("unix", args[0])
		if err != nil {
			return fail(err)
		}
		c.Write([]byte("from the sandbox\n"))
		c.Close()
		fmt.Println("connected")
	case "serve-dial": // a local TCP server and a client of it
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fail(err)
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Write([]byte("pong"))
				c.Close()
			}
		}()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			return fail(err)
		}
		b, err := io.ReadAll(c)
		if err != nil {
			return fail(err)
		}
		fmt.Println(string(b))
	case "ptrace": // attach to a process
		var pid int
		fmt.Sscan(args[0], &pid)
		runtime.LockOSThread()
		if err := unix.PtraceAttach(pid); err != nil {
			return fail(err)
		}
		fmt.Println("attached")
	case "tiocsti": // type a character into the terminal on stdin
		c := byte('x')
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c))); errno != 0 {
			return fail(errno)
		}
		fmt.Println("typed")
	case "keyctl": // the session keyring's id
		id, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, true)
		if err != nil {
			return fail(err)
		}
		fmt.Println("keyring", id)
	case "probe": // the probe's report, and what Start makes of true
		r := Probe()
		cmd := exec.Command("true")
		dir, _ := os.MkdirTemp(args[0], "probe-")
		_, err := Start(cmd, Policy{Workspace: dir, TempDir: dir})
		if err == nil {
			err = cmd.Wait()
		}
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		json.NewEncoder(os.Stdout).Encode(probeResult{r.Level, r.ABI, r.Reasons, errText})
	case "nested": // Start a command with a policy that allows everything
		cmd := exec.Command("bash", "-c", args[0])
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		tmp, err := os.MkdirTemp(args[1], "nested-")
		if err != nil {
			return fail(err)
		}
		p, err := Start(cmd, Policy{Workspace: "/", Writable: []string{"/"}, TempDir: tmp, Network: true})
		if err != nil {
			return fail(err)
		}
		if err := cmd.Wait(); err != nil {
			return fail(err)
		}
		fmt.Println("nested level", p.Level())
	default:
		fmt.Println("unknown helper action", action)
		return 2
	}
	return 0
}

type probeResult struct {
	Level   Level
	ABI     int
	Reasons []string
	Start   string // the error of Start, if any
}

// mode is one way to sandbox a command: a level, and at LevelLandlock
// with or without the launcher.
type mode struct {
	name   string
	launch launch
}

// forEachMode runs f in a parallel subtest for each mode: full,
// landlock (the launcher without namespaces) and landlock-thread (from a
// restricted thread, as a binary without cgo does). A mode the machine
// does not allow is skipped, with the probe's reasons.
func forEachMode(t *testing.T, f func(t *testing.T, m mode)) {
	r := Probe()
	all := []mode{
		{"full", launch{level: LevelFull, abi: r.ABI, ns: shared, launcher: true}},
		{"landlock", launch{level: LevelLandlock, abi: r.ABI, launcher: true}},
		{"landlock-thread", launch{level: LevelLandlock, abi: r.ABI}},
	}
	for _, m := range all {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			if r.Level < m.launch.level || (m.launch.launcher && !haveLauncher) {
				t.Skipf("this machine's sandbox: %s", r)
			}
			f(t, m)
		})
	}
}

// fixture is a fake home with secrets, a workspace with protected paths,
// a private temp dir and a cache, and the policy over them.
type fixture struct {
	root, home, ws, tmp, cache string
	policy                     Policy
}

// Secrets in the fake home: no command may print one.
var secrets = map[string]string{
	".ssh/id_ed25519":      "SECRET-ssh-key",
	".aws/credentials":     "SECRET-aws-credentials",
	".netrc":               "SECRET-netrc",
	".config/gh/hosts.yml": "SECRET-gh-token",
}

// newFixture makes a fixture under base (fixtureBase when empty); with
// homeIsWorkspace the workspace is the home itself, so that the hidden
// paths lie inside a writable root.
func newFixture(t testing.TB, base string, homeIsWorkspace bool) *fixture {
	t.Helper()
	if base == "" {
		base = fixtureBase
	}
	root, err := os.MkdirTemp(base, "tackle-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	root, _ = filepath.EvalSymlinks(root)
	f := &fixture{root: root, home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), cache: filepath.Join(root, "cache")}
	f.ws = filepath.Join(f.home, "proj")
	if homeIsWorkspace {
		f.ws = f.home
	}
	files := map[string]string{
		"home/.bashrc":                    "# bashrc",
		"home/notes.txt":                  "notes",
		"ws/README":                       "readme",
		"ws/.git/HEAD":                    "ref: refs/heads/main\n",
		"ws/.git/config":                  "[core]\n",
		"ws/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
		"ws/sub/.git/config":              "[core]\n",
		"ws/.tackle/config.json":          "{}",
		"ws/.claude/settings.json":        "{}",
		"ws/.mcp.json":                    "{}",
		"ws/hooks/check.sh":               "#!/bin/sh\n",
		"tmp/.keep":                       "",
		"cache/.keep":                     "",
	}
	for rel, secret := range secrets {
		files["home/"+rel] = secret
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if r, ok := strings.CutPrefix(rel, "ws/"); ok {
			p = filepath.Join(f.ws, r)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.policy = Policy{
		Workspace: f.ws,
		Writable:  []string{f.cache},
		TempDir:   f.tmp,
		Protected: []string{
			filepath.Join(f.ws, ".git"), filepath.Join(f.ws, "sub/.git"), filepath.Join(f.ws, ".tackle"),
			filepath.Join(f.ws, ".claude"), filepath.Join(f.ws, ".mcp.json"), filepath.Join(f.ws, "hooks/check.sh"),
			filepath.Join(f.ws, ".missing"),
		},
		Hidden: []string{
			filepath.Join(f.home, ".ssh"), filepath.Join(f.home, ".aws"), filepath.Join(f.home, ".netrc"),
			filepath.Join(f.home, ".config/gh"),
		},
	}
	return f
}

func (f *fixture) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + f.home,
		"LANG=C", "LC_ALL=C",
		"HELPER=" + helperBin,
		"GORACE=atexit_sleep_ms=0", // a -race helper would sleep a second at exit
		"WS=" + f.ws,
		"ROOT=" + f.root,
		"CACHE=" + f.cache,
	}
}

// command is bash -c script in the workspace, with the fixture's
// environment, its output going to out.
func (f *fixture) command(script string, out io.Writer) *exec.Cmd {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = f.env()
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	return cmd
}

// result is how a sandboxed command ended.
type result struct {
	out  string
	err  error
	proc *Process
	cmd  *exec.Cmd
}

func (r result) String() string { return fmt.Sprintf("exit: %v\noutput:\n%s", r.err, r.out) }

// run runs script in the sandbox of mode m with the fixture's policy
// (or p, when given).
func (f *fixture) run(t *testing.T, m mode, script string, p ...Policy) result {
	t.Helper()
	var out bytes.Buffer
	cmd := f.command(script, &out)
	pol := f.policy
	if len(p) > 0 {
		pol = p[0]
	}
	proc, err := m.launch.start(cmd, pol)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	err = cmd.Wait()
	return result{out: out.String(), err: err, proc: proc, cmd: cmd}
}

// mustRun is run that fails the test unless the command succeeds.
func (f *fixture) mustRun(t *testing.T, m mode, script string, p ...Policy) result {
	t.Helper()
	r := f.run(t, m, script, p...)
	if r.err != nil {
		t.Fatalf("%s\n%s", script, r)
	}
	return r
}

// digest sums the names, modes, times and contents of everything under
// root but the skipped trees (or says it is gone).
func digest(t *testing.T, root string, skip ...string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skip, p) {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			fmt.Fprintln(h, l)
		}
		return nil
	})
	if err != nil {
		return "gone: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// outside is the digest of the fixture but its writable roots.
func (f *fixture) outside(t *testing.T) string {
	return digest(t, f.root, f.ws, f.tmp, f.cache)
}

// digests is digest of each path.
func digests(t *testing.T, paths []string) map[string]string {
	d := map[string]string{}
	for _, p := range paths {
		d[p] = digest(t, p)
	}
	return d
}

// noSecret fails the test if out holds a secret of the fixture or the
// test process's environment.
func noSecret(t *testing.T, what, out string) {
	t.Helper()
	all := []string{secretEnv}
	for _, s := range secrets {
		all = append(all, s)
	}
	sort.Strings(all)
	for _, s := range all {
		if strings.Contains(out, s) {
			t.Errorf("%s: the output holds %s:\n%s", what, s, out)
		}
	}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
