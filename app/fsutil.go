package app

import "github.com/loupeapp/loupe/app/session"

// fileError is a file the app could not write, with what to do.
func fileError(path, problem string, err error) *Error { return session.FileError(path, problem, err) }
