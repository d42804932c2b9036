package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The protocol with the launcher (launcher_linux.c); keep the two in step.
const (
	planMarker  = "_TACKLE_SANDBOX_PLAN"
	planMagic   = 0x42534b54 // "TKSB"
	planVersion = 1
	launchExit  = 125

	flagHold  = 1
	flagJoin  = 2
	flagProbe = 4

	opClone    = 1
	opAttach   = 2
	opRdonly   = 3
	opMaskDir  = 4
	opMaskFile = 5
	opTmpfs    = 6
	opBind     = 7
	opSeal     = 8
	opRule     = 9
)

// launch is how a command is to be started.
type launch struct {
	level    Level
	abi      int
	ns       *namespaces   // the namespaces to join at LevelFull
	launcher bool          // through the launcher; else from a restricted thread (LevelLandlock only)
	probe    bool          // the launcher exits 0 where it would exec
	rules    *rulesetCache // nil: the process's (rulesets)
}

func (l launch) rulesets() *rulesetCache {
	if l.rules != nil {
		return l.rules
	}
	return rulesets
}

func start(cmd *exec.Cmd, p Policy, level Level, launcher bool) (*Process, error) {
	return launch{level: level, abi: Probe().ABI, ns: shared, launcher: launcher}.start(cmd, p)
}

// namespaces are the user and network namespaces the commands of this
// process share (the network one holds only a loopback that is up); each
// command gets a mount namespace of its own in them.
type namespaces struct {
	user, net *os.File
}

// shared are this process's namespaces, made by the probe when it finds
// LevelFull.
var shared *namespaces

// holdNamespaces has the launcher make the namespaces and keeps them by
// their /proc/PID/ns files, which hold them after it exits.
func holdNamespaces() (*namespaces, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer stdinW.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Stdin: stdinR, Dir: "/"}
	err = startLauncher(cmd, plan{flags: flagHold, dir: "/", path: "/", args: []string{"hold"}}, os.Environ(), nil, nil, false)
	stdinR.Close()
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), ErrLaunch.Error()+": "))
	}
	pid := cmd.Process.Pid
	ns := &namespaces{}
	ns.user, err = os.Open(fmt.Sprintf("/proc/%d/ns/user", pid))
	if err == nil {
		ns.net, err = os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	}
	stdinW.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("namespace holder: %w", werr)
	}
	if err != nil {
		ns.close()
		return nil, err
	}
	return ns, nil
}

func (ns *namespaces) close() {
	if ns.user != nil {
		ns.user.Close()
	}
	if ns.net != nil {
		ns.net.Close()
	}
}

