package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools/chat"
)

// This file holds every Cmd that does I/O or waits: each is a named
// function that returns a Msg and never touches the model.

// runDoneMsg reports that Run or Resume returned. events counts the
// events sent on the bridge when it returned: all the run's events.
type runDoneMsg struct {
	outcome agent.Outcome
	err     error
	events  uint64
}

// runAgent runs a turn with the user's input and the images it attaches.
func runAgent(ctx context.Context, a Agent, b *Bridge, runs *sync.WaitGroup, input string, images []chat.Image) tea.Cmd {
	return runOn(b, runs, func() (agent.Outcome, error) { return a.Run(ctx, input, images...) })
}

// runCommand runs a shell command the user typed (!cmd) through the agent.
func runCommand(ctx context.Context, a Agent, b *Bridge, runs *sync.WaitGroup, command string) tea.Cmd {
	return runOn(b, runs, func() (agent.Outcome, error) { return a.RunCommand(ctx, command) })
}

// runOn runs f (a Run, Resume or RunCommand) in a Cmd whose message is
// its outcome, with the count of events sent by then.
func runOn(b *Bridge, runs *sync.WaitGroup, f func() (agent.Outcome, error)) tea.Cmd {
	runs.Add(1)
	return func() tea.Msg {
		defer runs.Done()
		out, err := f()
		return runDoneMsg{outcome: out, err: err, events: b.count()}
	}
}

// resumeAgent answers the pending calls of a paused run and goes on.
func resumeAgent(ctx context.Context, a Agent, b *Bridge, runs *sync.WaitGroup, decisions []agent.Decision) tea.Cmd {
	return runOn(b, runs, func() (agent.Outcome, error) { return a.Resume(ctx, decisions) })
}

// compactDoneMsg reports that Compact returned; events counts the events
// sent on the bridge by then.
type compactDoneMsg struct {
	err    error
	events uint64
}

// compactAgent compacts the conversation (/compact).
func compactAgent(ctx context.Context, a Agent, b *Bridge, runs *sync.WaitGroup, focus string) tea.Cmd {
	runs.Add(1)
	return func() tea.Msg {
		defer runs.Done()
		_, err := a.Compact(ctx, focus)
		return compactDoneMsg{err: err, events: b.count()}
	}
}

// frameMsg asks for a frame: streamed text is drawn.
type frameMsg struct{}

// ticker makes a Cmd that delivers a message after d: tea.Tick, or in
// tests something that does not wait.
type ticker func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd

func frameTick(tick ticker) tea.Cmd {
	return tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{} })
}

// spinMsg advances the spinner.
type spinMsg struct{}

func spinTick(tick ticker) tea.Cmd {
	return tick(spinFrames.FPS, func(time.Time) tea.Msg { return spinMsg{} })
}
