package tui

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
)

// benchAnswer is a long markdown answer: sections, paragraphs, lists and
// Go code blocks, about size bytes.
func benchAnswer(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe worker streams each reply and runs the `hooks` before any tool call, so that a **pause** reaches the interface in order while deltas may be coalesced into frames.\n\n", i)
		fmt.Fprintf(&b, "- read `file_%d.go`\n- run the tests\n- fix what fails\n\n", i)
		fmt.Fprintf(&b, "```go\nfunc step%d(ctx context.Context) error {\n\tif err := run(ctx); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n\treturn nil\n}\n```\n\n", i, i)
	}
	return b.String()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamThroughUI streams a 200 KB answer in 4-byte deltas
// through the whole UI model: each delta arrives as an event, a frame
// draws the transcript every `every` deltas, and the view is drawn after
// every message, as Bubble Tea does. It reports the CPU time for the
// whole answer and the wall time of the first and the last 100 frames,
// which shows that a frame does not cost more as the message grows.
func BenchmarkStreamThroughUI(b *testing.B) {
	doc := benchAnswer(200 << 10)
	for _, every := range []int{1, 16} {
		b.Run(fmt.Sprintf("frame-every-%d-deltas", every), func(b *testing.B) {
			for b.Loop() {
				m := New(Options{Agent: &fakeAgent{}, Theme: "dark", Env: []string{}})
				m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
				m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
				var first, last time.Duration
				frames := (len(doc)/4 + every - 1) / every
				cpu := cpuTime()
				for i, n := 0, 0; i < len(doc); i += 4 {
					start := time.Now()
					m.Update(eventsMsg{events: []agent.Event{agent.TextDelta{Text: doc[i:min(i+4, len(doc))]}}})
					_ = m.View()
					if (i/4)%every != every-1 {
						continue
					}
					m.Update(frameMsg{})
					_ = m.View()
					d := time.Since(start)
					switch {
					case n < 100:
						first += d
					case n >= frames-100:
						last += d
					}
					n++
				}
				m.Update(eventsMsg{events: []agent.Event{agent.AssistantMessage{}}})
				m.Update(frameMsg{})
				b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s/answer")
				b.ReportMetric(float64(first.Microseconds())/100, "µs/first-frames")
				b.ReportMetric(float64(last.Microseconds())/100, "µs/last-frames")
			}
		})
	}
}
