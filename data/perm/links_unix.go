//go:build unix

package perm

import (
	"io/fs"
	"syscall"
)

// links is fi's hard link count (1 when unknown).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
