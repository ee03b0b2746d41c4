//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with id pid exists (one owned by
// another user counts).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
