// Package sandboxtest is what tests of other packages use to run
// commands in the sandbox. The launcher needs nothing: every test binary
// that links tools/sandbox carries it.
package sandboxtest

import (
	"testing"

	"github.com/tackle-dev/tackle/tools/sandbox"
)

// Policy is a policy for a test's command: workspace writable, a private
// temp dir of the test's, nothing protected or hidden.
func Policy(t testing.TB, workspace string) sandbox.Policy {
	return sandbox.Policy{Workspace: workspace, TempDir: t.TempDir()}
}

// Require skips the test unless the system allows level, and returns
// the probe's report.
func Require(t testing.TB, level sandbox.Level) sandbox.Report {
	t.Helper()
	r := sandbox.Probe()
	if r.Level < level {
		t.Skipf("needs the sandbox at level %s; %s", level, r)
	}
	return r
}
