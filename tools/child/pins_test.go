package child

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Pins see a pinned file written, a missing one created, a pinned
// directory's entry planted or changed — and nothing else; once changed,
// they stay changed.
func TestPinsSeeEveryChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hook.sh", "#!/bin/sh\n")
	write("guardlib/policy.py", "ok = True\n")
	write("unrelated.txt", "x\n")
	for name, change := range map[string]func(){
		"a pinned file written":        func() { write("hook.sh", "#!/bin/sh\nevil\n") },
		"a missing file created":       func() { write("json/__init__.py", "evil\n") },
		"a file planted in a dir":      func() { write("guardlib/__init__.py", "evil\n") },
		"a file in a dir rewritten":    func() { write("guardlib/policy.py", "ok = False\n") },
		"a pinned file's mode changed": func() { os.Chmod(filepath.Join(dir, "hook.sh"), 0o755) },
	} {
		t.Run(name, func(t *testing.T) {
			// Each case on a copy of the tree, pinned afresh.
			p := Pin([]string{filepath.Join(dir, "hook.sh"), filepath.Join(dir, "json")}, []string{filepath.Join(dir, "guardlib")})
			if err := p.Check(); err != nil {
				t.Fatalf("a fresh pin fails: %v", err)
			}
			write("unrelated.txt", "y\n")
			if err := p.Check(); err != nil {
				t.Fatalf("a change elsewhere fails the pin: %v", err)
			}
			change()
			err := p.Check()
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Check = %v, want the change named", err)
			}
			if !slices.Equal(p.Changed(), p.Changed()) || len(p.Changed()) == 0 {
				t.Error("a change does not stay")
			}
		})
	}
}

func TestNilPinsPinNothing(t *testing.T) {
	var p *Pins
	if p.Check() != nil || p.Changed() != nil {
		t.Error("nil pins fail")
	}
}
