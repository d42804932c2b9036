package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

// BenchmarkSideBySide runs tackle and the floor client (tools/bench/floor:
// raw net/http SSE and one `bash -c`, written for this benchmark) on the
// same piped one-tool-call task against the same local scripted server
// (zero model latency), alternately, runs times each, and reports the
// medians of wall time, CPU time (user+system) and peak RSS, and of
// `--version`, with tackle's ratio to the floor. Run it with:
//
//	go test -run '^$' -bench SideBySide -benchtime 1x ./app/e2e
//
// The streaming task is the same with a final answer of 200 deltas that
// the server sends 5 ms apart, as a model generates them (stream-cpu-x:
// the CPU a client spends while it waits on a stream).
//
// libfloor (tools/bench/libfloor) links the libraries tackle is built on
// and does nothing else: libs-version-ms and libs-rss-MiB are the start-up
// cost of linking them, and the -x-libs ratios are tackle's against it
// (issue 27's targets: the piped task's wall 1.5x and peak RSS 1.3x,
// --version 1.1x). tackle-nosandbox-wall-ms is the piped task with
// --sandbox off: what the OS sandbox costs the task (its probe, once per
// process, and the command's start in it).
//
// Each round runs every program once, in the same order; the first round
// warms up and is not counted. The binaries are dropped from the page
// cache first (evictFromPageCache), so that each is mapped as an
// installed binary read from disk is, not as the linker left it.
//
// The runs' home and workspace are not under /tmp (benchDir).
//
// Set TACKLE_BENCH_RUNS to change the number of runs (default 7).
func BenchmarkSideBySide(b *testing.B) {
	runs := 7
	if n, err := fmt.Sscan(os.Getenv("TACKLE_BENCH_RUNS"), &runs); n != 1 || err != nil {
		runs = 7
	}
	floor := filepath.Join(b.TempDir(), "floor")
	libs := filepath.Join(b.TempDir(), "libfloor")
	for bin, pkg := range map[string]string{floor: module + "/tools/bench/floor", libs: module + "/tools/bench/libfloor"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			b.Fatalf("building %s: %v\n%s", pkg, err, out)
		}
	}
	var rs []llmtest.Response
	call := llmtest.ToolCalls(llmtest.Call("call_echo", "bash", `{"command": "echo hello-from-tool"}`))
	paced := llmtest.Text(strings.Repeat("The command printed its greeting. ", 100))
	paced.ChunkSize, paced.IntervalMS = 17, 5 // 200 deltas, 1 s
	// One round: tackle, tackle --sandbox off and floor on the task; tackle
	// and floor streaming.
	for range (runs + 1) * b.N {
		for range 3 {
			rs = append(rs, call, llmtest.Text("The command printed its greeting."))
		}
		for range 2 {
			rs = append(rs, call, paced)
		}
	}
	srv := llmtest.NewServer(b, llmtest.NewScript(rs...))
	dir := benchDir(b)
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-bench", "TACKLE_MODEL=bench"}
	// Peak RSS comes from GNU time: a child that Go starts (vfork) counts
	// the parent's memory in its own ru_maxrss, while time forks from a
	// process of a megabyte or two.
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		b.Skip("GNU time (/usr/bin/time) is needed to measure peak RSS: apt-get install time")
	}
	report := filepath.Join(b.TempDir(), "time.out")
	run := func(bin string, args ...string) runUsage {
		cmd := exec.Command(timeBin, append([]string{"-o", report, "-f", "%M", bin}, args...)...)
		cmd.Dir, cmd.Env = ws, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil || args[0] != "--version" && !strings.Contains(string(out), "greeting") {
			b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
		}
		rep, err := os.ReadFile(report)
		if err != nil {
			b.Fatal(err)
		}
		u := runUsage{wall: wall}
		if _, err := fmt.Sscan(string(rep), &u.rssKB); err != nil {
			b.Fatalf("time's report %q: %v", rep, err)
		}
		// CPU from wait4, in microseconds: time's own (a millisecond or
		// less) and the program's, which time waited for.
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		return u
	}
	for _, bin := range []string{tackleBin, floor, libs} {
		evictFromPageCache(b, bin)
	}
	for range b.N {
		var task, stream, version [2][]runUsage // [tackle, floor]
		var noSandbox, libsVersion []runUsage
		for i := range runs + 1 {
			keep := func(to *[]runUsage, u runUsage) {
				if i > 0 { // the first round warms the page cache up
					*to = append(*to, u)
				}
			}
			keep(&task[0], run(tackleBin, "--yes", "-p", "say hello"))
			keep(&noSandbox, run(tackleBin, "--sandbox", "off", "--yes", "-p", "say hello"))
			keep(&task[1], run(floor, "say hello"))
			keep(&stream[0], run(tackleBin, "--yes", "-p", "say hello"))
			keep(&stream[1], run(floor, "say hello"))
			keep(&version[0], run(tackleBin, "--version"))
			keep(&version[1], run(floor, "--version"))
			keep(&libsVersion, run(libs, "--version"))
		}
		lv := median(libsVersion)
		b.ReportMetric(ms(lv.wall), "libs-version-ms")
		b.ReportMetric(float64(lv.rssKB)/1024, "libs-rss-MiB")
		ts, fs := median(stream[0]), median(stream[1])
		b.ReportMetric(ms(ts.cpu), "tackle-stream-cpu-ms")
		b.ReportMetric(ms(fs.cpu), "floor-stream-cpu-ms")
		b.ReportMetric(ms(ts.cpu)/ms(fs.cpu), "stream-cpu-x")
		t, f := median(task[0]), median(task[1])
		tv, fv := median(version[0]), median(version[1])
		b.ReportMetric(ms(t.wall), "tackle-wall-ms")
		b.ReportMetric(ms(median(noSandbox).wall), "tackle-nosandbox-wall-ms")
		b.ReportMetric(ms(f.wall), "floor-wall-ms")
		b.ReportMetric(ms(t.wall)/ms(f.wall), "wall-x")
		b.ReportMetric(ms(t.wall)/ms(lv.wall), "wall-x-libs")
		b.ReportMetric(ms(t.cpu), "tackle-cpu-ms")
		b.ReportMetric(ms(f.cpu), "floor-cpu-ms")
		b.ReportMetric(ms(t.cpu)/ms(f.cpu), "cpu-x")
		b.ReportMetric(float64(t.rssKB)/1024, "tackle-rss-MiB")
		b.ReportMetric(float64(f.rssKB)/1024, "floor-rss-MiB")
		b.ReportMetric(float64(t.rssKB)/float64(f.rssKB), "rss-x")
		b.ReportMetric(float64(t.rssKB)/float64(lv.rssKB), "rss-x-libs")
		b.ReportMetric(ms(tv.wall), "tackle-version-ms")
		b.ReportMetric(float64(tv.rssKB)/1024, "tackle-version-rss-MiB")
		b.ReportMetric(ms(fv.wall), "floor-version-ms")
		b.ReportMetric(ms(tv.wall)/ms(fv.wall), "version-x")
		b.ReportMetric(ms(tv.wall)/ms(lv.wall), "version-x-libs")
	}
}

