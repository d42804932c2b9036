package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestE2ETUIInlineLeavesTheTranscript: an --inline session leaves in the
// terminal's history exactly the transcript, in order, once (the golden
// files, checked against what a full-screen session writes when it ends),
// at 60, 120 and 200 columns, through an answer taller than the screen, a tool's output, a
// read file, an approval dialog over a diff, and a second prompt with
// another long answer. No frame (editor, status line, dialog) and no
// blank run stays behind.
func TestE2ETUIInlineLeavesTheTranscript(t *testing.T) {
	for _, w := range []int{60, 120, 200} {
		t.Run(strconv.Itoa(w), func(t *testing.T) {
			hist := inlineSession(t, w)
			golden.RequireEqual(t, []byte(hist+"\n"))
			for _, want := range []string{"› count to twenty", "40. Step 40", "✓ bash  seq 1 20", "+line five and a half", " line 08", "› summarise", "Paragraph 20"} {
				if n := strings.Count(hist, want); n != 1 {
					t.Errorf("the history holds %q %d times, want once:\n%s", want, n, hist)
				}
			}
			for _, frame := range []string{"Allow edit_file?", "Ask tackle to do something", "e2e-model · default", "────"} {
				if strings.Contains(hist, frame) {
					t.Errorf("the history holds the frame's %q:\n%s", frame, hist)
				}
			}
			if strings.Contains(hist, "\n\n\n") {
				t.Errorf("the history holds a run of blank lines:\n%s", hist)
			}
		})
	}
}

// inlineSession runs the session of TestE2ETUIInlineLeavesTheTranscript
// inline in a w×30 terminal and returns the terminal's history after tackle exited,
// from the welcome block's hooks line (the lines before name the
// server's port and the workspace) to the last line that is not blank, durations of tool calls
// taken out.
func inlineSession(t *testing.T, w int) string {
	e := newE2E(t, "tui_inline_long.json")
	var notes strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&notes, "line %02d\n", i)
	}
	mustWrite(t, filepath.Join(e.workspace, "notes.txt"), notes.String())
	s := e.startTUISize(w, 30, "--inline")
	idle := func(screen string) bool {
		return strings.Contains(screen, "Ask tackle to do something") && !strings.Contains(screen, "esc to interrupt")
	}
	s.waitUntil("the editor", idle)
	s.typeText("count to twenty")
	s.keys("Enter")
	s.waitFor("Allow edit_file?")
	s.keys("y")
	s.waitUntil("the turn to end", func(screen string) bool { return strings.Contains(screen, "has its new lines") && idle(screen) })
	s.typeText("summarise")
	s.keys("Enter")
	s.waitUntil("the second answer", func(screen string) bool { return strings.Contains(screen, "Paragraph 20") && idle(screen) })
	s.keys("C-d")
	s.waitExit()
	hist := s.waitUntilHistory("the shell's mark after tackle", func(h string) bool { return strings.Contains(h, exitedMark) })
	lines := strings.Split(hist, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  hooks: ") {
			lines = lines[i:]
			break
		}
	}
	for i, l := range lines {
		if strings.HasPrefix(l, exitedMark) {
			lines = lines[:i]
			break
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	out := strings.Join(lines, "\n")
	out = regexp.MustCompile(`\s+\d+(\.\d+)?m?s\n`).ReplaceAllString(out, "\n")
	out = regexp.MustCompile(`tackle --resume \S+`).ReplaceAllString(out, "tackle --resume ID")
	return strings.ReplaceAll(out, e.workspace, "WORKSPACE")
}
