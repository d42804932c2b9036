package chat

import (
	"encoding/binary"
	"testing"
)

// Every byte value at every one of the eight places, among plain ones:
// plain exactly when JSON keeps it as it is in a string.
func TestPlainJSON(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
			if got := PlainJSON(binary.LittleEndian.Uint64(w)); got != want {
				t.Errorf("byte %#x at %d: plain %v, want %v", c, pos, got, want)
			}
		}
	}
	if PlainJSON(binary.LittleEndian.Uint64([]byte("\x1f\"\\\x80\x00\x7f\xff "))) {
		t.Error("eight bytes none of them plain but two were taken as plain")
	}
}
