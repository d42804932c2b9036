package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// runWait bounds how long Run waits, after the program ended, for a turn
// that was still running to finish aborting (its on_abort hooks).
const runWait = 10 * time.Second

// Run runs the UI until the user quits or ctx is cancelled. in and out
// are the terminal. In full-screen mode the transcript is written to out
// when the program ends, so the session stays in the terminal's
// scrollback. In inline mode the program writes through inlineOutput,
// and the terminal's cursor and line wrap are given back when it ends.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	m := New(opts)
	m.ctx = ctx
	defer m.bridge.Close()
	termOut := out
	if opts.Inline {
		termOut = inlineOutput(out)
	}
	p := tea.NewProgram(m,
		tea.WithContext(ctx),
		tea.WithInput(in),
		tea.WithOutput(termOut),
		// Ctrl+C is a key (it interrupts a turn); SIGINT from elsewhere
		// and SIGTERM cancel ctx.
		tea.WithoutSignalHandler(),
		tea.WithEnvironment(m.opts.Env),
	)
	final, err := p.Run()
	if opts.Inline {
		// Bubble Tea has shown the cursor again; inlineOutput hid it after.
		// A terminal this write fails on is gone, and needs nothing back.
		_, _ = io.WriteString(out, leaveFrameModes)
	}
	if fm, ok := final.(*Model); ok && fm != nil {
		m = fm
	}
	m.stopRuns(runWait)
	m.settle()
	if !opts.Inline && m.ready && (!m.transcript.empty() || len(m.past) > 0) {
		// The colours are brought down to what the terminal shows, as the
		// program's renderer does.
		w := colorprofile.NewWriter(out, m.opts.Env)
		if _, werr := io.WriteString(w, strings.Join(m.scrollback(), "\n")+"\n"); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// settle brings the transcript up to date once the program has ended:
// with the events a run sent while it stopped (the results of the calls
// it cancelled), which no Update took in; a call still shown as live
// then did not run to its end. What the UI leaves in the terminal never
// shows a spinner (a SIGTERM during a tool call left one).
func (m *Model) settle() {
	if evs, upTo := m.bridge.take(); len(evs) > 0 {
		m.eventsArrived(eventsMsg{events: evs, upTo: upTo})
	}
	for _, t := range m.tools {
		if t.live() {
			t.state = toolNotRun
			t.touch()
		}
	}
}

// stopRuns cancels a run still in progress and waits, at most d, for it
// to return.
func (m *Model) stopRuns(d time.Duration) {
	if m.cancel != nil {
		m.cancel()
	}
	done := make(chan struct{})
	go func() {
		m.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}
