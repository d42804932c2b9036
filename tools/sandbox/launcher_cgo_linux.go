//go:build linux && cgo

package sandbox

// int tackle_sandbox_linked(void);
import "C"

// haveLauncher: this binary carries the launcher's constructor
// (launcher_linux.c).
var haveLauncher = C.tackle_sandbox_linked() == 1
