//go:build !unix

package process

import (
	"os"
	"os/exec"
)

func setGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { p.Kill() }
