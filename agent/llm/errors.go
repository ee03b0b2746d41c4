package llm

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies a provider failure so that callers can react without
// parsing messages.
type Kind string

const (
	Unreachable      Kind = "unreachable"       // nothing listens, DNS, TLS
	Unauthorized     Kind = "unauthorized"      // missing or wrong API key
	ModelNotFound    Kind = "model_not_found"   // the model is not installed or offered
	ToolsUnsupported Kind = "tools_unsupported" // the model cannot take tools
	RateLimited      Kind = "rate_limited"      // 429
	ServerError      Kind = "server_error"      // 5xx
	BadRequest       Kind = "bad_request"       // 4xx other than the above
	StreamBroken     Kind = "stream_broken"     // the reply stopped mid-way
	ContextTooLong   Kind = "context_too_long"  // the prompt does not fit
)

// Error is a provider failure after retries, with a hint a user can act on.
type Error struct {
	Provider string
	Kind     Kind
	Status   int    // HTTP status, 0 if none
	Message  string // what went wrong, in plain words
	Hint     string // what to do about it
	// RetryAfter is the server's requested wait (429/503), 0 if none.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	s := e.Provider + ": " + e.Message
	if e.Hint != "" {
		s += " — " + e.Hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Transient reports whether retrying the same request may succeed.
func (e *Error) Transient() bool {
	switch e.Kind {
	case Unreachable, RateLimited, ServerError, StreamBroken:
		return true
	}
	return false
}

// KindOf returns the Kind of err if it is (or wraps) an *Error, else "".
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// Errorf builds an *Error.
func Errorf(provider string, kind Kind, hint string, err error, format string, args ...any) *Error {
	return &Error{Provider: provider, Kind: kind, Message: fmt.Sprintf(format, args...), Hint: hint, Err: err}
}
