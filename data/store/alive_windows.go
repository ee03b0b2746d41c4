//go:build windows

package store

import "os"

// processAlive reports whether a process with id pid exists: Windows
// cannot open a process that has exited.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
