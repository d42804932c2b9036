package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

// The ruleset of each Landlock ABI the kernel has (the rights an older
// kernel knows, the struct size it takes) still holds, with what Limits
// says each one lacks.
func TestCommandEveryLandlockABI(t *testing.T) {
	top := Probe().ABI
	if top == 0 {
		t.Skip("no Landlock")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for abi := 1; abi <= top; abi++ {
			t.Run(fmt.Sprint(abi), func(t *testing.T) {
				t.Parallel()
				m := m
				m.launch.abi = abi
				f := newFixture(t, "", false)
				f.mustRun(t, m, `echo x > new && cat README >/dev/null && mkdir -p a && mv new a/`)
				for _, script := range []string{`echo x > "$HOME/new"`, `cat "$HOME/.ssh/id_ed25519"`, `echo x > /var/tmp/tackle-sandbox-abi-$$`} {
					if r := f.run(t, m, script); r.err == nil {
						t.Errorf("ABI %d: %s succeeded:\n%s", abi, script, r)
					}
				}
				// (mv copies when a rename fails with EXDEV; ln cannot.)
				r := f.run(t, m, `mkdir -p b && echo y > b/f && ln b/f a/g`)
				if (r.err == nil) != (abi >= 2) {
					t.Errorf("ABI %d: a link across directories: %v (they need ABI 2)\n%s", abi, r.err, r)
				}
				r = f.run(t, m, `kill -0 $PPID`)
				if (r.err == nil) != (abi < 6) {
					t.Errorf("ABI %d: a signal out of the sandbox: %v (scopes need ABI 6)", abi, r.err)
				}
				limits := strings.Join(limits(m.launch.level, abi), "\n")
				if strings.Contains(limits, "renamed or linked") != (abi < 2) || strings.Contains(limits, "signals") != (abi < 6) {
					t.Errorf("ABI %d: limits %q", abi, limits)
				}
			})
		}
	})
}
