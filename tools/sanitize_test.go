package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changed        changes
	}{
		{"plain text stays", "a\tb\r\nc é 日本 😀\n", "a\tb\r\nc é 日本 😀\n", changes{}},
		{"colours are removed", "\x1b[1;31mFAIL\x1b[0m ok\x1b[K", "FAIL ok", changes{escapes: 3}},
		{"osc title and hyperlink", "\x1b]0;title\x07x \x1b]8;;http://a\x1b\\link\x1b]8;;\x1b\\", "x link", changes{escapes: 3}},
		{"charset and keypad escapes", "\x1b(Bab\x1b=c\x1bc", "abc", changes{escapes: 3}},
		{"NUL and other controls", "a\x00b\x07c\x08d\x7f", "a␀b␇c␈d␡", changes{controls: 4}},
		{"a lone ESC", "x\x1b", "x␛", changes{controls: 1}},
		{"an unfinished CSI", "x\x1b[12", "x␛[12", changes{controls: 1}},
		{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD", changes{invalid: 2}},
		{"C1 controls", "a\u0085b\u009bc", "a\uFFFDb\uFFFDc", changes{controls: 2}},
		{"NUL-separated names", "src/main.go\x00src/util.go\x00", "src/main.go␀src/util.go␀", changes{controls: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, c := sanitize(tc.in)
			tc.changed.size = len(tc.in)
			if got != tc.want || c != tc.changed {
				t.Errorf("sanitize(%q) = %q, %+v\nwant %q, %+v", tc.in, got, c, tc.want, tc.changed)
			}
			if !utf8.ValidString(got) {
				t.Errorf("%q is not valid UTF-8", got)
			}
			if c.binary() {
				t.Errorf("%q judged binary", tc.in)
			}
		})
	}
	if _, c := sanitize(strings.Repeat("\x00\x01\x02abcdef\xff\xfe", 4)); !c.binary() {
		t.Errorf("mostly control bytes not judged binary: %+v", c)
	}
}

func TestBashSanitisesOutput(t *testing.T) {
	r, _ := newTestRegistry(t)
	out := wantOK(t, call(t, r, "bash", map[string]any{
		"command": `printf 'ok\t\033[31mred\033[0m\r\n'; printf 'nul\000bell\007 bad\377\376 é\n'; printf 'tail\033\n' >&2`,
	}))
	if strings.ContainsFunc(out, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' }) {
		t.Errorf("raw control characters reached the model: %q", out)
	}
	wantContains(t, out,
		"ok\tred\r\n",
		"nul␀bell␇ bad\uFFFD\uFFFD é\n",
		"tail␛\n",
		"[The output was made readable: removed 2 terminal escape sequences (colours, cursor movement); showed 3 control characters as symbols such as ␀ (NUL) and ␛ (ESC); showed 2 bytes of invalid UTF-8 as �. Pipe the output through `od -c` or `xxd` to see the raw bytes.]",
	)

	// Clean output gets no note.
	if out := wantOK(t, call(t, r, "bash", map[string]any{"command": "echo plain"})); out != "plain" {
		t.Errorf("plain output = %q", out)
	}
}

func TestBashDoesNotShowBinaryOutput(t *testing.T) {
	r, _ := newTestRegistry(t)
	// 64 KiB of binary: the head and tail kept are binary too.
	out := wantOK(t, call(t, r, "bash", map[string]any{"command": `head -c 65536 /dev/zero | tr '\000' '\201'; printf '\000\001'`}))
	if !strings.HasPrefix(out, "[The output looks binary (65538 bytes, over 30% of them control characters or invalid UTF-8), so it is not shown.") || !strings.Contains(out, "xxd") {
		t.Errorf("output = %q", out)
	}
	if strings.ContainsRune(out, utf8.RuneError) || strings.ContainsRune(out, 0) {
		t.Errorf("binary bytes reached the model: %q", out)
	}
}

func TestBashSanitisesBothSidesOfACut(t *testing.T) {
	r, _ := newTestRegistry(t)
	out := wantOK(t, call(t, r, "bash", map[string]any{
		"command": `printf 'start\033[1m\000'; head -c 40000 /dev/zero | tr '\000' 'x'; printf '\033[0m\001end'`,
	}))
	wantContains(t, out, "start␀", "bytes omitted", "␁end", "removed 2 terminal escape sequences", "showed 2 control characters")
	if strings.ContainsAny(out, "\x00\x01\x1b") {
		t.Errorf("raw control characters reached the model: %q", out)
	}
}
