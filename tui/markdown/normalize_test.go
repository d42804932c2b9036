package markdown

import "testing"

func TestTrimLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain padding", "text    ", "text"},
		{"nothing to trim", "text", "text"},
		{"all spaces", "     ", ""},
		{"styled padding collapses to one reset", "\x1b[38;2;1;2;3mtext\x1b[m\x1b[3m \x1b[m\x1b[3m \x1b[m", "\x1b[38;2;1;2;3mtext\x1b[m"},
		{"spaces with a background show", "\x1b[48;5;63m title \x1b[m   ", "\x1b[48;5;63m title \x1b[m"},
		{"24-bit background", "\x1b[38;2;1;2;3;48;2;4;5;6m x \x1b[m ", "\x1b[38;2;1;2;3;48;2;4;5;6m x \x1b[m"},
		{"background switched off", "\x1b[44m x\x1b[49m  ", "\x1b[44m x\x1b[49m"},
		{"colour arguments are not attributes", "\x1b[38;5;4mx\x1b[m  ", "\x1b[38;5;4mx\x1b[m"},
		{"underlined spaces show", "\x1b[4mlink  \x1b[m", "\x1b[4mlink  \x1b[m"},
		{"reverse spaces show", "\x1b[7m  \x1b[m", "\x1b[7m  \x1b[m"},
		{"state left open is kept", "\x1b[1mx   \x1b[3m", "\x1b[1mx\x1b[3m"},
		{"hyperlink end is kept", "\x1b]8;;http://x\ax\x1b]8;;\a  ", "\x1b]8;;http://x\ax\x1b]8;;\a"},
		{"non-breaking space is visible", "code\u00a0 ", "code\u00a0"},
		{"wide characters", "日本  ", "日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trimLine(tt.in); got != tt.want {
				t.Errorf("trimLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"blank lines around", "   \n\n a  \n   \n b \n\n  \n", " a\n\n b"},
		{"blank lines of escapes only", "\x1b[3m \x1b[m\nx\n\x1b[38;5;1m\x1b[m\n", "x"},
		{"inner blank lines kept", "a\n\n\nb", "a\n\n\nb"},
		{"empty", "\n \n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalize(tt.in); got != tt.want {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
