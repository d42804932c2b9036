package tui

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// printed returns the text the model printed above the program with
// tea.Println (the terminal's scrollback in inline mode).
func (h *harness) printed() string {
	var b strings.Builder
	for _, m := range h.out {
		v := reflect.ValueOf(m)
		if v.Kind() == reflect.Struct && v.Type().Name() == "printLineMessage" {
			b.WriteString(ansi.Strip(v.Field(0).String()))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestInlinePrintsFinishedEntriesIntoScrollback(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.typeText("hello").keys("enter")
	if got := h.printed(); !strings.Contains(got, "› hello") {
		t.Fatalf("the user's message was not printed: %q", got)
	}
	// Events of a turn (the fake run already returned; the events are
	// what a real one would emit).
	h.events(agent.TextDelta{Text: "partial answer"})
	if got := h.printed(); strings.Contains(got, "partial answer") {
		t.Fatal("streaming text was printed before it finished")
	}
	if s := h.screen(); !strings.Contains(s, "partial answer") {
		t.Fatalf("streaming text is not in the live view:\n%s", s)
	}
	call := bashCall("c1", "make")
	h.events(agent.TextDelta{Text: " done."}, agent.AssistantMessage{Message: chat.Message{ToolCalls: []chat.ToolCall{call}}})
	if got := h.printed(); !strings.Contains(got, "partial answer done.") {
		t.Fatalf("the finished answer was not printed: %q", got)
	}
	// The tool call is live until it finishes: it stays in the view.
	if s := h.screen(); !strings.Contains(s, "bash  make") {
		t.Fatalf("the live tool call is not in the view:\n%s", s)
	}
	// Quitting prints what is left, so the whole session is in the
	// scrollback.
	h.keys("ctrl+d")
	if got := h.printed(); !strings.Contains(got, "bash  make") || !h.quit() {
		t.Fatalf("quit did not print the rest: %q", got)
	}
	if s := h.m.View().Content; strings.TrimSpace(s) != "" {
		t.Errorf("the view is not empty after quitting: %q", s)
	}
}

func TestInlineViewFitsTheTerminal(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.hold = true
	h.typeText("long").keys("enter")
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d\n\n", i)
	}
	h.events(agent.TextDelta{Text: b.String()})
	lines := strings.Split(h.m.View().Content, "\n")
	if len(lines) > 24 {
		t.Fatalf("the inline view is %d lines on a 24-line terminal", len(lines))
	}
	if s := h.screen(); !strings.Contains(s, "line 99") {
		t.Fatalf("the newest text is not shown:\n%s", s)
	}
}

// printChunks returns each text printed above the program, in order.
func (h *harness) printChunks() []string {
	var out []string
	for _, m := range h.out {
		v := reflect.ValueOf(m)
		if v.Kind() == reflect.Struct && v.Type().Name() == "printLineMessage" {
			out = append(out, ansi.Strip(v.Field(0).String()))
		}
	}
	return out
}

// TestInlinePrintsInChunksThatFitTheScreen: an answer taller than the
// screen reaches the scrollback in order, in chunks no taller than the
// room the frame leaves (Bubble Tea's insertAbove scrambles the screen
// past that), and no chunk goes out before the last one was printed.
func TestInlinePrintsInChunksThatFitTheScreen(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "line %d\n\n", i)
	}
	h.typeText("long").keys("enter")
	h.hold = true
	h.events(agent.TextDelta{Text: b.String()}, agent.AssistantMessage{Message: chat.Message{Content: b.String()}})
	// Held: the first chunk is out, the rest waits for its printedMsg.
	before := len(h.printChunks())
	h.release()
	chunks := h.printChunks()[before:]
	if len(chunks) < 2 {
		t.Fatalf("a 120-line answer went out in %d chunks", len(chunks))
	}
	room := h.m.inlineRoom()
	for i, c := range chunks {
		if n := strings.Count(c, "\n") + 1; n > room {
			t.Errorf("chunk %d is %d rows, over the %d the frame leaves", i, n, room)
		}
	}
	all := strings.Join(chunks, "\n")
	last := -1
	for i := range 60 {
		at := strings.Index(all, fmt.Sprintf("line %d\n", i))
		if i == 59 {
			at = strings.Index(all, "line 59")
		}
		if at <= last {
			t.Fatalf("line %d is printed out of order (or missing):\n%s", i, all)
		}
		last = at
	}
}

