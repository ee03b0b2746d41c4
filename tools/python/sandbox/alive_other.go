//go:build !unix

package sandbox

import "os"

// ProcessExists reports whether a process with this pid exists on this
// machine (on Windows, FindProcess opens it and fails when there is none).
func ProcessExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
