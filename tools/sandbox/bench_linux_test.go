package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkEcho is what the sandbox adds to a command: bash -c 'echo hi'
// plain and at each level, with the fixture's policy (four hidden paths,
// seven protected ones). The budget is 5 ms over plain.
func BenchmarkEcho(b *testing.B) {
	f := newFixture(b, "", false)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("bash", "-c", "echo hi")
			cmd.Dir = f.ws
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	r := Probe()
	for _, m := range []mode{
		{"full", launch{level: LevelFull, abi: r.ABI, ns: shared, launcher: true}},
		{"landlock", launch{level: LevelLandlock, abi: r.ABI, launcher: true}},
		{"landlock-thread", launch{level: LevelLandlock, abi: r.ABI}},
	} {
		b.Run(m.name, func(b *testing.B) {
			if r.Level < m.launch.level || m.launch.launcher && !haveLauncher {
				b.Skipf("this machine's sandbox: %s", r)
			}
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "echo hi")
				cmd.Dir = f.ws
				if _, err := m.launch.start(cmd, f.policy); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
