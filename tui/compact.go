package tui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks"
)

// compact starts /compact: the Worker summarizes the older part of the
// conversation, keeping what focus names. Like a turn, it can be
// interrupted, and prompts typed meanwhile wait in the queue.
func (m *Model) compact(focus string) tea.Cmd {
	if m.running {
		m.note(noteWarn, "a turn is running: /compact when it ends (or interrupt it with esc)")
		return nil
	}
	m.turnStart = m.now()
	m.compacting = true
	return compactAgent(m.beginRun(), m.agent, m.bridge, m.runs, focus)
}

// compactDone handles the end of /compact, once its events are shown.
func (m *Model) compactDone(msg compactDoneMsg) tea.Cmd {
	if m.applied < msg.events {
		m.compactWaiting = &msg
		return nil
	}
	m.running, m.compacting = false, false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	interrupted := m.interrupting && isInterrupt(msg.err)
	m.interrupting = false
	switch {
	case interrupted:
		m.note(noteInterrupted, "compaction interrupted; the conversation is unchanged")
	case errors.Is(msg.err, agent.ErrNothingToCompact):
		m.note(noteInfo, msg.err.Error())
	case errors.Is(msg.err, agent.ErrCompactCancelled):
		m.note(noteWarn, msg.err.Error())
	case msg.err != nil:
		m.note(noteError, "compaction failed, the conversation is unchanged: "+msg.err.Error())
	}
	if m.quitting {
		return m.quitNow()
	}
	return m.nextQueued(interrupted)
}

// compacted shows a compaction on a line of its own.
func (m *Model) compacted(e agent.Compacted) {
	m.compacting = false
	m.ctxUsed, m.ctxWindow = e.After, e.Window
	m.usage = m.usage.Add(e.Usage)
	why := map[hooks.CompactTrigger]string{
		hooks.CompactAuto:     "the context was filling up",
		hooks.CompactOverflow: "the model said the request was too long",
		hooks.CompactManual:   "/compact",
	}[e.Trigger]
	text := fmt.Sprintf("conversation compacted (%s): %s", why, e.Describe())
	if e.Focus != "" {
		text += "; focus: " + e.Focus
	}
	m.note(noteCompact, text)
}
