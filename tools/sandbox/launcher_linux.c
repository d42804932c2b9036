//go:build linux && cgo

// The sandbox launcher: code that runs between the clone and the exec of a
// sandboxed command, before the Go runtime of the binary starts.
//
// Every binary that links tools/sandbox carries this constructor. It does
// nothing unless the environment names a plan (the marker variable, set
// only by the Go side in the parent): then it reads the plan the parent
// wrote into a sealed memfd and either
//   - holds namespaces (F_HOLD): makes a user and a network namespace
//     (uid and gid mapped to themselves, lo up) that the parent keeps by
//     their /proc/PID/ns files, for every command to join; or
//   - launches a command: joins those namespaces when the plan asks
//     (F_JOIN) and makes a mount namespace of its own with the mounts
//     (private /tmp, read-only protected paths, masks over hidden ones),
//     sets no_new_privs, installs the seccomp filter, enters the Landlock
//     domain the parent built, drops every capability, removes the marker
//     from the environment, closes its own fds and execs the command in
//     place: the pid the caller holds becomes the command's.
//
// Any failure writes one line to the status pipe and exits with
// LAUNCH_EXIT; the command never runs outside the sandbox. Everything runs
// on the single thread the process has before main: raw system calls, no
// malloc (buffers come from mmap), no stdio.
//
// Inside a sandbox, running this again (the command execs tackle, or any
// binary that links the package, with a crafted plan) only restricts
// further: Landlock refuses mount, umount and the writes to
// /proc/self/uid_map, the seccomp filter and no_new_privs stay, and a new
// Landlock domain nests inside the old one.
//
// This is security code: keep it small, and review every change as such.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// The protocol with launcher_linux.go; keep the two in step.
#define MARKER "_TACKLE_SANDBOX_PLAN"
#define PLAN_MAGIC 0x42534b54u // "TKSB"
#define PLAN_VERSION 1u
#define LAUNCH_EXIT 125

// Plan flags.
#define F_HOLD 1u  // make the namespaces to share, wait for EOF on stdin, exit
#define F_JOIN 2u  // join the shared user (and network) namespaces, make a mount namespace
#define F_PROBE 4u // set everything up, then exit 0 instead of exec

// Mount operations, in plan order: each is {u32 op, u32 arg, string path}.
enum {
	OP_CLONE = 1,     // clone the mount tree at path for a later OP_ATTACH, read-only if arg is 1
	OP_ATTACH = 2,    // attach clone number arg at path, making its missing directories
	OP_RDONLY = 3,    // make path read-only (a recursive read-only bind of itself)
	OP_MASK_DIR = 4,  // cover the directory path with an empty read-only tmpfs
	OP_MASK_FILE = 5, // cover the file path with a read-only bind of /dev/null
	OP_TMPFS = 6,     // cover the directory path with an empty writable tmpfs
	OP_BIND = 7,      // bind path onto itself, so that it cannot be renamed or removed
	OP_SEAL = 8,      // make every mount under path read-only
	OP_RULE = 9,      // add a Landlock rule granting arg under path (a mount made here)
};

// System calls glibc may not wrap or headers may not number. The numbers
// of system calls added since Linux 5.1 are the same on every architecture.
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#define TK_CLOSE_RANGE_CLOEXEC (1U << 2)
#define TK_LANDLOCK_RULE_PATH_BENEATH 1

struct tk_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

// Constants of the mount API (linux/mount.h clashes with sys/mount.h on
// older C libraries, so they are spelled here).
#define TK_OPEN_TREE_CLONE 1
#define TK_AT_RECURSIVE 0x8000
#define TK_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define TK_MOVE_MOUNT_T_EMPTY_PATH 0x40
#define TK_MOUNT_ATTR_RDONLY 0x1
#define TK_MOUNT_ATTR_NOSUID 0x2
#define TK_MOUNT_ATTR_NODEV 0x4
#define TK_MOUNT_ATTR_NOEXEC 0x8
#define TK_FSOPEN_CLOEXEC 0x1
#define TK_FSCONFIG_SET_STRING 1
#define TK_FSCONFIG_CMD_CREATE 6
#define TK_FSMOUNT_CLOEXEC 0x1

struct tk_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// Securebits (linux/securebits.h).
#define TK_SECBIT_NOROOT (1 << 0)
#define TK_SECBIT_NOROOT_LOCKED (1 << 1)
#define TK_SECBIT_NO_SETUID_FIXUP (1 << 2)
#define TK_SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define TK_SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#define TK_SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define TK_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)

#define MAX_CLONES 64

static int status_fd = -1;

