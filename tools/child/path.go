package child

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath finds an executable the way a shell with PATH set to path
// would, for a child tackle starts with an environment of its own (not
// the process's PATH). A name with a slash is taken relative to dir. An
// empty or relative PATH entry is skipped: it would resolve in the
// project, where the model can put a program of that name.
func LookPath(name, path, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if Executable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p := filepath.Join(d, name); Executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// Executable reports whether p is a regular file with an execute bit.
func Executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// LookupEnv returns the value of name in env ("KEY=value" entries) as a
// process started with env sees it: the last entry wins.
func LookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}
