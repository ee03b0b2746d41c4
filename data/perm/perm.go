// Package perm owns the modes of the files Loupe writes for itself (the
// workspace, the conversation store, the schema index, the config folder):
// its folders are the user's alone (0700) and its files too (0600), as
// the secrets file has always been. Files Loupe writes for the user
// (exports into a folder the user chose) are not its business: they keep
// ordinary modes.
//
// Privacy rests on the folders: no one else can enter a 0700 folder, so
// nothing inside it can be read by another user whatever its own mode.
// File modes are tightened as well, so that a file stays private if it is
// moved or its folder is opened up. Files created by DuckDB and SQLite
// themselves (DuckDB's .wal and temp folder; SQLite's -wal and -shm take
// the database file's mode) are covered by the folder, by chmods after
// opening and writing, and by Tighten at the next open.
package perm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Modes of Loupe's own folders and files.
const (
	Dir  fs.FileMode = 0o700
	File fs.FileMode = 0o600
)

// MaxEntries bounds Tighten's walk: a workspace of more entries is
// tightened up to this many and the report says it stopped.
const MaxEntries = 200_000

// Report says what Tighten did.
type Report struct {
	Seen      int   // entries looked at
	Changed   int   // entries whose mode was tightened
	Shared    int   // files left alone because they are hard links of the user's own files
	Failed    int   // entries whose mode could not be changed
	FirstErr  error // the first of them
	Truncated bool  // the walk stopped at MaxEntries
}

// Tighten removes the group and other permission bits from root and from
// everything under it (folders end up 0700 or stricter, files 0600 or
// stricter; owner bits are kept), except:
//   - the subtrees named in skip (paths relative to root), which must stay
//     readable by someone else (the Python sandbox's inputs, read by the
//     container's own user through a bind mount);
//   - symbolic links (a chmod would change their target);
//   - files with more than one hard link: a loaded file is hard-linked into
//     the import folder, and its mode is the user's original file's.
//
// A missing root is not an error (there is nothing to tighten). An entry
// that cannot be changed is counted in the report, not fatal: the open
// goes on and the caller logs the report. On Windows, where privacy comes
// from the profile folder's access control lists, Tighten does nothing.
func Tighten(root string, skip ...string) (Report, error) {
	var r Report
	if runtime.GOOS == "windows" {
		return r, nil
	}
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return r, nil
	} else if err != nil {
		return r, fmt.Errorf("tighten %s: %w", root, err)
	}
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[filepath.Join(root, s)] = true
	}
	errStop := errors.New("stop")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			r.fail(err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if skipped[p] {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if r.Seen >= MaxEntries {
			r.Truncated = true
			return errStop
		}
		r.Seen++
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			r.fail(err)
			return nil
		}
		mode := fi.Mode().Perm()
		if mode&0o077 == 0 {
			return nil
		}
		if !d.IsDir() && links(fi) > 1 {
			r.Shared++
			return nil
		}
		if err := os.Chmod(p, mode&^0o077); err != nil {
			r.fail(err)
			return nil
		}
		r.Changed++
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return r, fmt.Errorf("tighten %s: %w", root, err)
	}
	return r, nil
}

func (r *Report) fail(err error) {
	r.Failed++
	if r.FirstErr == nil {
		r.FirstErr = err
	}
}

// String is the report for a log line.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d seen, %d tightened", r.Seen, r.Changed)
	if r.Shared > 0 {
		fmt.Fprintf(&b, ", %d hard links of the user's files left as they are", r.Shared)
	}
	if r.Failed > 0 {
		fmt.Fprintf(&b, ", %d could not be changed (first: %v)", r.Failed, r.FirstErr)
	}
	if r.Truncated {
		fmt.Fprintf(&b, ", stopped at %d entries", MaxEntries)
	}
	return b.String()
}

// Private makes the files at paths that exist 0600 (or stricter), as
// after a database has created them; a missing path is skipped.
func Private(paths ...string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("keep %s private: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, fi.Mode().Perm()&^0o077); err != nil {
			return fmt.Errorf("keep %s private: %w", p, err)
		}
	}
	return nil
}

// Create creates the file at path, empty and 0600, unless it exists; an
// existing one is made private. A database created into it (SQLite)
// then starts private, and SQLite gives its -wal and -shm files the
// database file's mode.
func Create(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, File)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return Private(path)
}
