package child

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLookPathSkipsRelativeEntries: a program the model put in the
// project is never found through an empty or relative PATH entry; a
// name with a slash is taken from dir; only executable files count.
func TestLookPathSkipsRelativeEntries(t *testing.T) {
	project, bin := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(project, "server"), filepath.Join(project, "bin", "server"), filepath.Join(bin, "tool")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(bin, "data"), nil, 0o644)
	t.Chdir(project) // where a relative entry would resolve
	for _, path := range []string{":" + bin, ".:" + bin, "bin:" + bin} {
		if _, err := LookPath("server", path, project); !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("PATH %q found the project's server: %v", path, err)
		}
		if p, err := LookPath("tool", path, project); err != nil || p != filepath.Join(bin, "tool") {
			t.Errorf("PATH %q: tool = %q, %v", path, p, err)
		}
	}
	if p, err := LookPath("./server", bin, project); err != nil || p != filepath.Join(project, "server") {
		t.Errorf("./server = %q, %v", p, err)
	}
	if _, err := LookPath("data", bin, project); err == nil {
		t.Error("a file without an execute bit was found")
	}
}