// TestInlineHeldChunksWaitForThePrint: with Cmds held, one chunk is
// handed out per printedMsg.
func TestInlineHeldChunksWaitForThePrint(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.typeText("long").keys("enter")
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "line %d\n\n", i)
	}
	h.events(agent.TextDelta{Text: b.String()})
	h.hold = true
	h.events(agent.AssistantMessage{Message: chat.Message{Content: b.String()}})
	h.send(tea.KeyPressMsg{Code: 'x', Text: "x"}) // more updates while a chunk is out
	if !h.m.print.inFlight || len(h.m.print.queue) == 0 {
		t.Fatalf("in flight %v with %d lines queued, want a chunk out and the rest queued", h.m.print.inFlight, len(h.m.print.queue))
	}
	n := 0
	for _, c := range h.held {
		if c != nil && isSequence(c()) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d chunks handed out before the first was printed, want 1", n)
	}
}

// TestInlineFrameShrinksAtOnce: a shorter frame is drawn at once, the
// cursor at its top-left, where the renderer starts the redraw (it used to
// wait, drawn as tall as before, for two cursor position answers: from a
// cursor on the editor's row the renderer moved up by the shorter frame's
// rows and left the old frame's top rows behind).
func TestInlineFrameShrinksAtOnce(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.typeText("go").keys("enter")
	h.events(agent.TextDelta{Text: "one\n\ntwo\n\nthree\n\nfour"})
	tall := strings.Count(h.m.View().Content, "\n") + 1
	h.hold = true
	h.events(agent.AssistantMessage{Message: chat.Message{Content: "one\n\ntwo\n\nthree\n\nfour"}})
	v := h.m.View()
	if got := strings.Count(v.Content, "\n") + 1; got >= tall {
		t.Errorf("the frame is %d rows once the answer was printed, want fewer than %d", got, tall)
	}
	if v.Cursor == nil || v.Cursor.X != 0 || v.Cursor.Y != 0 {
		t.Errorf("the cursor is at %+v, want the frame's top-left", v.Cursor)
	}
}

// TestInlineFirstPrintWaitsForTwoAnswers: nothing is printed before the
// terminal answered two cursor position requests, the second asked after
// the first answer (the first can overtake the frame written with it);
// until then the frame is one blank row, the terminal's cursor hidden.
func TestInlineFirstPrintWaitsForTwoAnswers(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true; o.About.Version = "v1" })
	m := New(h.m.opts)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	asks := func(cmd tea.Cmd) (requests, prints int) {
		var walk func(tea.Cmd)
		walk = func(c tea.Cmd) {
			if c == nil {
				return
			}
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					walk(c)
				}
			default:
				if isSequence(msg) {
					prints++
				} else if reflect.TypeOf(msg) != nil && reflect.TypeOf(msg).Name() == "requestCursorPosMsg" {
					requests++
				}
			}
		}
		walk(cmd)
		return requests, prints
	}
	_, cmd := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if r, p := asks(cmd); r != 1 || p != 0 {
		t.Fatalf("the first frame asked %d times and printed %d chunks, want 1 and 0", r, p)
	}
	if v := m.View(); strings.TrimSpace(v.Content) != "" || v.Cursor != nil {
		t.Errorf("before the first print the frame is %q with the cursor %+v, want a blank row and none", v.Content, v.Cursor)
	}
	_, cmd = m.Update(tea.CursorPositionMsg{})
	if r, p := asks(cmd); r != 1 || p != 0 {
		t.Fatalf("after the first answer: asked %d times and printed %d chunks, want 1 and 0", r, p)
	}
	_, cmd = m.Update(tea.CursorPositionMsg{})
	if r, p := asks(cmd); r != 0 || p != 1 {
		t.Fatalf("after the second answer: asked %d times and printed %d chunks, want 0 and 1 (the welcome)", r, p)
	}
	if v := m.View(); v.Cursor == nil || v.Cursor.X != 0 || v.Cursor.Y != 0 {
		t.Errorf("once printing began the cursor is at %+v, want the frame's top-left", v.Cursor)
	}
}

