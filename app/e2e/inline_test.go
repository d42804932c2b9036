package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
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

// TestE2ETUIInlineResizeMidAnswer: resizing the terminal while an answer
// streams into the inline frame (its rows above the editor, the spinner
// redrawing the frame all the time: frames drawn for one width reach the
// terminal at the next) leaves no piece of the frame in the history: once
// the answer is interrupted, each of its words is in the history once, and
// the frame once, at the final width.
func TestE2ETUIInlineResizeMidAnswer(t *testing.T) {
	e := newE2E(t, "tui_inline_stall.json")
	s := e.startTUIAfter(100, 30, 60, "--inline")
	s.waitFor("Ask tackle to do something")
	s.typeText("count in words")
	s.keys("Enter")
	<-e.srv.Stalled()
	s.waitFor("w38")
	s.typeText("draft")
	w := resizeInline(t, s,
		[][2]int{{80, 30}, {60, 30}, {48, 24}, {100, 24}, {70, 36}, {52, 30}},
		[][2]int{{64, 30}, {74, 28}, {66, 26}, {58, 26}},
		func(w int) func(string) bool {
			return func(sc string) bool { return strings.Contains(sc, "\n"+strings.Repeat("─", w)+"\n› draft") }
		})
	s.keys("Escape")
	s.waitFor("⏹ interrupted")
	s.waitUntilHistoryJoined("the answer's words and the frame once each", func(hist string) bool {
		if !inlineFrameOnce(hist, w, "› draft") {
			return false
		}
		words := map[string]int{}
		for _, f := range strings.Fields(hist) {
			words[f]++
		}
		for i := 1; i <= 38; i++ {
			if words[fmt.Sprintf("w%02d", i)] != 1 {
				return false
			}
		}
		return true
	})
	s.keys("C-u", "C-d")
	s.waitExit()
}

// TestE2ETUIInlineResizeUnderADialog: resizing the terminal while the
// approval dialog is the inline frame (its borders as wide as the screen)
// leaves no piece of the dialog in the history once it was answered.
func TestE2ETUIInlineResizeUnderADialog(t *testing.T) {
	e := newE2E(t, "tui_approve.json")
	s := e.startTUIAfter(100, 44, 80, "--inline")
	s.waitFor("Ask tackle to do something")
	s.typeText("say hello")
	s.keys("Enter")
	s.waitFor("Allow bash?")
	w := resizeInline(t, s,
		[][2]int{{72, 44}, {100, 38}, {100, 46}, {80, 46}},
		[][2]int{{90, 46}, {76, 44}, {84, 44}, {80, 42}},
		func(w int) func(string) bool {
			return func(sc string) bool {
				return strings.Contains(sc, "Allow bash?") && slices.Contains(strings.Split(sc, "\n"), "╭"+strings.Repeat("─", w-2)+"╮")
			}
		})
	s.keys("y")
	s.waitFor("The command printed its greeting.")
	s.waitUntil("the turn to end", func(sc string) bool { return !strings.Contains(sc, "esc to interrupt") })
	s.waitUntilHistoryJoined("the transcript and the frame once, no piece of the dialog", func(hist string) bool {
		if !inlineFrameOnce(hist, w, "› Ask tackle") || strings.Count(hist, "The command printed its greeting.") != 1 || strings.Contains(hist, "Allow bash?") {
			return false
		}
		for _, l := range strings.Split(hist, "\n") {
			if strings.HasPrefix(l, "╭") || strings.HasPrefix(l, "│") || strings.HasPrefix(l, "╰") {
				return false
			}
		}
		return true
	})
	s.keys("C-d")
	s.waitExit()
}

// resizeInline resizes the terminal of an inline session to each of
// sizes, waiting each time for the program's terminal to have the size and
// for the frame redrawn at the width (redrawn), then to each of burst in a
// row, as a window's edge is dragged (the program draws for one size into
// the next), and returns the last width once the frame was redrawn at it.
//
// tmux keeps the screen's last row when it reflows, blank rows below the
// frame too, and moves the rows above into the history: a frame that grows
// by more rows than there are above it loses its first rows to the history
// before the program can redraw it (see inlineView). The sizes keep the
// frame within the rows above it.
func resizeInline(t *testing.T, s *tmuxSession, sizes, burst [][2]int, redrawn func(w int) func(string) bool) int {
	t.Helper()
	for _, size := range sizes {
		s.resize(size[0], size[1])
		s.waitUntil("the frame redrawn at "+strconv.Itoa(size[0])+" columns", redrawn(size[0]))
	}
	for _, size := range burst {
		s.tmux("resize-window", "-t", s.name, "-x", strconv.Itoa(size[0]), "-y", strconv.Itoa(size[1]))
	}
	last := burst[len(burst)-1]
	s.waitSize(last[0], last[1])
	s.waitUntil("the frame redrawn at "+strconv.Itoa(last[0])+" columns", redrawn(last[0]))
	return last[0]
}

// TestE2ETUIInlineRedrawAtTheScreenTop: when a reflow moves the frame's
// top to the screen's top-left (a 100×5 terminal narrowed to 50: the rule
// and the status line take two rows each, and the frame fills the
// screen), the redraw erases the old frame there instead of tmux moving
// the screen into its history (tmux takes an erase below at the top-left
// for clearing the screen).
func TestE2ETUIInlineRedrawAtTheScreenTop(t *testing.T) {
	e := newE2E(t, "tui_answer.json")
	s := e.startTUIAfter(100, 5, 20, "--inline")
	s.waitFor("Ask tackle to do something")
	s.typeText("draft")
	s.waitFor("› draft")
	s.tmux("resize-window", "-t", s.name, "-x", "50", "-y", "5")
	// tmux has reflowed its screen; the program hears of it some 200 ms
	// later.
	if got := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{cursor_x},#{cursor_y}")); got != "0,0" {
		t.Fatalf("the reflow left the cursor at %s, not at the screen's top-left", got)
	}
	s.waitSize(50, 5)
	s.waitUntilHistoryJoined("the frame once, at 50 columns", func(hist string) bool {
		return inlineFrameOnce(hist, 50, "› draft")
	})
	s.keys("C-u", "C-d")
	s.waitExit()
}
