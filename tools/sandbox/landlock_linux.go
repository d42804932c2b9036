package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights, by the ABI version that brought them.
const (
	fsABI1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsABI2 = fsABI1 | unix.LANDLOCK_ACCESS_FS_REFER
	fsABI3 = fsABI2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	fsABI5 = fsABI3 | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	netTCP = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP

	scopes = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL

	// What a command may do where it may read.
	accessRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// And where it may write: everything but making devices (which needs
	// a capability anyway) and device ioctls.
	accessWrite = accessRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_SYM |
		unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	// The rights that apply to a file that is not a directory.
	accessFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// A device a command may read and write (/dev/null …).
	accessDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// landlockABI is the kernel's Landlock ABI version.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case 0:
		return int(v), nil
	case unix.ENOSYS:
		return 0, errors.New("landlock: the kernel does not have it (Linux 5.13 or later)")
	case unix.EOPNOTSUPP:
		return 0, errors.New("landlock: disabled in this kernel (boot option lsm=)")
	}
	return 0, fmt.Errorf("landlock: %w", errno)
}

// rulesetAttr is struct landlock_ruleset_attr as far as ABI 6 has it;
// older kernels are given the prefix they know.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// handled are the rights a ruleset for the ABI handles (denies unless a
// rule allows them).
func handled(abi int, network bool, level Level) rulesetAttr {
	var a rulesetAttr
	switch {
	case abi >= 5:
		a.fs = fsABI5
	case abi >= 3:
		a.fs = fsABI3
	case abi == 2:
		a.fs = fsABI2
	default:
		a.fs = fsABI1
	}
	// At LevelFull the network namespace cuts the network and leaves the
	// loopback of its own; Landlock's TCP rules (per port only) would
	// take that too.
	if abi >= 4 && !network && level == LevelLandlock {
		a.net = netTCP
	}
	if abi >= 6 {
		a.scoped = scopes
	}
	return a
}

// ruleset builds a Landlock ruleset, noting what it was built from
// (rulesetCache).
type ruleset struct {
	fd     int
	access rulesetAttr
	from   []fsState // the roots given rules and the directories listed
}

func newRuleset(abi int, a rulesetAttr) (*ruleset, error) {
	size := unsafe.Sizeof(a.fs)
	switch {
	case abi >= 6:
		size = unsafe.Sizeof(a)
	case abi >= 4:
		size = unsafe.Offsetof(a.scoped)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&a)), size, 0)
	if errno != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return &ruleset{fd: int(fd), access: a}, nil
}

func (r *ruleset) close() { unix.Close(r.fd) }

// rule lets the hierarchy at path be accessed as access says (as far as
// the ruleset handles it; a file that is not a directory gets the rights
// that apply to files). Paths that do not exist, or cannot be opened, get
// no rule.
func (r *ruleset) rule(path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	return r.ruleFD(fd, access)
}

func (r *ruleset) ruleFD(fd int, access uint64) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule: %w", err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return nil // a rule on a link itself grants nothing
	default:
		access &= accessFile
	}
	access &= r.access.fs
	if access == 0 {
		return nil
	}
	// struct landlock_path_beneath_attr is packed (12 bytes): the kernel
	// reads the first 12 bytes of this one, which has the same layout.
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(r.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", fdPath(fd), errno)
	}
	return nil
}

func fdPath(fd int) string {
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return fmt.Sprintf("fd %d", fd)
	}
	return p
}

// grant lets the hierarchy at root be accessed as access says, except the
// denied paths under it. Landlock only adds rights, so a denied path
// under root is left out by enumeration: each entry along the way to it
// gets the rule instead of its directory (entries added later get none,
// and the directories on the way cannot be listed). Symbolic links are
// not followed: a link's target is allowed or not where it lies.
func (r *ruleset) grant(root string, access uint64, denied []string) error {
	r.from = append(r.from, stateOf(root, false))
	return r.grantUnder(root, access, denied)
}

