package config

import (
	"errors"
	"path/filepath"
)

// StateDir returns tackle's state directory for the given environment
// lookup: $XDG_STATE_HOME/tackle, else ~/.local/state/tackle. Whoever
// creates it gives it mode 0700.
func StateDir(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "tackle"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("state directory: neither XDG_STATE_HOME nor HOME is set")
	}
	return filepath.Join(home, ".local", "state", "tackle"), nil
}

// CacheDir is tackle's cache directory: $XDG_CACHE_HOME/tackle, or
// ~/.cache/tackle. What is there can be made again (the sandbox's own Go
// build cache).
func CacheDir(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "tackle"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("cache directory: neither XDG_CACHE_HOME nor HOME is set")
	}
	return filepath.Join(home, ".cache", "tackle"), nil
}
