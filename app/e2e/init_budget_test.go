package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// initBudget bounds what tackle's own packages do at start-up, on every
// run, piped or not (GODEBUG=inittrace=1): package-level work belongs in
// the first use (sync.OnceValue), not in init or a package variable.
// Allocations are counted, not time, so the test is the same on a busy
// machine. Today tackle's packages allocate about 105 times (12 KB), mostly
// error values and small tables; the built-in themes (805 allocations)
// are parsed on first use.
const (
	initBudgetAllocs = 200
	initBudgetBytes  = 24 << 10
)

func TestStartUpInitStaysWithinBudget(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(tackleBin, "--version")
	cmd.Env = []string{"GODEBUG=inittrace=1", "HOME=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tackle --version: %v\n%s", err, stderr.String())
	}
	var allocs, bytesTotal int64
	var lines []string
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/tackle-dev/tackle/tools @40 ms, 0.002 ms clock, 144 bytes, 4 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || !strings.HasPrefix(f[1], module) {
			continue
		}
		var b, a int64
		if _, err := fmt.Sscan(f[7]+" "+f[9], &b, &a); err != nil {
			t.Fatalf("cannot read %q: %v", sc.Text(), err)
		}
		bytesTotal += b
		allocs += a
		lines = append(lines, sc.Text())
	}
	if len(lines) == 0 {
		t.Fatalf("no init trace of tackle's packages in:\n%s", stderr.String())
	}
	if allocs > initBudgetAllocs || bytesTotal > initBudgetBytes {
		t.Errorf("tackle's packages allocate %d times, %d bytes at start-up (budget %d, %d):\n%s",
			allocs, bytesTotal, initBudgetAllocs, initBudgetBytes, strings.Join(lines, "\n"))
	}
}
