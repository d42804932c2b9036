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
// Without highlightTimeoutFloor the match fails with a timeout. (With a
// floor of 10 s it failed 1 run in 5 under load: a match that spanned a
// tick of regexp2's clock was given up at the tick.)
func TestHighlightRegexpsAreNotCutByLoad(t *testing.T) {
	t.Parallel()
	const pattern = `^(a|aa)*c$` // about 1.6^n steps on n a's
	// The input that runs for 300 ms on this machine now (-race and load
	// make regexps many times slower), found with no timeout at all.
	n := 16
	for ; ; n++ {
		start := time.Now()
		if _, err := regexp2.MustCompile(pattern, 0).MatchString(strings.Repeat("a", n)); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) >= 300*time.Millisecond {
			break
		}
	}
	re := regexp2.MustCompile(pattern, 0)
	re.MatchTimeout = time.Nanosecond
	start := time.Now()
	if _, err := re.MatchString(strings.Repeat("a", n)); err != nil {
		t.Fatalf("match given up after %s: %v", time.Since(start), err)
	}
}
