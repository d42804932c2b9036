package markdown

import (
	"time"

	"github.com/dlclark/regexp2"
)

// highlightTimeoutFloor is the least time a regexp of the code highlighter
// gets before it is given up.
//
// chroma, which glamour highlights code blocks with, gives each of its
// regexps a 250 ms match timeout and lexes the text of a match that timed
// out by another rule. A match is short; but on a loaded machine the
// goroutine doing it can be held up for that long, and then the same code
// block is coloured differently from one render to the next (seen with
// -race on two cores: a Go comment drawn as text and punctuation). The
// colours of code must not depend on the machine's load, so the timeout
// must not fire on real input, while a pathological regexp still ends.
//
// regexp2 checks its timeouts against a clock that a goroutine advances
// once per check period, starting one period after it is started, and
// gives every match at least its timeout more than the clock's reading:
// with a period of an hour, the clock does not move for the first hour
// of the process, so no highlighting regexp is given up then, whatever
// chroma asks for; after it, only a match running across a tick of the
// clock that comes 250 ms late can be. The price: a regexp of chroma's
// that backtracks without end on some input (none of the lexers is known
// to) would hold its render that long.
const highlightTimeoutFloor = time.Hour

func init() {
	// Before any regexp runs, so the clock goroutine never reads the
	// period while it changes.
	regexp2.SetTimeoutCheckPeriod(highlightTimeoutFloor)
}
