//go:build linux && !cgo

package sandbox

// haveLauncher: a binary built without cgo has no launcher, and reaches
// LevelLandlock at most.
const haveLauncher = false
