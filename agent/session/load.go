package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Loaded is a session read back from its file.
type Loaded struct {
	Path    string
	Header  Header
	Records []Record
	// Warnings name the lines that were skipped: a torn last line (the
	// process died mid-write) or a line that is not a record.
	Warnings []string

	tornTail bool // the file does not end with a newline
}

// Load reads the session file at path. Only a missing or unreadable
// file, a bad header or a format newer than this tackle's is an error;
// a bad line is skipped and named in Warnings, and every other record is
// kept. The lines are decoded in parallel, in order.
func Load(path string) (*Loaded, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	l := &Loaded{Path: path}
	lines := bytes.SplitAfter(data, []byte{'\n'})
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1] // the empty rest after the last newline
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("load session %s: no header line", path)
	}
	if err := l.readHeader(lines[0]); err != nil {
		return nil, fmt.Errorf("load session %s: %w", path, err)
	}
	lines = lines[1:]
	recs := make([]Record, len(lines))
	bad := make([]bool, len(lines))
	decodeParallel(lines, recs, bad)
	l.Records = recs[:0]
	for i, b := range lines {
		complete := b[len(b)-1] == '\n'
		l.tornTail = !complete
		if !bad[i] {
			l.Records = append(l.Records, recs[i])
			continue
		}
		if complete && len(bytes.TrimSpace(b)) == 0 {
			continue // the end of a partial line a failed write left (Writer.write)
		}
		n := i + 2 // the line number; the header is line 1
		if complete {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s:%d: not a session record; skipped", path, n))
		} else {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s:%d: the last line is incomplete (tackle stopped while writing it); skipped", path, n))
		}
	}
	for i := range l.Records {
		if r := &l.Records[i]; r.Kind == KindPaused && r.Pending == nil && r.Paused != nil {
			r.Pending = pendingOf(r.Paused)
		}
	}
	l.reattach()
	if _, notes := Repair(l.recorded()); len(notes) > 0 {
		for _, n := range notes {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: repaired the conversation: %s", path, n))
		}
	}
	return l, nil
}

// decodeParallel decodes lines[i] into recs[i] on every CPU, marking the
// lines that are not records in bad.
func decodeParallel(lines [][]byte, recs []Record, bad []bool) {
	workers := min(runtime.GOMAXPROCS(0), max(len(lines)/256, 1))
	chunk := (len(lines) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(lines); lo += chunk {
		hi := min(lo+chunk, len(lines))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if err := decodeRecord(lines[i], &recs[i]); err != nil || recs[i].Kind == "" {
					bad[i] = true
				}
			}
		})
	}
	wg.Wait()
}

// decodeRecord decodes one line of a session file into r: the records
// a long session is made of — messages, hook decisions, usage — as the
// Writer writes them directly (decodeMessageLine …), any other line with
// encoding/json.
func decodeRecord(line []byte, r *Record) error {
	if decodeMessageLine(line, r) || decodeDecisionLine(line, r) || decodeUsageLine(line, r) {
		return nil
	}
	return json.Unmarshal(line, r)
}

func (l *Loaded) readHeader(b []byte) error {
	var hl headerLine
	if err := json.Unmarshal(bytes.TrimSpace(b), &hl); err != nil || hl.Kind != "header" || hl.Header == nil {
		return errors.New("the first line is not a session header")
	}
	if hl.Header.Format > FormatVersion {
		return fmt.Errorf("format %d is newer than this tackle reads (%d): update tackle", hl.Header.Format, FormatVersion)
	}
	l.Header = *hl.Header
	return nil
}

// Messages returns the conversation as the model would receive it next:
// every message record in order, a compaction replacing all before it,
// repaired where lines of the file were lost (see Repair; Load names
// the repairs in Warnings).
func (l *Loaded) Messages() []chat.Message {
	msgs, _ := Repair(l.recorded())
	return msgs
}

// recorded is the conversation as the records give it.
func (l *Loaded) recorded() []chat.Message {
	var msgs []chat.Message
	for _, r := range l.Records {
		switch {
		case r.Kind == KindMessage && r.Message != nil:
			msgs = append(msgs, *r.Message)
		case r.Kind == KindCompaction && r.Compaction != nil:
			msgs = r.Compaction.after(msgs)
		}
	}
	return msgs
}

// Files returns the last stamp of each file the model read or wrote
// through the tools in this session, for tools.Registry.SetFiles.
func (l *Loaded) Files() []tools.FileStamp {
	last := map[string]int{}
	var out []tools.FileStamp
	for _, r := range l.Records {
		if r.Kind != KindFile || r.File == nil {
			continue
		}
		if i, ok := last[r.File.Path]; ok {
			out[i] = *r.File
			continue
		}
		last[r.File.Path] = len(out)
		out = append(out, *r.File)
	}
	return out
}

// SessionRules returns the session rules in force when the session
// stopped: each rule recorded as added and not revoked after, in the
// order they were added.
func (l *Loaded) SessionRules() []string {
	var out []string
	for _, r := range l.Records {
		if r.Kind != KindRule || r.Rule == nil {
			continue
		}
		out = slices.DeleteFunc(out, func(s string) bool { return s == r.Rule.Rule })
		if !r.Rule.Revoked {
			out = append(out, r.Rule.Rule)
		}
	}
	return out
}

// PendingNotes returns the notes for the model recorded after the last
// user message, which no message has carried yet (agent.Config.Notes).
func (l *Loaded) PendingNotes() []string {
	var out []string
	for _, r := range l.Records {
		switch {
		case r.Kind == KindNote && r.Note != "":
			out = append(out, r.Note)
		case r.Kind == KindMessage && r.Message != nil && r.Message.Role == chat.RoleUser:
			out = nil
		}
	}
	return out
}

// Turns counts the prompts of the session.
func (l *Loaded) Turns() int {
	n := 0
	for _, r := range l.Records {
		if r.Prompt {
			n++
		}
	}
	return n
}

// Model returns the model the session last used.
func (l *Loaded) Model() string {
	m := l.Header.Model
	for _, r := range l.Records {
		if r.Kind == KindModel && r.Model != "" {
			m = r.Model
		}
	}
	return m
}

// LastPause returns the calls of the session's last run when it ended
// paused and no answer was recorded after it, else nil.
func (l *Loaded) LastPause() *Record {
	for i := len(l.Records) - 1; i >= 0; i-- {
		switch r := &l.Records[i]; r.Kind {
		case KindPaused:
			return r
		case KindAnswered, KindMessage:
			return nil
		}
	}
	return nil
}

// pendingOf returns the calls of a paused run that wait for an answer,
// as the Worker reported them when it paused.
func pendingOf(p *agent.PausedRun) []agent.PendingCall {
	var out []agent.PendingCall
	for _, c := range p.Calls {
		if c.State == agent.CallPending {
			out = append(out, agent.PendingCall{Call: c.Current, Hook: c.Hook, Reason: c.Reason})
		}
	}
	return out
}
