package tui

import (
	"fmt"
	"strings"
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

// BenchmarkStreamThroughUI streams a 200 KB answer in 4-byte deltas
// through the UI model: each delta arrives as an event and is followed by
// a frame (the worst case: no two deltas share a frame), and the view is
// drawn after every message, as Bubble Tea does. It reports the cost of
// the first and the last 100 frames, to show it does not grow with the
// message.
var benchSize = 200 << 10

func BenchmarkStreamThroughUI(b *testing.B) {
	doc := benchAnswer(benchSize)
	for b.Loop() {
		m := New(Options{Agent: &fakeAgent{}, Theme: "dark", Getenv: func(string) string { return "" }})
		m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		var first, last time.Duration
		frames := (len(doc) + 3) / 4
		for i := 0; i < len(doc); i += 4 {
			start := time.Now()
			m.Update(eventsMsg{events: []agent.Event{agent.TextDelta{Text: doc[i:min(i+4, len(doc))]}}})
			m.Update(frameMsg{})
			_ = m.View()
			d := time.Since(start)
			switch n := i / 4; {
			case n < 100:
				first += d
			case n >= frames-100:
				last += d
			}
		}
		m.Update(eventsMsg{events: []agent.Event{agent.AssistantMessage{}}})
		b.ReportMetric(float64(first.Microseconds())/100, "µs/first-frame")
		b.ReportMetric(float64(last.Microseconds())/100, "µs/last-frame")
	}
}
