//go:build unix

package checks

import (
	"os/exec"
	"syscall"
)

// setGroup makes cmd the leader of a new process group and makes
// cancelling it kill the whole group: go vet's compiler and vet
// processes, a linter's workers, whatever a check script starts.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
