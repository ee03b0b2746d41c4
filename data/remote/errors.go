package remote

import (
	"errors"
	"fmt"
)

// Problem classifies why a source could not be reached or used.
type Problem string

// Problems a connection can have; each *ConnError carries one with a hint.
const (
	Unreachable     Problem = "unreachable"      // nothing answers at host:port, or the name does not resolve
	BadPassword     Problem = "bad_password"     // the server refused the user or password
	UnknownDatabase Problem = "unknown_database" // the server has no such database
	NoAccess        Problem = "no_access"        // the user may not use the database
	TLSProblem      Problem = "tls"              // TLS required, unsupported, or the certificate does not verify
	ConnectionLost  Problem = "connection_lost"  // the connection dropped while in use
	NoFile          Problem = "no_file"          // a SQLite file is missing, unreadable or not a database
	BadProfile      Problem = "bad_profile"      // the profile itself is incomplete or invalid
)

// ConnError says what went wrong with a connection and what to do about it.
type ConnError struct {
	Problem Problem
	Target  string // host:port, or the file path
	Msg     string // what happened, in one sentence
	Hint    string // what to do
	Err     error  // the driver's error, if any
}

func (e *ConnError) Error() string {
	s := e.Msg
	if e.Target != "" {
		s += " (" + e.Target + ")"
	}
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	if e.Err != nil {
		s += " [" + e.Err.Error() + "]"
	}
	return s
}

func (e *ConnError) Unwrap() error { return e.Err }

// ProblemOf returns the Problem of the *ConnError in err's chain, or "".
func ProblemOf(err error) Problem {
	var ce *ConnError
	if errors.As(err, &ce) {
		return ce.Problem
	}
	return ""
}

// Hints for the problems every connector reports the same way.
const (
	hintUnreachable = "check the host name and port, that the server is running, and that no firewall or VPN blocks it"
	hintLost        = "the server closed the connection or restarted; run the query again (Loupe reconnects)"
)

// UnreachableError returns the error for a server that does not answer.
func UnreachableError(target string, err error) *ConnError {
	return &ConnError{Problem: Unreachable, Target: target, Msg: "cannot reach the database server", Hint: hintUnreachable, Err: err}
}

// LostError returns the error for a connection that dropped mid-use.
func LostError(target string, err error) *ConnError {
	return &ConnError{Problem: ConnectionLost, Target: target, Msg: "the connection to the database was lost", Hint: hintLost, Err: err}
}

// ProfileError returns the error for an incomplete or invalid profile.
func ProfileError(format string, args ...any) *ConnError {
	return &ConnError{Problem: BadProfile, Msg: fmt.Sprintf(format, args...)}
}
