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
// cost of linking them.
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
	for range (runs + 1) * b.N {
		for range 2 {
			rs = append(rs, call, llmtest.Text("The command printed its greeting."))
		}
		for range 2 {
			rs = append(rs, call, paced)
		}
	}
	srv := llmtest.NewServer(b, llmtest.NewScript(rs...))
	home, ws := b.TempDir(), b.TempDir()
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
	for range b.N {
		var task, stream, version [2][]runUsage // [tackle, floor]
		var libsVersion []runUsage
		run(tackleBin, "--yes", "-p", "say hello") // warm the page cache of both
		run(floor, "say hello")
		run(tackleBin, "--yes", "-p", "say hello")
		run(floor, "say hello")
		for range runs {
			task[0] = append(task[0], run(tackleBin, "--yes", "-p", "say hello"))
			task[1] = append(task[1], run(floor, "say hello"))
			stream[0] = append(stream[0], run(tackleBin, "--yes", "-p", "say hello"))
			stream[1] = append(stream[1], run(floor, "say hello"))
			version[0] = append(version[0], run(tackleBin, "--version"))
			version[1] = append(version[1], run(floor, "--version"))
			libsVersion = append(libsVersion, run(libs, "--version"))
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
		b.ReportMetric(ms(f.wall), "floor-wall-ms")
		b.ReportMetric(ms(t.wall)/ms(f.wall), "wall-x")
		b.ReportMetric(ms(t.cpu), "tackle-cpu-ms")
		b.ReportMetric(ms(f.cpu), "floor-cpu-ms")
		b.ReportMetric(ms(t.cpu)/ms(f.cpu), "cpu-x")
		b.ReportMetric(float64(t.rssKB)/1024, "tackle-rss-MiB")
		b.ReportMetric(float64(f.rssKB)/1024, "floor-rss-MiB")
		b.ReportMetric(float64(t.rssKB)/float64(f.rssKB), "rss-x")
		b.ReportMetric(ms(tv.wall), "tackle-version-ms")
		b.ReportMetric(ms(fv.wall), "floor-version-ms")
		b.ReportMetric(ms(tv.wall)/ms(fv.wall), "version-x")
	}
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
