package sandboxtest

import (
	"fmt"
	"os/exec"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArches are the architectures whose system call numbers the filter
// of StartWithoutNamespaces knows (x/sys/unix's SYS_* of the build).
var auditArches = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}

// StartWithoutNamespaces starts cmd as cmd.Start does, but where user
// namespaces are refused, as a container's seccomp profile refuses them
// (Docker's default): unshare and clone fail with EPERM when asked for a
// user namespace, and clone3, whose flags a filter cannot read, is
// missing. A tackle started so finds the sandbox at level landlock at
// best, and cmd runs with no_new_privs. It fails on an architecture the
// filter does not know.
func StartWithoutNamespaces(cmd *exec.Cmd) error {
	arch, ok := auditArches[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	const (
		offNr, offArch, offArg0 = 0, 4, 16 // in struct seccomp_data (little endian)
		ld                      = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq                     = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset                    = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret                     = unix.BPF_RET | unix.BPF_K
		allow                   = unix.SECCOMP_RET_ALLOW
	)
	filter := []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, K: arch, Jt: 0, Jf: 7}, // another architecture: allow
		{Code: ld, K: offNr},
		{Code: jeq, K: unix.SYS_CLONE3, Jt: 6, Jf: 0},
		{Code: jeq, K: unix.SYS_UNSHARE, Jt: 1, Jf: 0},
		{Code: jeq, K: unix.SYS_CLONE, Jt: 0, Jf: 3},
		{Code: ld, K: offArg0}, // the flags of both
		{Code: jset, K: unix.CLONE_NEWUSER, Jt: 0, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: ret, K: allow},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	errc := make(chan error)
	go func() {
		// The thread is never unlocked: it ends with the goroutine, and
		// its filter with it. The child inherits the filter from the
		// thread that starts it.
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("no_new_privs: %w", err)
			return
		}
		prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
		if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
			errc <- fmt.Errorf("seccomp: %w", e)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
