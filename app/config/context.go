package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ContextWindow is the context_window setting: the models' context
// windows in tokens by model name, "*" standing for every other model.
// In a file it is one number (every model's) or an object by model name.
type ContextWindow map[string]int

// UnmarshalJSON reads a number or an object of numbers; each must be a
// whole number of tokens above 0.
func (c *ContextWindow) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		n, err := tokenCount(b)
		if err != nil {
			return err
		}
		*c = ContextWindow{"*": n}
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return errors.New(`want a number of tokens, or an object of them by model name ({"gpt-4.1": 1047576, "*": 32768})`)
	}
	out := make(ContextWindow, len(raw))
	for _, model := range slices.Sorted(maps.Keys(raw)) {
		n, err := tokenCount(raw[model])
		if err != nil {
			return fmt.Errorf("%q: %w", model, err)
		}
		out[model] = n
	}
	*c = out
	return nil
}

func tokenCount(b []byte) (int, error) {
	var n int
	if err := json.Unmarshal(b, &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("want a whole number of tokens above 0, got %s", b)
	}
	return n, nil
}

// Threshold is compact_threshold: the share of the context window a
// request may fill before the conversation is compacted, above 0 and at
// most 1.
type Threshold float64

// UnmarshalJSON reads a number above 0 and at most 1.
func (t *Threshold) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil || f <= 0 || f > 1 {
		return fmt.Errorf("want a share of the context window above 0 and at most 1, such as 0.85, got %s", bytes.TrimSpace(b))
	}
	*t = Threshold(f)
	return nil
}

// KeepTurns is compact_keep_turns: how many of the latest turns a
// compaction keeps as they were, at least 1.
type KeepTurns int

// UnmarshalJSON reads a whole number of at least 1.
func (k *KeepTurns) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err != nil || n < 1 {
		return fmt.Errorf("want a whole number of turns, at least 1, got %s", bytes.TrimSpace(b))
	}
	*k = KeepTurns(n)
	return nil
}
