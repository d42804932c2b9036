package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func probe() Report {
	r, ns := detect()
	shared = ns
	return r
}

// detect finds the level the system allows, and at LevelFull the
// namespaces the commands join.
func detect() (Report, *namespaces) {
	abi, err := landlockABI()
	if err != nil {
		return Report{Reasons: []string{err.Error()}}, nil
	}
	r := Report{ABI: abi}
	var full *namespaces
	switch {
	case !haveLauncher:
		r.Level = LevelLandlock
		r.Reasons = []string{"namespaces: this binary was built without cgo and has no launcher"}
	default:
		ns, err := holdNamespaces()
		if err == nil {
			err = probeLevel(launch{level: LevelFull, abi: abi, ns: ns})
		}
		if err == nil {
			r.Level = LevelFull
			full = ns
			break
		}
		if ns != nil {
			ns.close()
		}
		r.Reasons = append(r.Reasons, "namespaces: "+err.Error())
		if err := probeLevel(launch{level: LevelLandlock, abi: abi}); err == nil {
			r.Level = LevelLandlock
		} else {
			r.Reasons = append(r.Reasons, "landlock: "+err.Error())
		}
	}
	r.Limits = limits(r.Level, abi)
	return r, full
}

// probeLevel sets a sandbox up through the launcher for nothing (it exits
// where it would exec), at LevelFull with one of each kind of mount: a
// workspace under /tmp bound back, a protected path and a hidden
// directory and file in it.
func probeLevel(l launch) error {
	dir, err := os.MkdirTemp("", "tackle-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ws, tmp := filepath.Join(dir, "ws"), filepath.Join(dir, "tmp")
	home := filepath.Join(ws, "home")
	for _, d := range []string{filepath.Join(ws, ".git"), tmp, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600); err != nil {
		return err
	}
	p := Policy{
		Workspace: ws,
		TempDir:   tmp,
		Protected: []string{filepath.Join(ws, ".git")},
		Hidden:    []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc")},
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Dir: ws}
	l.launcher, l.probe = true, true
	if _, err := l.start(cmd, p); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), ErrLaunch.Error()+": "))
	}
	if err := cmd.Wait(); err != nil {
		return err
	}
	return nil
}

// limits are what a level leaves uncovered.
func limits(level Level, abi int) []string {
	var l []string
	switch level {
	case LevelNone:
		return nil
	case LevelLandlock:
		l = append(l,
			"protected paths inside writable roots can be written (Process.Changed reports it after the command)",
			"directories on the way to a hidden path can be neither listed nor written directly",
			"/tmp is not private (TMPDIR names the private temp dir; /tmp cannot be read or written), and there is no /dev/shm",
			"the mode and times of files outside the writable roots can be changed (Landlock does not control them)")
		switch {
		case auditArch == 0 && abi < 4:
			l = append(l, "the network is not blocked")
		case auditArch == 0:
			l = append(l, "only TCP is blocked (UDP and other protocols are not)")
		}
	}
	if auditArch == 0 {
		l = append(l, "unix sockets are not blocked (no seccomp filter for this architecture)")
	}
	if abi < 6 {
		l = append(l, "signals and abstract unix sockets to processes outside the sandbox are not blocked (Landlock ABI < 6)")
	}
	if abi < 3 {
		l = append(l, "truncating files outside the writable roots is not blocked (Landlock ABI < 3)")
	}
	if abi < 2 {
		l = append(l, "files cannot be renamed or linked from one directory to another (Landlock ABI 1; mv copies instead)")
	}
	l = append(l, "the command lines of other processes (/proc/PID/cmdline) can be read, as by any process")
	return l
}
