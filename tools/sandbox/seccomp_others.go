//go:build linux && !amd64 && !arm64

package sandbox

// No seccomp filter on this architecture (its socket calls are not
// described here): unix sockets and, at LevelLandlock, UDP stay usable.
const (
	auditArch = 0
	x32Bit    = 0
)
