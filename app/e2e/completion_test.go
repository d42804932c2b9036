package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2ECompletion: tackle completion bash|zsh|fish loads in each shell,
// run for real in a terminal, and tab completes a command, a flag's value
// and a subcommand. A shell that is not installed is skipped outside CI
// (.ci/run installs them).
func TestE2ECompletion(t *testing.T) {
	needTmux(t)
	for _, tt := range []struct {
		shell string
		args  []string
		load  string
	}{
		{"bash", []string{"--norc", "--noprofile", "-i"}, `eval "$(tackle completion bash)"`},
		{"zsh", []string{"-f", "-i"}, `eval "$(tackle completion zsh)"`},
		{"fish", []string{"--no-config", "-i"}, `set -g fish_autosuggestion_enabled 0; tackle completion fish | source`},
	} {
		t.Run(tt.shell, func(t *testing.T) {
			sh, err := exec.LookPath(tt.shell)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is required in CI (.ci/run installs it)", tt.shell)
				}
				t.Skipf("%s is not installed", tt.shell)
			}
			home := t.TempDir()
			env := []string{"env", "-i", "HOME=" + home, "TERM=xterm-256color", "PATH=" + filepath.Dir(tackleBin) + ":/usr/bin:/bin", "PS1=$ "}
			s := &tmuxSession{t: t, socket: fmt.Sprintf("tackle-comp-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "sh"}
			conf := filepath.Join(t.TempDir(), "tmux.conf")
			if err := os.WriteFile(conf, []byte("set -g escape-time 10\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var line []string
			for _, w := range append(append(env, sh), tt.args...) {
				line = append(line, shellQuote(w))
			}
			s.tmux("-f", conf, "new-session", "-d", "-s", s.name, "-x", "120", "-y", "20", "-c", home, strings.Join(line, " "))
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("screen:\n%s", s.capture(true))
				}
				_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
			})
			s.typeText(tt.load)
			s.keys("Enter")
			s.typeText("echo loaded")
			s.keys("Enter")
			s.waitFor("\nloaded")

			// The line being edited: the last line of the screen with text.
			current := func(screen string) string {
				lines := strings.Split(strings.TrimRight(screen, " \n"), "\n")
				return strings.TrimSpace(lines[len(lines)-1])
			}
			for _, c := range []struct{ typed, want string }{
				{"tackle --output st", "tackle --output stream-json"},
				{"tackle perm", "tackle permissions"},
				{"tackle permissions rev", "tackle permissions revoke"},
				{"tackle --mode acc", "tackle --mode accept-edits"},
				{"tackle completion fi", "tackle completion fish"},
			} {
				s.typeText(c.typed)
				s.keys("Tab")
				s.waitUntil("“"+c.want+"”", func(screen string) bool { return strings.HasSuffix(current(screen), c.want) })
				s.keys("C-u")
				s.waitUntil("an empty line", func(screen string) bool { return !strings.Contains(current(screen), "tackle") })
			}
		})
	}
}
