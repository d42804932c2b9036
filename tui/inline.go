package tui

import (
	"bytes"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Inline mode prints the transcript's finished entries into the
// terminal's own scrollback, above the frame Bubble Tea redraws (the live
// entries, the editor and the status line).
//
// Bubble Tea prints above an inline program with tea.Println. Its
// renderer (insertAbove) goes to the frame's last row, scrolls the screen
// up by the rows it prints, moves back up over those rows and the frame,
// inserts the rows there and writes them: this is right only when the rows
// printed and the frame fit on the screen together; past that the move up
// stops at the screen's top, and the frame's old rows (status line,
// editor, blank padding) go into the scrollback between the printed ones.
// And each tea.Println is a Cmd of its own, run in a goroutine of its own,
// so two of them may reach the terminal in either order.
//
// One more fact of the renderer shapes the printing: before its first
// frame its idea of the frame is the whole screen, so a print then scrolls
// blank rows into the scrollback.
//
// So the printer keeps the lines to print in order and hands the terminal
// one chunk at a time, each no taller than the room the frame leaves on
// the screen (inlineRoom), waiting for a chunk's printedMsg before the
// next; the frame never grows past inlineFrameMax; and the first print
// waits until the first frame was surely drawn. A frame is surely drawn
// when the terminal has answered two cursor position requests, the second
// asked after the first was answered: the program writes such a request
// just before the frame of the same tick, so the first answer alone can
// overtake that frame; the second request goes out on a later tick, after
// the first tick's frame.
//
// The frame's top is where the renderer moves the cursor to redraw: the
// terminal's cursor rests there (inlineView), so a frame shorter than the
// one before is drawn at once (from a cursor on a lower row, the renderer
// moved up by the rows of the shorter frame, short of the old frame's top,
// and left its top rows behind).
type printer struct {
	queue    []string // lines taken from the transcript, not printed yet
	inFlight bool     // a chunk was handed out; its printedMsg has not come back
	quit     bool     // quit once everything is printed
	started  bool     // a frame was drawn: printing may begin
}

// inlineFrame is what the UI knows of the first frame: whether it was
// surely drawn (printer.started) is asked of the terminal.
type inlineFrame struct {
	syncing bool   // cursor position requests are out
	asked   int    // the requests answered of the two
	seq     uint64 // the sync's number (its fallback timer names it)
}

// syncWait bounds the wait for a terminal that does not answer a cursor
// position request: printing begins anyway.
const syncWait = 500 * time.Millisecond

// syncTimeoutMsg ends the wait for the answer to request seq.
type syncTimeoutMsg struct{ seq uint64 }

// printedMsg comes back after a chunk: the event loop handled the chunk's
// print (its messages are handled in the order a Sequence sends them).
type printedMsg struct{}

// inlineRoom is how many rows the inline frame leaves free on the screen:
// the most a chunk prints at once.
func (m *Model) inlineRoom() int { return max(m.height/3, 1) }

// inlineFrameMax is the tallest the inline frame may be.
func (m *Model) inlineFrameMax() int { return max(m.height-m.inlineRoom(), 1) }

// queuePrint adds lines to print; nothing is printed before the lines
// queued earlier.
func (m *Model) queuePrint(lines []string) {
	m.print.queue = append(m.print.queue, lines...)
}

// printNext hands the terminal the next chunk, unless one is in flight.
// Once the queue is empty and the session is over it quits.
func (m *Model) printNext() tea.Cmd {
	p := &m.print
	if p.inFlight || !p.started {
		return nil
	}
	if len(p.queue) == 0 {
		if p.quit {
			return tea.Quit
		}
		return nil
	}
	w, room := max(m.width, 1), m.inlineRoom()
	var chunk []string
	for len(p.queue) > 0 && len(chunk) < room {
		l := p.queue[0]
		if ansi.StringWidth(l) > w {
			// Drawn at a wider terminal: the renderer counts wrapped rows
			// only roughly, so the line is split into rows here.
			rows := strings.Split(ansi.Hardwrap(l, w, true), "\n")
			p.queue = append(rows, p.queue[1:]...)
			continue
		}
		chunk = append(chunk, l)
		p.queue = p.queue[1:]
	}
	if len(p.queue) == 0 {
		p.queue = nil
	}
	p.inFlight = true
	// The lines go to the terminal as they are, each followed by an erase
	// to its end: with the terminal's line wrap on, so that a line drawn
	// wider than the terminal has become (a resize it has not heard of
	// yet) wraps and is kept whole; the output turns it off again after
	// the print (inlineOutput).
	text := ansi.SetModeAutoWrap + strings.Join(chunk, "\n")
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// printed is a chunk's printedMsg: the next one may go.
func (m *Model) printed() tea.Cmd {
	m.print.inFlight = false
	return m.printNext()
}

// inlineRows are the rows of the inline frame as the state has them: at
// most inlineFrameMax rows, one blank row once the session is over.
func (m *Model) inlineRows() []string {
	if m.quitting || !m.print.started {
		// Before the first print the frame is one blank row that does not
		// change: the program may start at the screen's top-left, and a
		// frame redrawn there is erased from there, which tmux (its
		// scroll-on-clear) takes for clearing the screen and moves the old
		// frame into the scrollback. The first print puts the welcome
		// above the frame.
		return []string{" "}
	}
	rows, _ := m.screen()
	if over := len(rows) - m.inlineFrameMax(); over > 0 {
		// The frame leaves room for the lines printed above it.
		rows = rows[over:]
	}
	return rows
}

// inlineView is the inline frame: its rows, and the terminal's cursor at
// its top-left, hidden (inlineOutput), except on the blank row before the
// first print and after the last. The editor draws its own cursor.
//
// The cursor rests at the frame's top-left because of what terminals do
// when their width changes. tmux (3.3, tried, and its grid.c) reflows its
// screen: a line wider than the new width is split into rows (rows it
// split are joined again when the width grows), and the cursor stays on
// its character; VTE (GNOME Terminal and others), kitty, iTerm2, Ghostty,
// WezTerm and Alacritty are reported to do the same (not tried here).
// xterm does not reflow: it cuts the rows, and the cursor keeps its row.
// When the height shrinks, tmux drops rows below the cursor, then moves
// rows from the top into the history. The program hears of the new size
// afterwards (tmux tells the program's terminal some 200 ms after it
// reflowed its screen), and the renderer
// redraws from the frame's top, which it finds by moving up from the
// cursor by the rows it drew, then erases the screen below. With the
// cursor on the editor, the rows above it had been reflowed: a rule drawn
// 70 wide takes two rows at 50, the move up ends on the second, and the
// first stays in the history above the new frame (and a taller frame left
// more: every live row wider than the new width, a dialog's borders).
//
// With the cursor at column 0 of the frame's first row, on a line that
// begins there (the row above ends with a newline, and the frame's rows
// never wrap: inlineOutput), no row of the frame is above the cursor: a
// reflow, of any number of resizes, moves the frame's top with the cursor,
// the redraw moves up by none and erases the old frame whole, however it
// was reflowed; and a shorter tmux screen moves no row of the frame into
// the history. This does not count rows the terminal made, so it holds
// for any terminal that keeps the cursor on its character, and for
// xterm's cut rows.
//
// What it cannot help, in tmux (3.3, tried; its grid.c and screen.c):
// tmux keeps the screen's last row when it reflows, the blank rows below
// the frame too, and moves the rows above into the history, so a frame
// that grows by more rows than there are above it (a dialog near the
// screen's top, narrowed to half) has its first rows in the history before
// the program hears of the resize; tmux then puts the cursor at the
// screen's top-left, and the redraw erases from there (eraseBelow keeps
// that erase from moving the rest of the old frame into the history too).
// While the frame grows by fewer rows than there are above it on the
// screen, it stays on the screen whole. And a resize that tmux takes
// in the middle of one frame's write (the cursor then below the top)
// reflows the rows above the cursor as before.
func (m *Model) inlineView() ([]string, *tea.Cursor) {
	rows := m.inlineRows()
	if m.quitting || !m.print.started {
		return rows, nil
	}
	return rows, tea.NewCursor(0, 0)
}

// syncFrame asks the terminal, once, whether the first frame was drawn:
// printing begins then.
func (m *Model) syncFrame() tea.Cmd {
	if m.frame.syncing || m.print.started {
		return nil
	}
	m.frame.syncing, m.frame.asked = true, 0
	m.frame.seq++
	seq := m.frame.seq
	return tea.Batch(tea.RequestCursorPosition, m.tick(syncWait, func(time.Time) tea.Msg { return syncTimeoutMsg{seq} }))
}

// cursorAnswered is the terminal's answer to a cursor position request:
// after the first, the second request goes out.
func (m *Model) cursorAnswered() tea.Cmd {
	if !m.frame.syncing {
		return nil
	}
	if m.frame.asked++; m.frame.asked < 2 {
		return tea.RequestCursorPosition
	}
	m.synced()
	return nil
}

// synced ends the sync: the first frame was drawn, and printing may
// begin.
func (m *Model) synced() {
	if !m.frame.syncing {
		return
	}
	m.frame.syncing = false
	m.print.started = true
}

// frameModes are the terminal's modes while the inline frame is on the
// screen: its cursor hidden (the editor draws its own, and the terminal's
// stays at the frame's top-left: see inlineView) and its line wrap off (see
// inlineOutput); leaveFrameModes puts them back.
const (
	frameModes      = ansi.HideCursor + ansi.ResetModeAutoWrap
	leaveFrameModes = ansi.SetModeAutoWrap + ansi.ShowCursor
)

// inlineOutput is the terminal as the program writes to it in inline
// mode: each write ends, in the same write, with frameModes, and erases
// below without scrolling tmux's screen into its history.
//
// The cursor: Bubble Tea shows the terminal's cursor wherever a view puts
// one and hides it only when a view has none, but inline mode needs it at
// the frame's top-left, not seen.
//
// The erase: see eraseBelow.
//
// The line wrap: a frame is drawn for the width the program knows. When
// the terminal became narrower and the program has not heard of it yet
// (while a window's edge is dragged, every frame), a row wider than the
// terminal wraps, and the renderer, which moves the cursor by the rows it
// drew, leaves the cursor rows below the frame's top: the next redraw
// starts there, and the rows above stay in the history. Without the wrap
// the row is cut at the terminal's edge and the frame keeps its rows; the
// next frame, drawn at the new width, replaces it whole. Lines printed
// above the frame turn the wrap on for themselves (printNext).
func inlineOutput(out io.Writer) io.Writer {
	if f, ok := out.(ttyFile); ok {
		// Bubble Tea reads the terminal's size from its output when that
		// is a terminal.
		return inlineTTY{f}
	}
	return inlineWriter{out}
}

// ttyFile is a terminal as Bubble Tea knows one (x/term's File).
type ttyFile interface {
	io.ReadWriteCloser
	Fd() uintptr
}

type inlineWriter struct{ w io.Writer }

func (o inlineWriter) Write(p []byte) (int, error) { return writeInFrameModes(o.w, p) }

type inlineTTY struct{ ttyFile }

func (o inlineTTY) Write(p []byte) (int, error) { return writeInFrameModes(o.ttyFile, p) }

// eraseBelow erases the screen from the cursor down as
// ansi.EraseScreenBelow does, but one column to the right of the cursor
// (the cursor's row was erased from the cursor first, and the cursor is
// put back): tmux takes an erase below at the screen's top-left for
// clearing the whole screen and moves the screen into the history first
// (its scroll-on-clear), and the frame's top is at the screen's top-left
// whenever a reflow moved it there.
const eraseBelow = ansi.EraseLineRight + ansi.SaveCursor + ansi.CUF1 + ansi.EraseScreenBelow + ansi.RestoreCursor

// writeInFrameModes writes p, its erases below as eraseBelow, and
// frameModes in one write, so that the terminal never shows the cursor
// between them.
func writeInFrameModes(w io.Writer, p []byte) (int, error) {
	b := bytes.ReplaceAll(p, []byte(ansi.EraseScreenBelow), []byte(eraseBelow))
	n, err := w.Write(append(b, frameModes...))
	if n == len(b)+len(frameModes) {
		return len(p), err
	}
	return min(n, len(p)), err
}
