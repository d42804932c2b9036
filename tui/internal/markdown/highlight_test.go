package markdown

import (
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
)

// A regexp that asks for the shortest timeout and runs for longer than
// regexp2's own check period (100 ms) and chroma's timeout (250 ms) is not
// given up: the colours of code cannot change with the machine's load.
// Without highlightTimeoutFloor this match fails with a timeout.
func TestHighlightRegexpsAreNotCutByLoad(t *testing.T) {
	t.Parallel()
	re := regexp2.MustCompile(`^(a|aa)*c$`, 0)
	re.MatchTimeout = time.Nanosecond
	// About 2^(n·0.7) steps: n = 31 runs for half a second here,
	// longer under -race.
	start := time.Now()
	_, err := re.MatchString(strings.Repeat("a", 31))
	if err != nil {
		t.Fatalf("match given up after %s: %v", time.Since(start), err)
	}
}
