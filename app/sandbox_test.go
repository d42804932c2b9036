package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

// What tackle says of each sandbox: nothing at start for the full one, a
// warning for a weaker one or none (never silent), and the status line's
// words.
func TestSandboxIsNamedAndAWeakOneSaidOnce(t *testing.T) {
	t.Parallel()
	none := &sandboxed{report: sandbox.Report{Reasons: []string{"landlock: the kernel does not have it"}}}
	off := &sandboxed{off: true}
	if w := none.warning(); !strings.Contains(w, "no OS sandbox on this system (landlock: the kernel does not have it)") || !strings.Contains(w, "approval policy alone") {
		t.Errorf("no sandbox: warning %q", w)
	}
	if off.warning() != "" || off.status() != "sandbox off" || none.status() != "no sandbox" {
		t.Errorf("off: %q %q; none: %q", off.warning(), off.status(), none.status())
	}
	if r := sandbox.Probe(); r.Level >= sandbox.LevelLandlock {
		for _, level := range []sandbox.Level{sandbox.LevelLandlock, sandbox.LevelFull} {
			if r.Level < level {
				continue
			}
			sb, rep := tools.NewSandbox(sandbox.Policy{Workspace: t.TempDir(), TempDir: t.TempDir(), MaxLevel: level})
			rep.Limits = append(rep.Limits, "protected paths stay writable")
			s := &sandboxed{sb: sb, report: rep}
			switch w := s.warning(); {
			case level == sandbox.LevelFull && (w != "" || s.status() != "sandbox"):
				t.Errorf("full: warning %q, status %q", w, s.status())
			case level == sandbox.LevelLandlock && (!strings.Contains(w, "runs at level landlock") || !strings.Contains(w, "protected paths stay writable") || s.status() != "sandbox (landlock)"):
				t.Errorf("landlock: warning %q, status %q", w, s.status())
			}
			if d := s.describe(); !strings.Contains(d, "writes only in the workspace") || !strings.Contains(d, "no network") {
				t.Errorf("describe at %s: %q", level, d)
			}
		}
	}
}

// The commands' GOCACHE names the sandbox's Go cache by its real path.
// Reached through a link that lies under /tmp (which the sandbox
// replaces with its own), the cache was not there for the command: go
// made a new one in the private /tmp and threw it away, and every go vet
// of the checks compiled the standard library again.
func TestSandboxGoCacheByItsRealPath(t *testing.T) {
	sandboxtest.Require(t, sandbox.LevelFull)
	real, links, ws := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Symlink(real, filepath.Join(links, "cache")); err != nil {
		t.Fatal(err)
	}
	env := environ{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + filepath.Join(links, "cache")}
	policy := approval.New(approval.Default, nil)
	s, err := newSandbox(Settings{}, ws, env, approval.Protection{}, func() *approval.Policy { return policy })
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if s.sb == nil {
		t.Fatalf("no sandbox: %v", s.report)
	}
	cmd := exec.Command("bash", "-c", `echo x > "$GOCACHE/planted-by-test" && echo "$GOCACHE"`)
	cmd.Dir, cmd.Env = ws, env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	done, err := s.sb.Start(cmd, tools.Run{})
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	done()
	if err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(real, "tackle", "sandbox", "go-build", "planted-by-test")); err != nil {
		t.Errorf("the command's GOCACHE (%s) is not the cache: %v", strings.TrimSpace(out.String()), err)
	}
}
