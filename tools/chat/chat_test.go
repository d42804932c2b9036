package chat

import "testing"

func TestQuote(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc… (3 more bytes)"},
		{"ééé", 3, "é… (4 more bytes)"}, // never splits a rune
		{"日本語", 4, "日… (6 more bytes)"},
	}
	for _, tt := range tests {
		if got := Quote(tt.s, tt.n); got != tt.want {
			t.Errorf("Quote(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