func (l launch) start(cmd *exec.Cmd, p Policy) (*Process, error) {
	switch {
	case cmd.Process != nil:
		return nil, errors.New("sandbox: exec: already started")
	case cmd.Err != nil:
		return nil, cmd.Err
	case cmd.Path == "":
		return nil, errors.New("sandbox: exec: no command")
	case l.level == LevelFull && (!l.launcher || l.ns == nil):
		return nil, fmt.Errorf("start %s: %w (level full needs the launcher and the namespaces)", cmd.Path, ErrUnavailable)
	}
	r, err := resolvePolicy(p, cmd.Dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox policy: %w", err)
	}
	rules := r
	if l.probe && l.level == LevelFull {
		// The probe asks whether the kernel takes a ruleset, not which
		// paths it names, and at LevelFull the hidden paths are empty
		// mounts whatever the ruleset says: left out of its rules, they
		// spare the enumeration of every directory on the way to them
		// (the probe's are under the temporary directory, where a /tmp
		// of 600 entries took 3 ms).
		rules.hidden = nil
	}
	var rs *ruleset
	if l.probe {
		rs, err = buildRuleset(l.abi, rules, l.level, stdio(cmd))
	} else {
		rs, err = l.rulesets().get(l.abi, rules, l.level, stdio(cmd))
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer rs.close()

	proc := &Process{level: l.level, before: l.snapshot(r)}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clone(env)
	var families []uint32 // nil: any
	if l.level == LevelFull {
		env = append(env, "TMPDIR=/tmp")
		if !r.Network {
			families = familiesFull
		}
	} else {
		env = append(env, "TMPDIR="+r.TempDir)
		if !r.Network {
			families = familiesLandlock
		}
	}
	filter := commandFilter(families)

	if !l.launcher {
		err = startThread(cmd, rs, filter, env)
	} else {
		pl := plan{dir: r.dir, path: cmd.Path, args: cmd.Args, filter: filter}
		if len(pl.args) == 0 {
			pl.args = []string{cmd.Path}
		}
		rulesetFile := os.NewFile(uintptr(rs.fd), "landlock-ruleset")
		rs.fd = -1
		defer rulesetFile.Close()
		var ns *namespaces
		if l.level == LevelFull {
			pl.flags = flagJoin
			pl.ops = mounts(r, l.abi)
			ns = l.ns
		}
		if l.probe {
			pl.flags |= flagProbe
		}
		err = startLauncher(cmd, pl, env, rulesetFile, ns, r.Network)
	}
	if err != nil {
		return nil, err
	}
	return proc, nil
}

// snapshot records the protected paths before the command runs: at
// LevelLandlock everything under those in writable roots; at either level
// whether the missing ones exist.
func (l launch) snapshot(r resolved) snapshot {
	var paths []string
	if l.level == LevelLandlock {
		for _, p := range r.protected {
			if slices.ContainsFunc(r.writable, func(w string) bool { return within(p, w) }) {
				paths = append(paths, p)
			}
		}
	}
	return takeSnapshot(paths, r.missing)
}

func stdio(cmd *exec.Cmd) [3]*os.File {
	var files [3]*os.File
	files[0], _ = cmd.Stdin.(*os.File)
	files[1], _ = cmd.Stdout.(*os.File)
	files[2], _ = cmd.Stderr.(*os.File)
	return files
}

// mounts is the mount plan of LevelFull:
//   - every mount read-only, but the writable roots, cloned before and put
//     back (Landlock does not control a file's mode, owner or times: a
//     read-only mount does);
//   - the private temp dir over /tmp, with the roots that lay under /tmp
//     put back at their paths (read-only ones read-only: under the temp
//     dir they would have its Landlock rights);
//   - the protected paths read-only, the directories on the way to them
//     mounts of themselves (see protectMounts);
//   - the hidden paths covered (an empty tmpfs over a directory,
//     /dev/null over a file) unless a writable root lies in one;
//   - a private, writable /dev/shm.
func mounts(r resolved, abi int) []mountOp {
	tmp := realTmp()
	type root struct {
		path     string
		writable bool
	}
	var roots []root
	add := func(p string, writable bool) {
		if !slices.ContainsFunc(roots, func(o root) bool { return within(p, o.path) && (o.writable || !writable) }) {
			roots = append(roots, root{p, writable})
		}
	}
	var candidates []root
	for _, w := range r.writable {
		// The temp dir is /tmp; at its own path too only when it is the
		// workspace or holds the working directory.
		if w != r.TempDir || w == r.Workspace || within(r.dir, w) {
			candidates = append(candidates, root{w, true})
		}
	}
	for _, p := range []string{r.Workspace, r.dir} {
		if within(p, tmp) && !slices.Contains(r.writable, p) {
			candidates = append(candidates, root{p, false})
		}
	}
	slices.SortFunc(candidates, func(a, b root) int { return strings.Compare(a.path, b.path) })
	for _, c := range candidates {
		add(c.path, c.writable)
	}

	ops := []mountOp{{op: opClone, path: r.TempDir}}
	for _, o := range roots {
		ro := uint32(0)
		if !o.writable {
			ro = 1
		}
		ops = append(ops, mountOp{op: opClone, arg: ro, path: o.path})
	}
	ops = append(ops, mountOp{op: opSeal, path: "/"})
	// The temp dir goes over /tmp after the roots above /tmp and before
	// those in it (a root that is /tmp itself puts the host's back).
	attached := false
	for i, o := range roots {
		if !attached && (within(o.path, tmp) || o.path > tmp && !within(tmp, o.path)) {
			ops = append(ops, mountOp{op: opAttach, arg: 0, path: tmp})
			attached = true
		}
		ops = append(ops, mountOp{op: opAttach, arg: uint32(i + 1), path: o.path})
	}
	if !attached {
		ops = append(ops, mountOp{op: opAttach, arg: 0, path: tmp})
	}

	// What lies under /tmp is gone but for the roots put back there.
	visible := func(p string) bool {
		return !within(p, tmp) || slices.ContainsFunc(roots, func(o root) bool { return within(o.path, tmp) && within(p, o.path) })
	}
	ops = append(ops, protectMounts(r, visible)...)
	for _, h := range r.hidden {
		if !visible(h) || slices.ContainsFunc(append([]string{r.dir}, r.writable...), func(w string) bool { return within(w, h) }) {
			continue
		}
		fi, err := os.Lstat(h)
		switch {
		case err != nil:
		case fi.IsDir():
			ops = append(ops, mountOp{op: opMaskDir, path: h})
		default:
			ops = append(ops, mountOp{op: opMaskFile, path: h})
		}
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		ops = append(ops,
			mountOp{op: opTmpfs, path: "/dev/shm"},
			mountOp{op: opRule, arg: uint32(accessWrite & handled(abi, false, LevelFull).fs), path: "/dev/shm"})
	}
	return ops
}

// protectMounts makes the protected paths in writable roots read-only
// mounts, and the directories between a root and a protected path mounts
// of themselves: a directory holding a mount can be renamed, and a new
// one made in its place (mv sub x && mkdir -p sub/.git), but a mount
// point cannot (EBUSY). Parents come before what is in them.
func protectMounts(r resolved, visible func(string) bool) []mountOp {
	rdonly := map[string]bool{}
	for _, p := range r.protected {
		var root string
		for _, w := range r.writable {
			if within(p, w) && len(w) > len(root) {
				root = w
			}
		}
		if root == "" || !visible(p) {
			continue
		}
		rdonly[p] = true
		for a := filepath.Dir(p); a != root && within(a, root); a = filepath.Dir(a) {
			if _, ok := rdonly[a]; !ok {
				rdonly[a] = false
			}
		}
	}
	var ops []mountOp
	for _, p := range slices.Sorted(maps.Keys(rdonly)) {
		op := opBind
		if rdonly[p] {
			op = opRdonly
		}
		ops = append(ops, mountOp{op: uint32(op), path: p})
	}
	return ops
}

type mountOp struct {
	op, arg uint32
	path    string
}

// plan is what the launcher does, encoded for it by encode.
type plan struct {
	flags                    uint32
	rulesetFD, userFD, netFD int
	ops                      []mountOp
	dir                      string
	path                     string
	args                     []string
	filter                   []unix.SockFilter
}

func (p plan) encode(statusFD int) ([]byte, error) {
	var b []byte
	u32 := func(v uint32) { b = binary.NativeEndian.AppendUint32(b, v) }
	var bad error
	str := func(s string) {
		if strings.IndexByte(s, 0) >= 0 {
			bad = fmt.Errorf("sandbox: %q holds a NUL byte", s)
		}
		u32(uint32(len(s) + 1))
		b = append(append(b, s...), 0)
	}
	u32(planMagic)
	u32(planVersion)
	u32(p.flags)
	u32(uint32(p.rulesetFD))
	u32(uint32(statusFD))
	u32(uint32(p.userFD))
	u32(uint32(p.netFD))
	u32(uint32(len(p.ops)))
	for _, op := range p.ops {
		u32(op.op)
		u32(op.arg)
		str(op.path)
	}
	str(p.dir)
	str(p.path)
	u32(uint32(len(p.args)))
	for _, a := range p.args {
		str(a)
	}
	u32(uint32(len(p.filter)))
	for _, f := range p.filter {
		b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(&f)), unsafe.Sizeof(f))...)
	}
	return b, bad
}

