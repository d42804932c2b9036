package tools

import (
	"bytes"
	"sync"
	"time"
)

// A running command's output is reported as it comes (Progress.Output),
// so the user watches a long command instead of a spinner. What is
// reported is made safe exactly as the result is: the environment's
// secrets scrubbed, terminal escapes removed, control characters shown
// as symbols. Only what is whole is shown: whole lines, and of the line
// still being written the words that a blank ended, so that a secret or
// an escape sequence written a byte at a time shows only once it is
// whole, when scrubbing and redaction can see all of it.
const (
	// liveContext bounds the end of the output a report is made from:
	// the whole lines of its last bytes. The caller redacts it whole (a
	// private key block is redacted from its BEGIN line on) and keeps
	// the last lines.
	liveContext = 16 << 10
	// liveEvery spaces the reports of one command.
	liveEvery = time.Second / 20
)

// liveOutput is a running command's output: a headTail that can be read
// while the command writes it, and a signal that something was written.
type liveOutput struct {
	mu      sync.Mutex
	out     *headTail
	changed chan struct{} // holds a token while output is not reported yet
}

func newLiveOutput(out *headTail) *liveOutput {
	return &liveOutput{out: out, changed: make(chan struct{}, 1)}
}

// Write keeps p in the headTail. It never fails.
func (l *liveOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.out.Write(p)
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default: // a report is already due
	}
	return n, err
}

// text is the end of the output so far as a report shows it (liveText).
func (l *liveOutput) text(sc *scrubber) string {
	l.mu.Lock()
	b, cut := l.out.last(liveContext)
	l.mu.Unlock()
	return liveText(b, cut, sc)
}

// report calls report with the output (Progress.Output) whenever it
// changed, at once and then at most every liveEvery, until stop is
// closed. The channel it returns is closed once it has stopped: no
// report comes after that.
func (l *liveOutput) report(report func(Progress), sc *scrubber, stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := ""
		for {
			select {
			case <-stop:
				return
			case <-l.changed:
			}
			if text := l.text(sc); text != last {
				last = text
				report(Progress{Output: text})
			}
			pause := time.NewTimer(liveEvery)
			select {
			case <-stop:
				pause.Stop()
				return
			case <-pause.C:
			}
		}
	}()
	return done
}

// liveText is what a report shows of b, the end of a command's output
// (cut: what came before b is not in it): its whole lines, and of the
// line still being written what comes up to its last blank, with the
// environment's secrets scrubbed (a part of one at the end too, as at a
// cut) and made safe as the result is (sanitize). Output that looks
// binary shows nothing.
func liveText(b []byte, cut bool, sc *scrubber) string {
	if cut {
		// The first line began before b: a part of it could be the end
		// of a secret.
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return ""
		}
		b = b[i+1:]
	}
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		b = b[:i+1+bytes.LastIndexAny(b[i+1:], " \t\r")+1]
	}
	text, _ := sc.scrubCut(string(b), "")
	text, changed := sanitize(text)
	if changed.binary() {
		return ""
	}
	return text
}
