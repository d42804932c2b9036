//go:build !unix

package child

import (
	"os"
	"os/exec"
)

// SetGroup does nothing where there are no process groups.
func SetGroup(*exec.Cmd) {}

// KillGroup kills p.
func KillGroup(p *os.Process) { p.Kill() }

// TermGroup kills p: there is no gentler signal.
func TermGroup(p *os.Process) { p.Kill() }
