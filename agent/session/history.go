package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tackle-dev/tackle/tools/atomicfile"
)

// History is the prompt history of one workspace, shared by its sessions:
// one JSON string per line, appended as prompts are sent.
type History struct {
	path string
	mu   sync.Mutex
}

// MaxHistoryPrompt is the longest prompt kept in the history (a large
// paste is not worth recalling).
const MaxHistoryPrompt = 16 << 10

// History returns the prompt history of workspace.
func (s *Store) History(workspace string) *History {
	return &History{path: filepath.Join(s.workspaceDir(workspace), "prompts.history")}
}

// Load returns the last n prompts, oldest first. A line that is not a
// JSON string is skipped. When the file holds more than twice n prompts
// it is rewritten with the last n, so it does not grow without bound.
func (h *History) Load(n int) ([]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	data, err := os.ReadFile(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prompt history: %w", err)
	}
	var all []string
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var s string
		if len(line) > 0 && json.Unmarshal(line, &s) == nil && s != "" {
			all = append(all, s)
		}
	}
	keep := all[max(len(all)-n, 0):]
	if len(all) > 2*n {
		if err := h.rewrite(keep); err != nil {
			return keep, err
		}
	}
	return keep, nil
}

// rewrite replaces the file with prompts, atomically.
func (h *History) rewrite(prompts []string) error {
	var b bytes.Buffer
	for _, p := range prompts {
		line, _ := json.Marshal(p) // a string always marshals
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := atomicfile.WriteCache(h.path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	return nil
}

// Append adds a prompt with one write of one line. An empty prompt or one
// longer than MaxHistoryPrompt is not kept.
func (h *History) Append(prompt string) error {
	if prompt == "" || len(prompt) > MaxHistoryPrompt {
		return nil
	}
	line, _ := json.Marshal(prompt)
	line = append(line, '\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("prompt history: %w", err)
	}
	return nil
}
