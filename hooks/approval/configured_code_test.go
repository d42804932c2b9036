package approval

import (
	"slices"
	"testing"
)

// CommandCode keeps what a command executes or imports and leaves out
// the other paths it names: a hook appending to a log is not pinned by
// its log, which it writes itself.
func TestCommandCodeLeavesDataOut(t *testing.T) {
	t.Parallel()
	files, _ := CommandFiles([]string{"sh", "-c", `cat >> "$0"`, "/logs/hooks.log"}, "/ws")
	code, _ := CommandCode([]string{"sh", "-c", `cat >> "$0"`, "/logs/hooks.log"}, "/ws")
	if !slices.Contains(files, "/logs/hooks.log") || slices.Contains(code, "/logs/hooks.log") {
		t.Errorf("files %v, code %v: the log is protected, not pinned", files, code)
	}
	code, dirs := CommandCode([]string{"python3", "-m", "guardlib", "--config", "/etc/guard.toml"}, "/ws")
	if !slices.Contains(dirs, "/ws/guardlib") || !slices.Contains(code, "/ws/guardlib.py") || slices.Contains(code, "/etc/guard.toml") {
		t.Errorf("python3 -m guardlib: code %v, dirs %v", code, dirs)
	}
	if code, _ := CommandCode([]string{"./hooks/check.sh", "/data/in.txt"}, "/ws"); !slices.Contains(code, "/ws/hooks/check.sh") || slices.Contains(code, "/data/in.txt") {
		t.Errorf("a script run as the program: code %v", code)
	}
}
