// Package sandbox runs a prepared command inside an OS sandbox on Linux,
// with the kernel's own mechanisms and no external program: Landlock for
// the file system (and TCP), user, mount and network namespaces where the
// kernel allows them, a seccomp filter for sockets. Probe finds once what
// the system allows, and Start starts an *exec.Cmd at that level. It
// imports nothing of tackle.
//
// # Levels
//
// LevelFull (namespaces, then Landlock) guarantees, for the command and
// everything it starts:
//   - writes only under the writable roots (the workspace unless
//     read-only, the private temp dir, the configured caches) and to
//     /dev/null, /dev/zero, /dev/full and the command's own standard
//     streams; the protected paths inside the roots are read-only mounts
//     (rm, mv, ln, chmod, truncation of them fail); a protected path that
//     does not exist can be created, and Process.Changed says so;
//   - reads of everything but the hidden paths (covered by an empty
//     tmpfs or /dev/null, also inside a writable root, and left out of
//     the Landlock rules) and but /dev, where only the devices above and
//     /dev/random, /dev/urandom are allowed; the host's /tmp is replaced
//     by the private temp dir (TMPDIR=/tmp), and the user's runtime
//     directory (XDG_RUNTIME_DIR, /run/user/UID) is an empty tmpfs;
//   - without Policy.Network: a network namespace shared by the commands
//     of this process, holding a loopback that is up (a test's local
//     server works, nothing outside is reachable), and no unix or other
//     sockets but IP and netlink ones (a socket path reaches a daemon
//     whatever the namespace, and Landlock does not control connecting);
//   - no kernel keyrings (keyctl), whose secrets Landlock does not guard;
//   - no way out: no_new_privs (setuid binaries gain nothing), no
//     capability, as root too (securebits keep uid 0 from regaining them
//     and are locked), no signals to or ptrace of processes outside the
//     sandbox (Landlock ABI 6 scopes and its ptrace rule), mount and
//     umount refused, the mounts locked in a nested user namespace, no
//     typing into a terminal (TIOCSTI), and running the launcher again
//     only restricts further.
//
// LevelLandlock (namespaces refused: a container, AppArmor, a sysctl, a
// seccomp profile, a sandbox around tackle) gives the same but for: the
// protected paths inside writable roots stay writable, so Start records
// them and Process.Changed reports what changed (a walk of the trees:
// about 2 ms for an 800-entry .git); hidden paths are only left out of
// the Landlock rules (each entry along the way to them gets a rule
// instead of its directory, so those directories can be neither listed
// nor written directly, and entries made later get none); /tmp is not
// private but out of reach (TMPDIR names the private temp dir), and there
// is no /dev/shm; the mode and times of files outside the writable roots
// can be changed (Landlock does not control them; the read-only mounts of
// LevelFull do); without network there are no sockets but netlink ones,
// and Landlock also refuses TCP where the filter is missing (ABI 4).
//
// LevelNone (another OS, a kernel without Landlock or with it off): Start
// returns ErrUnavailable and the caller falls back to its policy, saying
// so. Report.Reasons says why each higher level is missing and
// Report.Limits what the level leaves uncovered (older Landlock ABIs:
// signals before 6, truncation before 3, cross-directory renames before
// 2).
//
// What no level covers: other processes' command lines in /proc stay
// readable (only a PID namespace would hide them, and it would change the
// pid and signals the caller relies on); a file also reachable by another
// path (an existing hard link, another mount of the same file system) is
// reachable there; a descriptor the caller hands the command (standard
// streams, ExtraFiles) is used as it is, and one of a directory reaches
// the host's mounts, not the sandbox's read-only ones (Landlock still
// applies); the devices and kernel interfaces left readable are the
// kernel's to guard.
//
// # Mechanism
//
// Mounts must be made between the clone and the exec of the command, and
// re-executing tackle's Go binary costs ~25 ms of package initialisation.
// So every binary that links this package carries a launcher: a C
// constructor (launcher_linux.c) that runs before the Go runtime starts
// and does nothing unless the environment names a plan. Start writes the
// plan (the mounts, the command, the seccomp filter) to a sealed memfd,
// builds the Landlock ruleset in Go (rules by enumeration around the
// hidden paths, every right the kernel's ABI has, 1 to 7; the last one is
// kept for the next command while nothing it was built from has changed:
// rulesets_linux.go), and starts
// /proc/self/exe with them as extra files; the launcher joins the
// namespaces the probe made (one user and one network namespace per
// process: a new network namespace per command would cost a millisecond
// and as much again to tear down), makes a mount namespace of its own,
// mounts, restricts itself, drops its capabilities and execs the command
// in place, so that the pid the caller holds is the command's. A failure
// reaches Start through a status pipe, as ErrLaunch: the command never
// runs unsandboxed. About 2 ms per command at LevelFull, 1.7 ms at
// LevelLandlock (BenchmarkEcho, docs/benchmarks.md); the probe about 4 ms
// once.
//
// A binary built without cgo has no launcher and reaches LevelLandlock:
// Start restricts one locked OS thread (no_new_privs, the seccomp filter,
// landlock_restrict_self, no capabilities), starts the command from it
// (the child inherits the thread's credentials) and lets the runtime end
// the thread. While that thread lives it shares the command's Landlock
// domain, so the process is made non-dumpable (for good) to keep its
// memory out of the command's reach; a signal to that thread by its id
// in the microseconds before it ends is the remaining gap.
package sandbox
