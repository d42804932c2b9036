//go:build !unix

package command

import (
	"os"
	"os/exec"
)

// setGroup does nothing where there are no process groups.
func setGroup(*exec.Cmd) {}

// killGroup kills only the process itself where there are no process
// groups.
func killGroup(p *os.Process) {
	p.Kill()
}
