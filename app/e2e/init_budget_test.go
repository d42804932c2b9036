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

// TestPrestartInitialisesBeforeTheHeavyLibraries: app/prestart starts the
// sandbox's probe from its init so that the probe runs while the
// libraries initialise; that only helps while its init comes before
// theirs (chroma's lexers and styles, 10 ms and more). Go initialises
// packages in import-path order as their imports allow, so prestart,
// whose imports (tools/sandbox) use no regexp, goes before everything
// that waits for regexp; an import that changes this fails here.
func TestPrestartInitialisesBeforeTheHeavyLibraries(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(tackleBin, "--version")
	cmd.Env = []string{"GODEBUG=inittrace=1", "HOME=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tackle --version: %v\n%s", err, stderr.String())
	}
	order := map[string]int{}
	n := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" {
			order[f[1]] = n
			n++
		}
	}
	pre, ok := order[module+"/app/prestart"]
	if !ok {
		t.Fatalf("no init of app/prestart in the trace:\n%s", stderr.String())
	}
	for _, heavy := range []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles", "github.com/microcosm-cc/bluemonday"} {
		if i, ok := order[heavy]; !ok || i < pre {
			t.Errorf("%s is initialised before app/prestart (or not at all): the probe no longer runs beside it", heavy)
		}
	}
}
