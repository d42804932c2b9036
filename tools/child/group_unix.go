//go:build unix

package child

import (
	"os"
	"os/exec"
	"syscall"
)

// SetGroup makes the command the leader of a new process group, so that
// KillGroup reaches everything it starts.
func SetGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillGroup kills the process group led by p, or at least p itself.
// Killing what is already gone is not an error.
func KillGroup(p *os.Process) {
	if syscall.Kill(-p.Pid, syscall.SIGKILL) != nil {
		p.Kill()
	}
}

// TermGroup asks the process group led by p to end (SIGTERM), or at
// least p itself.
func TermGroup(p *os.Process) {
	if syscall.Kill(-p.Pid, syscall.SIGTERM) != nil {
		p.Signal(syscall.SIGTERM)
	}
}
