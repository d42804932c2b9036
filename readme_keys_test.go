package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tui"
)

// TestREADMEKeys: README's key table is the UI's keymap, row for row (the
// keymap also drives /help; see tui.TestHelpListsTheKeymap).
func TestREADMEKeys(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Keys\n")
	if !ok {
		t.Fatal(`README.md has no "### Keys" section`)
	}
	section, _, _ = strings.Cut(section, "\n\n\n")
	section, _, _ = strings.Cut(section, "\nPrompts are kept")
	row := regexp.MustCompile("(?m)^\\| (`[^|]+) \\| (.*) \\|$")
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, strings.ReplaceAll(m[1], "`", "")+" | "+m[2])
	}
	for _, r := range tui.KeyHelp() {
		want = append(want, r[0]+" | "+r[1])
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md's keys:\n%s\nthe keymap (tui/keymap.go):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