// TestInlineCursorRestsAtTheFrameTop: in inline mode the terminal's
// cursor is at the frame's top-left, whatever the editor's cursor and with
// a dialog open (a terminal that reflows the screen keeps the cursor on
// its character, so the frame's top moves with it, and the redraw finds
// it); the editor draws its cursor as text, in reverse video. Full-screen
// mode keeps the terminal's cursor in the editor.
func TestInlineCursorRestsAtTheFrameTop(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.typeText("hello").keys("enter")
	h.events(agent.TextDelta{Text: "a live answer, its rows above the editor"})
	h.typeText("draft")
	v := h.m.View()
	if v.Cursor == nil || v.Cursor.X != 0 || v.Cursor.Y != 0 {
		t.Errorf("the cursor is at %+v, want the frame's top-left", v.Cursor)
	}
	rows := strings.Split(v.Content, "\n")
	editor := -1
	for i, r := range rows {
		if strings.HasPrefix(ansi.Strip(r), "› draft") {
			editor = i
		}
	}
	if editor < 1 {
		t.Fatalf("no editor row below the live answer:\n%s", ansi.Strip(v.Content))
	}
	if !strings.Contains(rows[editor], "\x1b[7m") {
		t.Errorf("the editor's row draws no cursor in reverse video: %q", rows[editor])
	}

	d := newHarness(t, func(o *Options) { o.Inline = true })
	d.agent.outcomes = []fakeOutcome{paused(bashCall("c1", "make"))}
	d.typeText("build it").keys("enter")
	if len(d.m.dialogs) != 1 {
		t.Fatalf("no approval dialog after a pause:\n%s", d.screen())
	}
	if v := d.m.View(); v.Cursor == nil || v.Cursor.X != 0 || v.Cursor.Y != 0 {
		t.Errorf("with a dialog open the cursor is at %+v, want the frame's top-left", v.Cursor)
	}

	full := newHarness(t)
	full.typeText("draft")
	v = full.m.View()
	if v.Cursor == nil || v.Cursor.Y == 0 || v.Cursor.X != ansi.StringWidth("› draft") {
		t.Errorf("full-screen, the cursor is at %+v, want after the draft in the editor", v.Cursor)
	}
	if strings.Contains(v.Content, "\x1b[7m") {
		t.Error("full-screen, the editor draws a cursor of its own too")
	}
}

// TestInlineOutputKeepsTheFrameModes: every write of the program ends, in
// the same write, with the cursor hidden and the line wrap off (a frame
// drawn for a wider terminal than it reaches keeps its rows), its erases
// below start right of the cursor after erasing the cursor's row; the output
// is still a terminal to Bubble Tea when the terminal was one; a chunk of
// lines printed above the frame turns the wrap on for itself.
func TestInlineOutputKeepsTheFrameModes(t *testing.T) {
	var b strings.Builder
	out := inlineOutput(&b)
	frame := "\r" + ansi.EraseScreenBelow + "rule\r\nstatus\r" + ansi.CursorUp(1)
	if n, err := out.Write([]byte(frame)); n != len(frame) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	// The erase below leaves the cursor's column to the right of the
	// cursor: tmux takes an erase below at the screen's top-left for
	// clearing the screen, and scrolls the screen into its history.
	erase := ansi.EraseLineRight + ansi.SaveCursor + ansi.CUF1 + ansi.EraseScreenBelow + ansi.RestoreCursor
	if got, want := b.String(), "\r"+erase+"rule\r\nstatus\r"+ansi.CursorUp(1)+ansi.HideCursor+ansi.ResetModeAutoWrap; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if f, ok := inlineOutput(w).(ttyFile); !ok || f.Fd() != w.Fd() {
		t.Errorf("the output of a terminal is %T, not a terminal", inlineOutput(w))
	}

	h := newHarness(t, func(o *Options) { o.Inline = true })
	h.typeText("hello").keys("enter")
	var chunks int
	for _, m := range h.out {
		v := reflect.ValueOf(m)
		if v.Kind() == reflect.Struct && v.Type().Name() == "printLineMessage" {
			chunks++
			if s := v.Field(0).String(); !strings.HasPrefix(s, ansi.SetModeAutoWrap) {
				t.Errorf("a chunk printed without the line wrap on: %q", s)
			}
		}
	}
	if chunks == 0 {
		t.Fatal("nothing was printed")
	}
}
