package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Transcript writes a session's conversation as Claude Code writes its
// transcripts (one JSON object a line: {"type": "user" | "assistant",
// "message": {"role", "content": [blocks]}, "sessionId", "cwd",
// "timestamp", "uuid"}), so that hooks reading transcript_path find the
// format they know. tackle's own session file is its own format; this
// file is written beside it, 0600, as messages enter the conversation.
type Transcript struct {
	path string
	root string
	id   func() string
	now  func() time.Time

	mu  sync.Mutex
	f   *os.File
	n   int
	err error
}

// NewTranscript returns a transcript at path (created on the first
// message) for the workspace root; id gives the session id.
func NewTranscript(path, root string, id func() string) *Transcript {
	return &Transcript{path: path, root: root, id: id, now: time.Now}
}

// Path is the transcript's path.
func (t *Transcript) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type entry struct {
	Type      string `json:"type"`
	Message   any    `json:"message"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Timestamp string `json:"timestamp"`
	UUID      string `json:"uuid"`
}

// Message appends m (a user prompt, an assistant reply with its tool
// calls, a tool result); system messages are not part of a Claude
// transcript. The first write error is returned (and by Err); after it,
// messages are dropped.
func (t *Transcript) Message(m chat.Message) error {
	if err := t.write(m); err != nil {
		return fmt.Errorf("claude transcript %s: %w", t.path, err)
	}
	return nil
}

func (t *Transcript) write(m chat.Message) error {
	var typ string
	var content []block
	switch m.Role {
	case chat.RoleUser:
		typ, content = "user", []block{{Type: "text", Text: m.Content}}
	case chat.RoleAssistant:
		typ = "assistant"
		if m.Content != "" {
			content = append(content, block{Type: "text", Text: m.Content})
		}
		for _, c := range m.ToolCalls {
			content = append(content, block{Type: "tool_use", ID: c.ID, Name: claudeName(c.Name), Input: claudeInput(c.Name, c.Arguments, t.root)})
		}
	case chat.RoleTool:
		typ, content = "user", []block{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content}}
	default:
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return nil // reported once
	}
	if t.f == nil {
		if t.err = os.MkdirAll(filepath.Dir(t.path), 0o700); t.err != nil {
			return t.err
		}
		if t.f, t.err = os.OpenFile(t.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); t.err != nil {
			return t.err
		}
	}
	t.n++
	e := entry{Type: typ, Message: map[string]any{"role": typ, "content": content},
		SessionID: t.id(), Cwd: t.root, Timestamp: t.now().UTC().Format(time.RFC3339Nano), UUID: fmt.Sprintf("%s-%d", t.id(), t.n)}
	b, err := json.Marshal(e)
	if err != nil {
		t.err = err
		return err
	}
	_, t.err = t.f.Write(append(b, '\n'))
	return t.err
}

// Close closes the file.
func (t *Transcript) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}
