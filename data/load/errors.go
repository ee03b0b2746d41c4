package load

import (
	"errors"
	"fmt"
)

// ErrUnsupported is matched by FileErrors for formats Loupe cannot read.
var ErrUnsupported = errors.New("unsupported file format")

// FileError is a load failure the user can act on: which file, what is
// wrong with it, and what to do. Nothing was changed in the workspace.
type FileError struct {
	Path    string
	Problem string // what is wrong, in plain words
	Hint    string // what to do about it
	Err     error  // the underlying cause, if any
}

func (e *FileError) Error() string {
	msg := fmt.Sprintf("%s: %s", e.Path, e.Problem)
	if e.Hint != "" {
		msg += " — " + e.Hint
	}
	return msg
}

func (e *FileError) Unwrap() error { return e.Err }

func fileErr(path, problem, hint string, err error) *FileError {
	return &FileError{Path: path, Problem: problem, Hint: hint, Err: err}
}
