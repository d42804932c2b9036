package tools

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// headTail keeps the first and the last bytes written to it and counts
// the rest: command output in bounded memory, however long it is.
type headTail struct {
	head    []byte
	headMax int
	ring    []byte // the last bytes, circular once full
	at      int    // next write position in ring
	full    bool   // ring has wrapped
	total   int64
}

func newHeadTail(headMax, tailMax int) *headTail {
	return &headTail{head: make([]byte, 0, headMax), headMax: headMax, ring: make([]byte, tailMax)}
}

// Write keeps what fits in head, and the rest in the ring. It never fails.
func (b *headTail) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(b.ring) == 0 {
		return n, nil
	}
	if len(p) > len(b.ring) {
		p = p[len(p)-len(b.ring):]
	}
	for len(p) > 0 {
		k := copy(b.ring[b.at:], p)
		p = p[k:]
		if b.at += k; b.at == len(b.ring) {
			b.at, b.full = 0, true
		}
	}
	return n, nil
}

// tail returns the bytes kept in the ring, oldest first.
func (b *headTail) tail() []byte {
	if !b.full {
		return b.ring[:b.at]
	}
	return append(append([]byte(nil), b.ring[b.at:]...), b.ring[:b.at]...)
}

// last returns a copy of the last bytes written, at most n, and whether
// bytes written before them are not in it: the ring holds the end once
// the head is full, so once it has wrapped only the ring is at hand.
func (b *headTail) last(n int) (out []byte, cut bool) {
	switch ring := b.ring[:b.at]; {
	case b.full:
		out = b.tail() // a copy
		out = out[max(len(out)-n, 0):]
	case len(ring) >= n:
		out = bytes.Clone(ring[len(ring)-n:])
	default:
		head := b.head[max(len(b.head)-(n-len(ring)), 0):]
		out = append(append(make([]byte, 0, len(head)+len(ring)), head...), ring...)
	}
	return out, b.total > int64(len(out))
}

// text returns what was written, with the middle replaced by a marker
// when it did not all fit, cut on UTF-8 boundaries, with secrets
// scrubbed and made safe to show (see sanitize); the changes say what
// sanitize replaced.
func (b *headTail) text(sc *scrubber) (string, changes) {
	tail := b.tail()
	omitted := b.total - int64(len(b.head)) - int64(len(tail))
	if omitted == 0 {
		return sanitize(sc.scrub(string(b.head) + string(tail)))
	}
	head := b.head
	// Drop a rune cut in two at either side of the gap.
	if i := lastRuneStart(head); i >= 0 && !utf8.FullRune(head[i:]) {
		omitted += int64(len(head) - i)
		head = head[:i]
	}
	for k := 0; k < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); k++ {
		tail = tail[1:]
		omitted++
	}
	h, t := sc.scrubCut(string(head), string(tail))
	h, ch := sanitize(h)
	t, ct := sanitize(t)
	ch.add(ct)
	return fmt.Sprintf("%s\n[… %d bytes omitted …]\n%s", h, omitted, t), ch
}

// lastRuneStart returns the index of the start of the last rune of b, or
// -1 when there is none within the last utf8.UTFMax bytes.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return -1
}
