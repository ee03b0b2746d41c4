package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
)

// Classifier turns a provider's failures into *llm.Error: the part every
// provider shares (context errors passed through, network failures, the
// common HTTP statuses, a context too long) is here, and a provider adds
// its wording and the cases only its server has.
type Classifier struct {
	Provider string // "ollama", "openai": llm.Error.Provider
	// Server names the server in messages ("Ollama", "http://host/v1").
	Server string
	// At says where it is, for "not running"/"nothing answers" messages.
	At string
	// Unreachable is the message when nothing answers; the hints say what
	// to check.
	Unreachable                string
	UnreachableHint, TLSHint   string
	UnauthorizedHint, RateHint string
	ServerHint, TooLongHint    string
	// Status classifies the statuses and messages only this provider's
	// server has (model not installed, no tool support…), before the
	// common ones; it returns false to leave e to them. lower is the
	// message lower-cased.
	Status func(e *llm.Error, status int, msg, lower string) bool
	// Other classifies an error that is neither an HTTP failure nor a
	// network one (a message inside the stream, a reply that is not JSON).
	Other func(e *llm.Error, err error)
}

// Classify returns err as an *llm.Error, or as it is when nil or a
// context error. status and msg are the HTTP failure's (0 and "" when the
// server answered none); f holds its headers.
func (c Classifier) Classify(err error, f *Failure, status int, msg string) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	e := &llm.Error{Provider: c.Provider, Err: err}
	switch {
	case status != 0:
		c.fromStatus(e, f, status, msg)
	case TLS(err):
		e.Kind = llm.Unreachable
		e.Message = fmt.Sprintf("the secure connection to %s failed: %v", c.At, err)
		e.Hint = c.TLSHint
	case Unreachable(err):
		e.Kind = llm.Unreachable
		e.Message = c.Unreachable
		e.Hint = c.UnreachableHint
	case Broken(err):
		e.Kind = llm.StreamBroken
		e.Message = fmt.Sprintf("the connection to %s broke mid-reply", c.Server)
	default:
		c.Other(e, err)
	}
	return e
}

func (c Classifier) fromStatus(e *llm.Error, f *Failure, status int, msg string) {
	e.Status = status
	lower := strings.ToLower(msg)
	e.Message = fmt.Sprintf("%s answered %d %s", c.Server, status, http.StatusText(status))
	if msg != "" {
		e.Message += ": " + msg
	}
	if c.Status != nil && c.Status(e, status, msg, lower) {
		return
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.Unauthorized
		e.Hint = c.UnauthorizedHint
	case status == http.StatusTooManyRequests:
		e.Kind = llm.RateLimited
		e.RetryAfter = RetryAfter(f.Header, time.Now())
		e.Hint = c.RateHint
	case TooLong(lower):
		e.Kind = llm.ContextTooLong
		e.Hint = c.TooLongHint
	case status >= 500:
		e.Kind = llm.ServerError
		e.Hint = c.ServerHint
	default:
		e.Kind = llm.BadRequest
	}
}

// TooLong reports whether a lower-cased message says the prompt exceeds
// the model's context, in the words Ollama, OpenAI and the servers that
// copy them use.
func TooLong(lower string) bool {
	for _, s := range []string{"context length", "context window", "exceeds the context", "maximum context",
		"too many tokens", "too long"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}
