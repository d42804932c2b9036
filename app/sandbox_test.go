package app

import (
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/sandbox"
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
