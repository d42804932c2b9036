package markdown

import (
	"sync"
	"testing"
	"time"

	"charm.land/glamour/v2"
)

// The streaming benchmark: a generated 200 KB answer (headings, paragraphs,
// lists, Go code blocks, tables, quotes) streamed in 4-byte deltas through
// a Stream at width 100 in the dark theme.
//
//	go test ./tui/markdown -run '^$' -bench Stream200KB -benchtime 3x
//
// Sub-benchmarks:
//
//	Render/every-delta   Render after every delta (the worst case)
//	Render/60fps         Render every 16 deltas: a frame at 60 fps when
//	                     deltas arrive at about 1000 a second
//	Parts/...            the same through Parts, which never joins
//	blocks-once          the floor: Renderer.Render of the whole answer,
//	                     each block rendered once, nothing streamed
//	naive                the baseline: glamour renders the whole message
//	                     after every delta (estimated, see naiveEstimate)
//
// Each reports cpu-s/op (user+system CPU time of the whole process, GC
// included, for one 200 KB answer) and x-naive (the naive estimate divided
// by it), besides glamour/op (glamour renders) and copies/op (Render
// results that had to be copied rather than appended).
const (
	benchSize  = 200 << 10
	benchDelta = 4
	benchWidth = 100
	fpsEvery   = 16
)

func BenchmarkStream200KB(b *testing.B) {
	doc := answerDoc(benchSize)
	r := themeRenderer(b, "dark")
	for _, api := range []string{"Render", "Parts"} {
		for _, cadence := range []struct {
			name  string
			every int
		}{{"every-delta", 1}, {"60fps", fpsEvery}} {
			b.Run(api+"/"+cadence.name, func(b *testing.B) {
				var cpu time.Duration
				var calls, copies int64
				for b.Loop() {
					r.calls.Store(0)
					start := cpuTime()
					s := r.NewStream()
					for i, n := 0, 0; i < len(doc); i, n = i+benchDelta, n+1 {
						s.Write(doc[i:min(i+benchDelta, len(doc))])
						if n%cadence.every == 0 {
							if api == "Render" {
								s.Render(benchWidth)
							} else {
								s.Parts(benchWidth)
							}
						}
					}
					s.Finish()
					if api == "Render" {
						s.Render(benchWidth)
					} else {
						s.Parts(benchWidth)
					}
					cpu += cpuTime() - start
					calls += r.calls.Load()
					copies += int64(s.outCopies)
				}
				perOp := cpu.Seconds() / float64(b.N)
				b.ReportMetric(perOp, "cpu-s/op")
				b.ReportMetric(float64(calls)/float64(b.N), "glamour/op")
				b.ReportMetric(float64(copies)/float64(b.N), "copies/op")
				b.ReportMetric(naiveEstimate(b, doc).Seconds()/perOp, "x-naive")
			})
		}
	}
	b.Run("blocks-once", func(b *testing.B) {
		var cpu time.Duration
		for b.Loop() {
			start := cpuTime()
			r.Render(doc, benchWidth)
			cpu += cpuTime() - start
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("naive", func(b *testing.B) {
		for b.Loop() {
			// The estimate is made once; this reports it.
		}
		b.ReportMetric(naiveEstimate(b, doc).Seconds(), "cpu-s/op")
		b.ReportMetric(float64(naiveSamples), "samples")
	})
}

// naiveStep: the naive baseline is measured on every naiveStep-th delta.
const naiveStep = 512

var (
	naiveOnce    sync.Once
	naiveCPU     time.Duration
	naiveSamples int
)

// naiveEstimate estimates the CPU time of the naive approach, a glamour
// render of the whole message so far after every 4-byte delta, which is
// quadratic: about 51,000 renders of 100 KB on average, far too long to run.
// It renders the prefix after every 512th delta, 100 renders from 2 KB to
// 200 KB, and multiplies their total by 512 — a Riemann sum of the render
// time over the prefix length. Render time grows about linearly with the
// prefix, so the sum is within about 1% of the real total.
func naiveEstimate(tb testing.TB, doc string) time.Duration {
	naiveOnce.Do(func() {
		tr, err := glamour.NewTermRenderer(
			glamour.WithStyles(themeRenderer(tb, "dark").style),
			glamour.WithWordWrap(benchWidth),
			glamour.WithChromaFormatter("terminal16m"),
		)
		if err != nil {
			tb.Fatal(err)
		}
		start := cpuTime()
		deltas := (len(doc) + benchDelta - 1) / benchDelta
		for n := naiveStep; n <= deltas; n += naiveStep {
			if _, err := tr.Render(doc[:min(n*benchDelta, len(doc))]); err != nil {
				tb.Fatal(err)
			}
			naiveSamples++
		}
		naiveCPU = (cpuTime() - start) * naiveStep
	})
	return naiveCPU
}
