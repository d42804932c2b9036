package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tackle-dev/tackle/tools/atomicfile"
)

// TrustFile is the name of the file in the state directory that pins the
// project files the user trusted to a hash of their contents.
const TrustFile = "trust.json"

// Trust is the user's trust in project files that can run code (a
// project's .tackle/config.json, its Claude Code settings): each trusted
// file's absolute path and the SHA-256 of the contents the user saw. A
// changed file is no longer trusted. It is kept 0600 in the state
// directory.
type Trust struct {
	path string
	mu   sync.Mutex
}

// OpenTrust returns the trust store of the state directory that getenv
// names (StateDir).
func OpenTrust(getenv func(string) string) (*Trust, error) {
	dir, err := StateDir(getenv)
	if err != nil {
		return nil, err
	}
	return &Trust{path: filepath.Join(dir, TrustFile)}, nil
}

// Digest is the hash trust pins a file's contents to.
func Digest(contents []byte) string {
	sum := sha256.Sum256(contents)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Trusted reports whether the user trusted file with exactly contents.
func (t *Trust) Trusted(file string, contents []byte) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pins, err := t.load()
	if err != nil {
		return false, err
	}
	return pins[file] == Digest(contents), nil
}

// Pin records that the user trusts file with contents.
func (t *Trust) Pin(file string, contents []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	pins, err := t.load()
	if err != nil {
		return err
	}
	pins[file] = Digest(contents)
	b, err := json.MarshalIndent(pins, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := atomicfile.Write(t.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// load reads the pins; a missing file has none.
func (t *Trust) load() (map[string]string, error) {
	b, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	pins := map[string]string{}
	if err := json.Unmarshal(b, &pins); err != nil {
		return nil, fmt.Errorf("trust %s: %w", t.path, err)
	}
	return pins, nil
}
