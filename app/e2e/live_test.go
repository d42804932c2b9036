package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/app"
)

// TestE2ETUILiveOutput: a command's output shows in its box while it
// runs, line by line as it comes (the command waits on FIFOs the test
// opens, so each step is seen before the next is allowed), redacted as
// its result is (the API key read from a file) and never written to the
// terminal as it is (a title sequence and a clear-screen in it); the
// user's own !cmd streams the same way and its result is not folded.
func TestE2ETUILiveOutput(t *testing.T) {
	e := newE2E(t, "tui_live_output.json")
	mustWrite(t, filepath.Join(e.workspace, "notes.txt"), "key: sk-e2e-secret-key\n")
	gate := func(name string) string {
		path := filepath.Join(e.workspace, name)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	g1, g2, g3 := gate("g1"), gate("g2"), gate("g3")
	s := e.startTUI("--mode", "yolo")
	s.waitFor("Ask tackle to do something")
	s.typeText("run it")
	s.keys("Enter")

	running := func(screen string) bool { return strings.Contains(screen, "esc to interrupt") }
	// (The command line on the tool's row holds the words too.)
	screen := s.waitFor("    first")
	if !running(screen) || !strings.Contains(screen, "  ⎿ key: [REDACTED]\n    first") || strings.Contains(screen, "    second") {
		t.Errorf("the first lines while the command runs:\n%s", screen)
	}
	if title := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{pane_title}")); title == "pwned" {
		t.Error("the command's output set the terminal's title")
	}
	openGate(t, g1)
	screen = s.waitFor("    second")
	if !running(screen) || strings.Contains(screen, "    third") || !strings.Contains(screen, "› run it") {
		t.Errorf("the second line while the command runs:\n%s", screen)
	}
	openGate(t, g2)
	screen = s.waitFor("The command finished.")
	if !strings.Contains(screen, "✓ bash") || !strings.Contains(screen, "    third") {
		t.Errorf("the result:\n%s", screen)
	}

	s.typeText("!printf 'row %s\\n' 1 2 3 4 5 6; read _ < g3; echo done-cmd")
	s.keys("Enter")
	screen = s.waitFor("    row 6")
	if !running(screen) || !strings.Contains(screen, "  ⎿ row 1\n") || strings.Contains(screen, "    done-cmd") {
		t.Errorf("the user's command while it runs:\n%s", screen)
	}
	openGate(t, g3)
	screen = s.waitUntil("the user's command to end", func(sc string) bool { return strings.Contains(sc, "    done-cmd") && !running(sc) })
	_, box, _ := strings.Cut(screen, "✓ bash  printf")
	if !strings.Contains(box, "  ⎿ row 1\n    row 2\n    row 3\n    row 4\n    row 5\n    row 6\n    done-cmd") || strings.Contains(box, "more line") {
		t.Errorf("the user's command's output is not whole:\n%s", screen)
	}
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Errorf("exit status %d", code)
	}
	if hist := s.capture(true); strings.Contains(hist, "sk-e2e-secret-key") {
		t.Errorf("the terminal shows the API key:\n%s", hist)
	}
}

// openGate lets a command waiting on the FIFO at path go on.
func openGate(t *testing.T, path string) {
	t.Helper()
	done := make(chan error, 1)
	// Opening a FIFO for writing waits for the command to open it.
	go func() { done <- os.WriteFile(path, []byte("go\n"), 0o600) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("nothing opened %s to read", path)
	}
}
