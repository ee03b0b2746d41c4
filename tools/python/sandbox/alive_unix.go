//go:build unix

package sandbox

import (
	"errors"
	"syscall"
)

// ProcessExists reports whether a process with this pid exists on this
// machine.
func ProcessExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
