//go:build !unix

package checks

import "os/exec"

// setGroup leaves cmd as it is: without process groups only the process
// itself is killed on cancellation (exec.CommandContext's default).
func setGroup(*exec.Cmd) {}
