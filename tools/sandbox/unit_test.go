package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestBlocked(t *testing.T) {
	t.Parallel()
	failed := &exec.ExitError{}
	for _, c := range []struct {
		out  string
		err  error
		want bool
	}{
		{"bash: line 1: .git/config: Read-only file system\n", failed, true},
		{"touch: cannot touch '/home/u/x': Permission denied\n", failed, true},
		{"mount: /x: must be superuser to use mount.\numount: /x: Operation not permitted\n", failed, true},
		{"curl: (6) Could not resolve host: example.com\n", failed, true},
		{"dial tcp 10.0.0.1:443: connect: network is unreachable\n", failed, true},
		{"open /root/.ssh/id_ed25519: permission denied\n", failed, true},
		{"", fmt.Errorf("start: %w: exec /bin/x: Permission denied", ErrLaunch), true},
		{"--- FAIL: TestX\nwant 3, got 4\n", failed, false},
		{"Permission denied\n", nil, false}, // it succeeded all the same
	} {
		if got := Blocked(c.out, c.err); got != c.want {
			t.Errorf("Blocked(%q, %v) = %v, want %v", c.out, c.err, got, c.want)
		}
	}
}

func TestSnapshotSeesEveryChange(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]func(dir string) error{
		"write": func(dir string) error { return os.WriteFile(filepath.Join(dir, "f"), []byte("y"), 0o644) },
		"same size": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
		},
		"chmod":   func(dir string) error { return os.Chmod(filepath.Join(dir, "f"), 0o755) },
		"create":  func(dir string) error { return os.WriteFile(filepath.Join(dir, "d/new"), nil, 0o644) },
		"remove":  func(dir string) error { return os.Remove(filepath.Join(dir, "d/g")) },
		"rename":  func(dir string) error { return os.Rename(filepath.Join(dir, "d/g"), filepath.Join(dir, "d/h")) },
		"replace": func(dir string) error { return os.RemoveAll(dir) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "tree")
			os.MkdirAll(filepath.Join(dir, "d"), 0o755)
			os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
			os.WriteFile(filepath.Join(dir, "d/g"), []byte("g"), 0o644)
			missing := filepath.Join(t.TempDir(), "missing")
			s := takeSnapshot([]string{dir}, []string{missing})
			if c := s.changed(s.again()); len(c) > 0 {
				t.Fatalf("no change, changed %q", c)
			}
			if err := change(dir); err != nil {
				t.Fatal(err)
			}
			if name == "replace" {
				os.MkdirAll(filepath.Join(dir, "d"), 0o755)
				os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
				os.WriteFile(filepath.Join(dir, "d/g"), []byte("g"), 0o644)
			}
			if c := s.changed(s.again()); len(c) == 0 {
				t.Errorf("%s: no change seen", name)
			}
		})
	}
	t.Run("missing path created", func(t *testing.T) {
		t.Parallel()
		missing := filepath.Join(t.TempDir(), ".mcp.json")
		s := takeSnapshot(nil, []string{missing})
		os.WriteFile(missing, nil, 0o644)
		if c := s.changed(s.again()); !slices.Equal(c, []string{missing}) {
			t.Errorf("changed %q, want %s", c, missing)
		}
	})
}

func TestPolicyIsChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, p := range []Policy{
		{Workspace: "relative", TempDir: dir},
		{Workspace: dir, TempDir: ""},
		{Workspace: filepath.Join(dir, "missing"), TempDir: dir},
		{Workspace: file, TempDir: dir},
		{Workspace: dir, TempDir: dir, Protected: []string{"relative/.git"}},
	} {
		if _, err := resolvePolicy(p, dir); err == nil {
			t.Errorf("%+v: no error", p)
		}
		if runtime.GOOS == "linux" && Probe().Level > LevelNone {
			cmd := exec.Command("true")
			if _, err := Start(cmd, p); err == nil {
				cmd.Wait()
				t.Errorf("%+v: Start worked", p)
			}
		}
	}
	// Links are resolved; missing writable roots left out; hidden ones
	// that do not exist too.
	os.Symlink(dir, filepath.Join(dir, "link"))
	r, err := resolvePolicy(Policy{
		Workspace: filepath.Join(dir, "link"), TempDir: dir,
		Writable: []string{filepath.Join(dir, "no-cache")},
		Hidden:   []string{filepath.Join(dir, "no-secret")},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if r.Workspace != real || slices.Contains(r.writable, filepath.Join(dir, "no-cache")) || slices.Contains(r.hidden, filepath.Join(dir, "no-secret")) {
		t.Errorf("resolved %+v", r)
	}
}

func TestStartRefusesWhatItCannotRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := Policy{Workspace: dir, TempDir: dir}
	cmd := exec.Command("tackle-sandbox-no-such-command")
	if _, err := Start(cmd, p); err == nil || !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, ErrUnavailable) {
		t.Errorf("a command not found: %v", err)
	}
	if Probe().Level == LevelNone {
		return
	}
	cmd = exec.Command(filepath.Join(dir, "missing"))
	_, err := Start(cmd, p)
	if !errors.Is(err, ErrLaunch) && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing program: %v, want ErrLaunch", err)
	}
	cmd = exec.Command("true")
	if _, err := Start(cmd, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(cmd, p); err == nil {
		t.Errorf("started twice")
	}
	cmd.Wait()
}

func TestLevelAndReportStrings(t *testing.T) {
	t.Parallel()
	for l, want := range map[Level]string{LevelNone: "none", LevelLandlock: "landlock", LevelFull: "full", 7: "Level(7)"} {
		if l.String() != want {
			t.Errorf("%d: %q, want %q", int(l), l.String(), want)
		}
	}
	r := Report{Level: LevelLandlock, ABI: 3, Reasons: []string{"namespaces: unshare: Operation not permitted"}}
	if want := "sandbox: landlock (Landlock ABI 3); namespaces: unshare: Operation not permitted"; r.String() != want {
		t.Errorf("%q, want %q", r.String(), want)
	}
}
