package tools

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadRegular reads at most limit bytes of the regular file at path (a
// symbolic link is followed): a file tackle reads for itself that a
// repository may hold — a project's config, agent or command file — is
// never a FIFO that would hang the start (it is opened without blocking
// and refused), nor a device or /proc file read without end. A caller
// that must refuse a larger file passes its limit plus one and checks
// the length.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
