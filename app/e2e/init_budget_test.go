package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
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

// Start-up budgets against libfloor (tools/bench/libfloor: the libraries
// tackle links, initialised, and nothing else), measured in the same test
// so that the machine's load falls on both: the median CPU time (user +
// system) of tackle --version, and of the piped one-tool-call task with
// the sandbox off (tackle's own work: parsing, the harness, two requests,
// the session file; the sandbox has its own budget), over the median of
// libfloor --version. CPU time rather than wall time: on a shared machine
// it varies less, and it is what tackle does. Measured on 2026-11-25 with
// the load average at 8: --version 1.02-1.21x, the task 1.47-1.64x (issue
// 27's targets, in wall time, are 1.1x and 1.5x).
const (
	versionCPUBudget = 1.5
	taskCPUBudget    = 2.5
)

func TestStartUpStaysWithinBudgetOfLibfloor(t *testing.T) {
	libs := filepath.Join(t.TempDir(), "libfloor")
	if out, err := exec.Command("go", "build", "-o", libs, module+"/tools/bench/libfloor").CombinedOutput(); err != nil {
		t.Fatalf("building libfloor: %v\n%s", err, out)
	}
	var rs []llmtest.Response
	const runs = 9
	for range runs + 1 {
		rs = append(rs, llmtest.ToolCalls(llmtest.Call("call_echo", "bash", `{"command": "echo hello-from-tool"}`)),
			llmtest.Text("The command printed its greeting."))
	}
	srv := llmtest.NewServer(t, llmtest.NewScript(rs...))
	home, ws := t.TempDir(), t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-bench", "TACKLE_MODEL=bench"}
	cpu := func(bin string, args ...string) time.Duration {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var version, task, libsVersion []time.Duration
	for i := range runs + 1 {
		v, k, l := cpu(tackleBin, "--version"), cpu(tackleBin, "--sandbox", "off", "--yes", "-p", "say hello"), cpu(libs, "--version")
		if i > 0 { // the first round reads the binaries from disk
			version, task, libsVersion = append(version, v), append(task, k), append(libsVersion, l)
		}
	}
	lv := medianDuration(libsVersion)
	for _, c := range []struct {
		what   string
		got    time.Duration
		budget float64
	}{{"tackle --version", medianDuration(version), versionCPUBudget}, {"the piped task (--sandbox off)", medianDuration(task), taskCPUBudget}} {
		ratio := float64(c.got) / float64(lv)
		t.Logf("%s: %v of CPU, %.2fx libfloor's %v", c.what, c.got, ratio, lv)
		if ratio > c.budget {
			t.Errorf("%s takes %v of CPU, %.2fx libfloor --version's %v (budget %.1fx): see docs/benchmarks.md for where start-up time goes", c.what, c.got, ratio, lv, c.budget)
		}
	}
}
