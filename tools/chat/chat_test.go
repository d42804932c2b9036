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

// TestOneLine: white space of every kind is one space (a carriage
// return cannot rewind the line the text is printed on), the ends are
// trimmed, and a cut keeps to Quote's.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"ls -la", 0, "ls -la"},
		{"  ls\nrm -rf x\n", 0, "ls rm -rf x"},
		{"echo evil\recho fine", 0, "echo evil echo fine"},
		{"tab\there  two  spaces\u00a0nbsp", 0, "tab here two spaces nbsp"},
		{"line one\nline two", 12, "line one lin… (5 more bytes)"},
		{"é é", 2, "é… (3 more bytes)"},
		{"short", 10, "short"},
	} {
		if got := OneLine(tc.s, tc.max); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}
