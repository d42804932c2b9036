//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

const haveLauncher = false

func probe() Report {
	return Report{Level: LevelNone, Reasons: []string{fmt.Sprintf("no sandbox on %s: it needs Linux's Landlock", runtime.GOOS)}}
}

func start(cmd *exec.Cmd, _ Policy, _ Level, _ bool) (*Process, error) {
	return nil, fmt.Errorf("start %s: %w (%s)", cmd.Path, ErrUnavailable, Probe())
}

func prepare(Policy, Level) {}

func lstat(path string) (fileState, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileState{}, err
	}
	return fileState{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
}