// startLauncher starts cmd through the launcher: the binary itself
// (/proc/self/exe), whose constructor reads the plan from a sealed memfd,
// sets the sandbox up and execs the command. Its own fds follow cmd's
// ExtraFiles: the plan, the status pipe, then the ruleset and the
// namespaces it joins (the network one unless network), where given. It
// returns once the command runs, or the launcher's reason for not
// running it.
func startLauncher(cmd *exec.Cmd, pl plan, env []string, ruleset *os.File, ns *namespaces, network bool) error {
	memfd, err := unix.MemfdCreate("tackle-sandbox-plan", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return fmt.Errorf("sandbox plan: %w", err)
	}
	planFile := os.NewFile(uintptr(memfd), "tackle-sandbox-plan")
	defer planFile.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox status pipe: %w", err)
	}
	defer statusR.Close()
	defer statusW.Close()

	base := 3 + len(cmd.ExtraFiles)
	files := []*os.File{planFile, statusW}
	fd := func(f *os.File) int {
		if f == nil {
			return -1
		}
		files = append(files, f)
		return base + len(files) - 1
	}
	pl.rulesetFD, pl.userFD, pl.netFD = fd(ruleset), -1, -1
	if ns != nil {
		pl.userFD = fd(ns.user)
		if !network {
			pl.netFD = fd(ns.net)
		}
	}
	data, err := pl.encode(base + 1)
	if err != nil {
		return err
	}
	if _, err := planFile.Write(data); err != nil {
		return fmt.Errorf("sandbox plan: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(memfd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		return fmt.Errorf("sandbox plan: seal: %w", err)
	}

	path, args, extra, origEnv := cmd.Path, cmd.Args, cmd.ExtraFiles, cmd.Env
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{"tackle-sandbox"}
	cmd.ExtraFiles = append(slices.Clone(extra), files...)
	cmd.Env = append(env, planMarker+"="+strconv.Itoa(base))
	err = cmd.Start()
	cmd.Path, cmd.Args, cmd.ExtraFiles, cmd.Env = path, args, extra, origEnv
	statusW.Close()
	if err != nil {
		return err
	}
	// The launcher marks its end close-on-exec: EOF once the command runs.
	msg, _ := io.ReadAll(statusR)
	if len(msg) == 0 {
		return nil
	}
	cmd.Wait()
	return fmt.Errorf("%w: %s", ErrLaunch, strings.TrimSpace(string(msg)))
}

