package session

import (
	"bufio"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes path whole or not at all: into a temporary file
// beside it, synced, then renamed over it. A folder it has to create is
// private (0700) when the file is (no group or other bits in perm: the
// app's own files, such as settings), ordinary (0755) otherwise (exports
// into the user's folders).
func WriteFileAtomic(path string, perm os.FileMode, write func(w *bufio.Writer) error) (err error) {
	dir := filepath.Dir(path)
	dirMode := os.FileMode(0o755)
	if perm&0o077 == 0 {
		dirMode = 0o700
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	if err = write(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// WriteBytesAtomic is WriteFileAtomic of b.
func WriteBytesAtomic(path string, perm os.FileMode, b []byte) error {
	return WriteFileAtomic(path, perm, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
