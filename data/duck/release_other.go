//go:build !linux || !cgo

package duck

func releaseMemory() bool { return false }