// grantUnder is grant for root, which is root's or an entry of a
// directory listed on the way to a denied path (whose state covers the
// entry: replacing it changes the directory).
func (r *ruleset) grantUnder(root string, access uint64, denied []string) error {
	if !slices.ContainsFunc(denied, func(d string) bool { return d != root && within(d, root) }) {
		return r.rule(root, access)
	}
	r.from = append(r.from, stateOf(root, true)) // before the listing: a later change shows
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil // cannot be listed: nothing under it is granted
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		p := filepath.Join(root, e.Name())
		if slices.Contains(denied, p) {
			continue
		}
		if err := r.grantUnder(p, access, denied); err != nil {
			return err
		}
	}
	return nil
}

// stdioAccess lets the command open its own standard streams again by
// name (/dev/stdout, /proc/self/fd/1) when they are files or terminals;
// pipes need no rule.
func (r *ruleset) stdioAccess(files [3]*os.File) error {
	for i, f := range files {
		if f == nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			continue
		}
		var access uint64
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFCHR:
			access = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		default:
			continue
		}
		if i == 0 {
			access |= unix.LANDLOCK_ACCESS_FS_READ_FILE
		} else {
			access |= unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
		}
		fd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		err = r.ruleFD(fd, access)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}

// devices a command may use; the rest of /dev is denied (raw disks are
// readable by uid 0, which a command is when tackle runs as root).
var devices = []struct {
	path   string
	access uint64
}{
	{"/dev/null", accessDevice},
	{"/dev/zero", accessDevice},
	{"/dev/full", accessDevice},
	{"/dev/random", unix.LANDLOCK_ACCESS_FS_READ_FILE},
	{"/dev/urandom", unix.LANDLOCK_ACCESS_FS_READ_FILE},
}

// buildRuleset is the Landlock ruleset of a policy at a level:
//   - read and execute everything but the hidden paths, /dev (but for
//     the devices above) and, at LevelLandlock, /tmp;
//   - write the writable roots; at LevelLandlock not the hidden paths
//     in them (at LevelFull those are covered by mounts);
//   - at LevelFull, list every directory (the hidden ones are empty
//     mounts there; the launcher grants its private /dev/shm);
//   - reopen the standard streams that are files or terminals;
//   - no TCP at LevelLandlock without network (ABI 4);
//   - no signals or abstract unix sockets out of the sandbox (ABI 6).
func buildRuleset(abi int, r resolved, level Level, stdio [3]*os.File) (*ruleset, error) {
	rs, err := newRuleset(abi, handled(abi, r.Network, level))
	if err != nil {
		return nil, err
	}
	internal := []string{"/dev"}
	if level == LevelLandlock {
		internal = append(internal, realTmp())
	}
	readDenied := append(slices.Clone(internal), r.hidden...)
	writeDenied := internal
	if level == LevelLandlock {
		writeDenied = readDenied
	}
	if level == LevelFull {
		// Listing is harmless where the hidden directories are empty
		// mounts, and a sandbox nested in this one must list the
		// directories on the way to its own hidden paths.
		err = rs.rule("/", unix.LANDLOCK_ACCESS_FS_READ_DIR)
		rs.from = append(rs.from, stateOf("/", false))
	}
	if err == nil {
		err = rs.grant("/", accessRead, readDenied)
	}
	for _, w := range r.writable {
		if err == nil {
			err = rs.grant(w, accessWrite, writeDenied)
		}
	}
	for _, d := range devices {
		if err == nil {
			err = rs.rule(d.path, d.access)
			rs.from = append(rs.from, stateOf(d.path, false))
		}
	}
	if err == nil {
		err = rs.stdioAccess(stdio)
	}
	if err != nil {
		rs.close()
		return nil, err
	}
	return rs, nil
}

// realTmp is /tmp with its links resolved.
func realTmp() string {
	if p, err := filepath.EvalSymlinks("/tmp"); err == nil {
		return p
	}
	return "/tmp"
}
