package approval

import "testing"

// jq's two-valued options: the file of --rawfile and --slurpfile is a
// path (outside the workspace: no rule covers it), and the filter after
// them stays the filter (found by the sandbox e2e: `bash(jq *)` covered
// reading ~/.docker/config.json).
func TestJqFilesOfTwoValuedOptionsArePaths(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, Default, []string{"bash(jq *)"}, nil, WithWorkspace("/ws"), WithProtection(Protection{Home: "/home/u"}))
	for cmd, want := range map[string]string{
		`jq -n --rawfile k /home/u/.docker/config.json '$k'`: "ask",
		`jq --slurpfile x ../y -n '$x'`:                      "ask",
		`jq -n --arg name value '$name'`:                     "run",
		`jq --rawfile k notes.txt -n '$k'`:                   "run",
		`jq '.a' data.json`:                                  "run",
	} {
		got := p.Decide(bashCall(cmd))
		if (got.Action == cont) != (want == "run") {
			t.Errorf("%s: %+v, want it to %s", cmd, got, want)
		}
	}
}