static size_t cstrlen(const char *s) {
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static void put(int fd, const char *s) {
	size_t n = cstrlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

// fail reports "what arg: error" on the status pipe (stderr when there is
// none yet) and exits without running the command.
static void fail(const char *what, const char *arg, int err) {
	int fd = status_fd >= 0 ? status_fd : 2;
	if (status_fd < 0)
		put(fd, "tackle sandbox: ");
	put(fd, what);
	if (arg) {
		put(fd, " ");
		put(fd, arg);
	}
	if (err) {
		put(fd, ": ");
		put(fd, strerror(err));
	}
	put(fd, "\n");
	_exit(LAUNCH_EXIT);
}

// The plan: a byte buffer read with bounds checks.
struct cursor {
	const unsigned char *p, *end;
};

static uint32_t take_u32(struct cursor *c) {
	uint32_t v;
	if ((size_t)(c->end - c->p) < sizeof v)
		fail("plan", "truncated", 0);
	memcpy(&v, c->p, sizeof v);
	c->p += sizeof v;
	return v;
}

// take_str returns a NUL-terminated string of the plan (length-prefixed,
// the length counting the NUL, no NUL inside).
static const char *take_str(struct cursor *c) {
	uint32_t n = take_u32(c);
	if (n == 0 || (size_t)(c->end - c->p) < n || c->p[n - 1] != 0 || cstrlen((const char *)c->p) != n - 1)
		fail("plan", "bad string", 0);
	const char *s = (const char *)c->p;
	c->p += n;
	return s;
}

static void *zalloc(size_t n) {
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("mmap", NULL, errno);
	return p;
}

static int parse_fd(const char *s) {
	long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

static void write_file(const char *path, const char *data) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open", path, errno);
	size_t n = cstrlen(data);
	if (write(fd, data, n) != (ssize_t)n)
		fail("write", path, errno);
	close(fd);
}

// id_map is "ID ID 1\n": the id inside the namespace is the id outside.
static void id_map(char *buf, unsigned id) {
	char num[16];
	int i = sizeof num;
	num[--i] = 0;
	do {
		num[--i] = (char)('0' + id % 10);
		id /= 10;
	} while (id && i > 0);
	size_t n = cstrlen(num + i);
	memcpy(buf, num + i, n);
	buf[n] = ' ';
	memcpy(buf + n + 1, num + i, n);
	memcpy(buf + 2 * n + 1, " 1\n", 4);
}

static void loopback_up(void) {
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		fail("socket for lo", NULL, errno);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		fail("read flags of lo", NULL, errno);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
		fail("bring lo up", NULL, errno);
	close(s);
}

// hold_namespaces makes the namespaces commands share and waits: one
// network namespace per tackle process (a new one per command costs
// about a millisecond, and as much again to tear down), whose lo is up.
static void hold_namespaces(void) {
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
		fail("unshare", NULL, errno);
	char buf[64];
	write_file("/proc/self/setgroups", "deny");
	id_map(buf, uid);
	write_file("/proc/self/uid_map", buf);
	id_map(buf, gid);
	write_file("/proc/self/gid_map", buf);
	loopback_up();
	// Ready: the parent opens /proc/PID/ns/{user,net} now, then closes
	// stdin.
	close(status_fd);
	char c;
	while (read(0, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

// join_namespaces enters the shared user namespace (which gives every
// capability in it), its network namespace unless net_fd is -1, and a new
// mount namespace owned by it.
static void join_namespaces(int user_fd, int net_fd) {
	if (setns(user_fd, CLONE_NEWUSER) != 0)
		fail("join the user namespace", NULL, errno);
	if (net_fd >= 0 && setns(net_fd, CLONE_NEWNET) != 0)
		fail("join the network namespace", NULL, errno);
	if (unshare(CLONE_NEWNS) != 0)
		fail("unshare", NULL, errno);
	close(user_fd);
	if (net_fd >= 0)
		close(net_fd);
	// A mount namespace made in a less privileged user namespace holds
	// every mount as a slave of the parent's, so nothing made here
	// propagates out. Private also keeps the host's later mounts (a USB
	// stick, writable) from propagating in. It fails where / is not a
	// mount point (some containers): that is tolerated, being slaves.
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static int clone_tree(const char *path) {
	int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path, TK_OPEN_TREE_CLONE | O_CLOEXEC | TK_AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
	if (fd < 0)
		fail("clone mount", path, errno);
	return fd;
}

static void set_attr(int fd, const char *path, uint64_t attr) {
	struct tk_mount_attr a = {.attr_set = attr};
	// Only the named attributes change: nosuid, nodev, noexec and the
	// atime flags the kernel locks in a user namespace are kept (a plain
	// MS_REMOUNT|MS_RDONLY would drop them and be refused with EPERM).
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | TK_AT_RECURSIVE, &a, sizeof a) != 0)
		fail("set mount attributes of", path, errno);
}

static void move_onto(int fd, const char *target) {
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, target, TK_MOVE_MOUNT_F_EMPTY_PATH) != 0)
		fail("mount onto", target, errno);
	close(fd);
}

// mkdir_path makes the directories of an absolute path that are missing,
// never following a symbolic link, and returns an O_PATH fd of the last.
static int mkdir_path(const char *path) {
	char name[4096];
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		fail("open /", NULL, errno);
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = 0;
		while (p[n] && p[n] != '/')
			n++;
		if (n == 0)
			break;
		if (n >= sizeof name)
			fail("path too long:", path, 0);
		memcpy(name, p, n);
		name[n] = 0;
		p += n;
		if (mkdirat(dir, name, 0700) != 0 && errno != EEXIST)
			fail("mkdir", path, errno);
		int next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			fail("open", path, errno);
		close(dir);
		dir = next;
	}
	return dir;
}

static int new_tmpfs(const char *target, const char *mode, uint64_t attr) {
	int fs = (int)syscall(SYS_fsopen, "tmpfs", TK_FSOPEN_CLOEXEC);
	if (fs < 0)
		fail("tmpfs for", target, errno);
	if (syscall(SYS_fsconfig, fs, TK_FSCONFIG_SET_STRING, "mode", mode, 0) != 0 ||
	    syscall(SYS_fsconfig, fs, TK_FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0)
		fail("tmpfs for", target, errno);
	int m = (int)syscall(SYS_fsmount, fs, TK_FSMOUNT_CLOEXEC, attr);
	if (m < 0)
		fail("tmpfs for", target, errno);
	close(fs);
	return m;
}

// add_rule grants access under path to the ruleset: for what the
// launcher mounts, whose inodes the parent cannot name (a rule on a
// mount point does not reach the mount on it).
static void add_rule(int ruleset_fd, const char *path, uint64_t access) {
	int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		fail("open", path, errno);
	struct tk_path_beneath pb = {.allowed_access = access, .parent_fd = fd};
	if (syscall(SYS_landlock_add_rule, ruleset_fd, TK_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
		fail("landlock rule for", path, errno);
	close(fd);
}

static void run_mounts(struct cursor *c, int ruleset_fd) {
	int clones[MAX_CLONES];
	uint32_t nclones = 0;
	uint32_t n = take_u32(c);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = take_u32(c);
		uint32_t arg = take_u32(c);
		const char *path = take_str(c);
		int fd;
		switch (op) {
		case OP_CLONE:
			if (nclones == MAX_CLONES)
				fail("plan", "too many clones", 0);
			fd = clone_tree(path);
			if (arg == 1)
				set_attr(fd, path, TK_MOUNT_ATTR_RDONLY);
			clones[nclones++] = fd;
			break;
		case OP_ATTACH:
			if (arg >= nclones || clones[arg] < 0)
				fail("plan", "bad clone number", 0);
			fd = mkdir_path(path);
			if (syscall(SYS_move_mount, clones[arg], "", fd, "", TK_MOVE_MOUNT_F_EMPTY_PATH | TK_MOVE_MOUNT_T_EMPTY_PATH) != 0)
				fail("mount onto", path, errno);
			close(fd);
			close(clones[arg]);
			clones[arg] = -1;
			break;
		case OP_RDONLY:
			fd = clone_tree(path);
			set_attr(fd, path, TK_MOUNT_ATTR_RDONLY);
			move_onto(fd, path);
			break;
		case OP_MASK_DIR:
			move_onto(new_tmpfs(path, "0755", TK_MOUNT_ATTR_RDONLY | TK_MOUNT_ATTR_NOSUID | TK_MOUNT_ATTR_NODEV | TK_MOUNT_ATTR_NOEXEC), path);
			break;
		case OP_MASK_FILE:
			fd = clone_tree("/dev/null");
			set_attr(fd, path, TK_MOUNT_ATTR_RDONLY);
			move_onto(fd, path);
			break;
		case OP_TMPFS:
			move_onto(new_tmpfs(path, "1777", TK_MOUNT_ATTR_NOSUID | TK_MOUNT_ATTR_NODEV), path);
			break;
		case OP_BIND:
			move_onto(clone_tree(path), path);
			break;
		case OP_SEAL: {
			struct tk_mount_attr a = {.attr_set = TK_MOUNT_ATTR_RDONLY};
			if (syscall(SYS_mount_setattr, AT_FDCWD, path, TK_AT_RECURSIVE, &a, sizeof a) != 0)
				fail("make read-only:", path, errno);
			break;
		}
		case OP_RULE:
			add_rule(ruleset_fd, path, arg);
			break;
		default:
			fail("plan", "unknown mount operation", 0);
		}
	}
}

static int has_cap(const struct __user_cap_data_struct d[2], int cap) {
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

// drop_caps leaves the process no capability now or after an exec, as
// root too: securebits keep uid 0 from regaining them and lock that, the
// bounding set is emptied (both need CAP_SETPCAP: without it the process
// has no capability to give up), ambient ones cleared, and the effective,
// permitted and inheritable sets zeroed.
static void drop_caps(void) {
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0)
		fail("capget", NULL, errno);
	if (has_cap(d, CAP_SETPCAP)) {
		int bits = TK_SECBIT_NOROOT | TK_SECBIT_NOROOT_LOCKED | TK_SECBIT_NO_SETUID_FIXUP |
			   TK_SECBIT_NO_SETUID_FIXUP_LOCKED | TK_SECBIT_KEEP_CAPS_LOCKED |
			   TK_SECBIT_NO_CAP_AMBIENT_RAISE | TK_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
		if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0)
			fail("set securebits", NULL, errno);
		for (int cap = 0; cap < 64; cap++) {
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
				if (errno == EINVAL)
					break; // past the last capability the kernel knows
				fail("drop bounding capability", NULL, errno);
			}
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		fail("clear ambient capabilities", NULL, errno);
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) != 0)
		fail("capset", NULL, errno);
}

// remove_marker takes every MARKER= entry out of environ, in place.
static void remove_marker(void) {
	extern char **environ;
	size_t m = cstrlen(MARKER);
	char **w = environ;
	for (char **r = environ; *r; r++) {
		if (strncmp(*r, MARKER, m) == 0 && (*r)[m] == '=')
			continue;
		*w++ = *r;
	}
	*w = NULL;
}

__attribute__((constructor)) static void tackle_sandbox_launch(void) {
	const char *v = getenv(MARKER);
	if (!v)
		return;
	int plan_fd = parse_fd(v);
	struct stat st;
	if (plan_fd < 3 || fstat(plan_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 16 || st.st_size > (64 << 20))
		fail("no plan at fd", v, 0);
	const unsigned char *plan = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, plan_fd, 0);
	if (plan == MAP_FAILED)
		fail("map plan", NULL, errno);
	struct cursor c = {plan, plan + st.st_size};
	if (take_u32(&c) != PLAN_MAGIC || take_u32(&c) != PLAN_VERSION)
		fail("plan", "of another version", 0);
	uint32_t flags = take_u32(&c);
	int ruleset_fd = (int)take_u32(&c);
	status_fd = (int)take_u32(&c);
	int user_fd = (int)take_u32(&c);
	int net_fd = (int)take_u32(&c);
	if (fcntl(status_fd, F_SETFD, FD_CLOEXEC) != 0) {
		status_fd = -1;
		fail("status pipe", NULL, errno);
	}

	if (flags & F_HOLD)
		hold_namespaces();
	if (flags & F_JOIN)
		join_namespaces(user_fd, net_fd);
	run_mounts(&c, ruleset_fd);

	const char *dir = take_str(&c);
	const char *path = take_str(&c);
	uint32_t argc = take_u32(&c);
	if (argc == 0 || argc > (1u << 20))
		fail("plan", "bad argument count", 0);
	char **argv = zalloc(((size_t)argc + 1) * sizeof *argv);
	for (uint32_t i = 0; i < argc; i++)
		argv[i] = (char *)take_str(&c);
	uint32_t nfilter = take_u32(&c);
	if (nfilter > BPF_MAXINSNS || (size_t)(c.end - c.p) != (size_t)nfilter * sizeof(struct sock_filter))
		fail("plan", "bad filter", 0);
	struct sock_filter *filter = zalloc(nfilter ? nfilter * sizeof *filter : 1);
	memcpy(filter, c.p, nfilter * sizeof *filter);

	// After the mounts, so that the working directory is looked up in
	// the new mount tree (a directory under /tmp is the one bound back,
	// and its protected paths are the read-only mounts).
	if (chdir(dir) != 0)
		fail("chdir", dir, errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		fail("no_new_privs", NULL, errno);
	if (nfilter) {
		struct sock_fprog prog = {.len = (unsigned short)nfilter, .filter = filter};
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
			fail("seccomp", NULL, errno);
	}
	if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0)
		fail("landlock_restrict_self", NULL, errno);
	drop_caps();

	close(ruleset_fd);
	if (flags & F_PROBE)
		_exit(0);
	remove_marker();
	// The plan's memory stays mapped for execve to read argv from. The
	// launcher's fds start at the plan's, after the command's own (0-2 and
	// cmd.ExtraFiles): these and any the process inherited from its
	// parent without close-on-exec are closed by the exec, the status
	// pipe's last, which tells the parent the command runs.
	if (syscall(SYS_close_range, plan_fd, ~0U, TK_CLOSE_RANGE_CLOEXEC) != 0)
		fail("close_range", NULL, errno);
	extern char **environ;
	execve(path, argv, environ);
	fail("exec", path, errno);
}

// tackle_sandbox_linked lets the Go side prove that this file is in the
// binary (and with it the constructor).
int tackle_sandbox_linked(void) { return 1; }
