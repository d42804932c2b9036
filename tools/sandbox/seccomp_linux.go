package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A seccomp filter, as classic BPF over struct seccomp_data.
const (
	offNr   = 0  // the system call number
	offArch = 4  // AUDIT_ARCH_*
	offArg0 = 16 // the low 32 bits of the first argument (little endian)
	offArg1 = 24 // of the second

	retAllow = unix.SECCOMP_RET_ALLOW
)

func retErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// bpfInsn is one instruction; jumps name their targets by label ("" is
// the next instruction).
type bpfInsn struct {
	label  string
	code   uint16
	k      uint32
	jt, jf string
}

func ld(off uint32) bpfInsn { return bpfInsn{code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: off} }
func jeq(k uint32, jt, jf string) bpfInsn {
	return bpfInsn{code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func jge(k uint32, jt, jf string) bpfInsn {
	return bpfInsn{code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func jset(k uint32, jt, jf string) bpfInsn {
	return bpfInsn{code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func ret(k uint32) bpfInsn { return bpfInsn{code: unix.BPF_RET | unix.BPF_K, k: k} }

func labelled(label string, in bpfInsn) bpfInsn { in.label = label; return in }

// assemble resolves the labels of prog. Jumps only go forward, at most
// 255 instructions.
func assemble(prog []bpfInsn) []unix.SockFilter {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		off := func(label string) uint8 {
			if label == "" {
				return 0
			}
			to, ok := at[label]
			if !ok || to <= i || to-i-1 > 255 {
				panic(fmt.Sprintf("seccomp filter: bad jump from %d to %q", i, label))
			}
			return uint8(to - i - 1)
		}
		out[i] = unix.SockFilter{Code: in.code, K: in.k, Jt: off(in.jt), Jf: off(in.jf)}
	}
	return out
}

// Address families a command may open sockets of when the network is
// off. At LevelFull the network namespace holds only a loopback, so IP
// stays (a test's local server); unix sockets do not at either level:
// a path names a socket outside any namespace (the Docker daemon's, the
// session bus) and Landlock does not control connecting to it. Netlink
// reads the namespace's own interfaces.
var (
	familiesFull     = []uint32{unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}
	familiesLandlock = []uint32{unix.AF_NETLINK}
)

// commandFilter is the seccomp filter of every sandboxed command: the
// ioctls that type into a terminal (TIOCSTI) or read and write its screen
// (TIOCLINUX) fail with EPERM, should a terminal reach the command; so do
// the kernel's keyrings (keyctl, add_key, request_key: the session and
// user keyrings hold secrets, and Landlock does not control them); every
// system call of another architecture's table (i386 and x32 ones on
// amd64) is missing, as they would get around the rules. Without network
// (families not nil) also a socket of another family than allowed fails
// with EACCES, and io_uring, whose operations do not pass through
// seccomp, is missing. nil where the architecture has no filter.
func commandFilter(families []uint32) []unix.SockFilter {
	if auditArch == 0 {
		return nil
	}
	p := []bpfInsn{
		ld(offArch),
		jeq(auditArch, "", "nosys"),
		ld(offNr),
	}
	if x32Bit != 0 {
		p = append(p, jge(x32Bit, "nosys", ""))
	}
	p = append(p,
		jeq(unix.SYS_IOCTL, "ioctl", ""),
		jeq(unix.SYS_KEYCTL, "eperm", ""),
		jeq(unix.SYS_ADD_KEY, "eperm", ""),
		jeq(unix.SYS_REQUEST_KEY, "eperm", ""),
	)
	if families != nil {
		p = append(p,
			jeq(unix.SYS_IO_URING_SETUP, "nosys", ""),
			jeq(unix.SYS_SOCKET, "socket", ""),
		)
	}
	p = append(p,
		ret(retAllow),
		labelled("ioctl", ld(offArg1)),
		jeq(unix.TIOCSTI, "eperm", ""),
		jeq(unix.TIOCLINUX, "eperm", "allow"),
		labelled("eperm", ret(retErrno(unix.EPERM))),
	)
	if families != nil {
		p = append(p, labelled("socket", ld(offArg0)))
		for _, f := range families {
			p = append(p, jeq(f, "allow", ""))
		}
		p = append(p, ret(retErrno(unix.EACCES)))
	}
	p = append(p,
		labelled("allow", ret(retAllow)),
		labelled("nosys", ret(retErrno(unix.ENOSYS))),
	)
	return assemble(p)
}

// installFilter installs filter on the calling thread (no_new_privs must
// be set).
func installFilter(filter []unix.SockFilter) error {
	if len(filter) == 0 {
		return nil
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
