package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHistoryAppendLoadAndBound(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "sessions"))
	h := s.History("/src/proj")
	if got, err := h.Load(10); err != nil || got != nil {
		t.Fatalf("empty history = %q, %v", got, err)
	}
	for _, p := range []string{"fix the test", "", "line one\nline two \"quoted\"", strings.Repeat("x", MaxHistoryPrompt+1)} {
		if err := h.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.Load(10)
	if err != nil || !slices.Equal(got, []string{"fix the test", "line one\nline two \"quoted\""}) {
		t.Fatalf("Load = %q, %v", got, err)
	}
	fi, err := os.Stat(h.path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", fi.Mode().Perm(), err)
	}
	// Another workspace has its own history.
	if got, _ := s.History("/src/other").Load(10); got != nil {
		t.Errorf("other workspace = %q", got)
	}
	// A bad line is skipped; past twice the bound the file is cut to it.
	f, _ := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("not json\n")
	f.Close()
	for i := range 25 {
		h.Append(fmt.Sprintf("prompt %d", i))
	}
	got, err = h.Load(10)
	if err != nil || len(got) != 10 || got[0] != "prompt 15" || got[9] != "prompt 24" {
		t.Fatalf("Load = %q, %v", got, err)
	}
	b, _ := os.ReadFile(h.path)
	if n := strings.Count(string(b), "\n"); n != 10 {
		t.Errorf("the file kept %d lines, want 10", n)
	}
	if got, _ := h.Load(10); len(got) != 10 || got[9] != "prompt 24" {
		t.Errorf("after the rewrite: %q", got)
	}
	// The history is not taken for a session.
	if list, err := s.List("/src/proj"); err != nil || len(list) != 0 {
		t.Errorf("List = %v, %v", list, err)
	}
}