// startThread starts cmd at LevelLandlock without the launcher: the
// restrictions are applied to one OS thread, which starts the command
// (a child inherits the credentials of the thread that forks it) and is
// then ended by the runtime, as a goroutine that returns while locked to
// its thread ends it. That thread is never the main one, whose /proc
// entries and signals stand for the process. While it lives, the command
// shares its Landlock domain, so the process is made non-dumpable first:
// the command cannot read or write its memory through the thread's
// /proc entries.
func startThread(cmd *exec.Cmd, rs *ruleset, filter []unix.SockFilter, env []string) error {
	if err := notDumpable(); err != nil {
		return err
	}
	return onSpareThread(func() error { return restrictAndStart(cmd, rs, filter, env) })
}

// onSpareThread calls f on an OS thread of its own that is not the main
// one, and that the runtime ends once f returns: what f does to the
// thread (credentials, filters) stays with it.
func onSpareThread(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			done <- f()
			return // locked: ends the thread
		}
		// Hold the main thread so that the goroutine below cannot get it.
		inner := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			inner <- f()
		}()
		done <- <-inner
		runtime.UnlockOSThread()
	}()
	return <-done
}

var notDumpable = sync.OnceValue(func() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: make the process non-dumpable: %w", err)
	}
	return nil
})

// restrictAndStart restricts the calling thread, which must be locked
// and not the main one, and starts cmd from it.
func restrictAndStart(cmd *exec.Cmd, rs *ruleset, filter []unix.SockFilter, env []string) error {
	if unix.Gettid() == unix.Getpid() {
		return errors.New("sandbox: refusing to restrict the main thread")
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("%w: no_new_privs: %v", ErrLaunch, err)
	}
	if err := installFilter(filter); err != nil {
		return fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rs.fd), 0, 0); errno != 0 {
		return fmt.Errorf("%w: landlock_restrict_self: %v", ErrLaunch, errno)
	}
	if err := dropThreadCaps(); err != nil {
		return fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	orig := cmd.Env
	cmd.Env = env
	err := cmd.Start()
	cmd.Env = orig
	return err
}

// dropThreadCaps is the launcher's drop_caps for the calling thread.
func dropThreadCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7 // NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE and their locks; KEEP_CAPS_LOCKED
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
			return fmt.Errorf("set securebits: %w", err)
		}
		for c := 0; c < 64; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				if err == unix.EINVAL {
					break
				}
				return fmt.Errorf("drop bounding capability %d: %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

func lstat(path string) (fileState, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileState{}, err
	}
	return fileState{
		mode:  os.FileMode(st.Mode),
		size:  st.Size,
		ino:   st.Ino,
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
	}, nil
}