// benchDir is where a benchmark's runs keep their home and workspace:
// TACKLE_BENCH_DIR, else a new directory in the user's cache directory
// (removed at the end), not under /tmp, as a user's home and projects
// are not. It matters to the sandbox: the hidden paths of a home under
// /tmp make each command's Landlock rules enumerate /tmp's entries (300
// on a shared machine: +3 ms a command), and workspaces and caches under
// /tmp are mounted back into the private /tmp, whose mount points tackle
// removes at exit (+1 to 10 ms, as the kernel detaches them).
func benchDir(b *testing.B) string {
	base := os.Getenv("TACKLE_BENCH_DIR")
	if base == "" {
		var err error
		if base, err = os.UserCacheDir(); err != nil {
			return b.TempDir()
		}
	}
	dir, err := os.MkdirTemp(base, "tackle-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

type runUsage struct {
	wall, cpu time.Duration
	rssKB     int64
}

// median takes the median of each measure on its own.
func median(us []runUsage) runUsage {
	pick := func(f func(runUsage) int64) int64 {
		v := make([]int64, len(us))
		for i, u := range us {
			v[i] = f(u)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return runUsage{
		wall:  time.Duration(pick(func(u runUsage) int64 { return int64(u.wall) })),
		cpu:   time.Duration(pick(func(u runUsage) int64 { return int64(u.cpu) })),
		rssKB: pick(func(u runUsage) int64 { return u.rssKB }),
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
