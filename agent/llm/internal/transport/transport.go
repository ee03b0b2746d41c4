// Package transport holds the HTTP plumbing both provider adapters share:
// capturing the status, headers and body of a failed response (the SDKs
// keep only part of them), reading Retry-After, classifying network
// errors, and noticing a stream that stalls.
package transport

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// maxBody caps how much of an error response is kept.
const maxBody = 64 << 10

// Failure is what the server answered when it answered with an HTTP error.
type Failure struct {
	Status int
	Header http.Header
	Body   []byte
}

type failureKey struct{}

// WithFailure returns a context under which a Capture transport records an
// HTTP error response into the returned Failure (left zero on success).
func WithFailure(ctx context.Context) (context.Context, *Failure) {
	f := &Failure{}
	return context.WithValue(ctx, failureKey{}, f), f
}

// Capture is an http.RoundTripper that records error responses (status ≥
// 400) into the Failure of the request's context, if it has one, and hands
// the response on unchanged (its body re-readable).
type Capture struct {
	Base http.RoundTripper // nil means http.DefaultTransport
}

var _ http.RoundTripper = Capture{}

// RoundTrip implements http.RoundTripper.
func (c Capture) RoundTrip(req *http.Request) (*http.Response, error) {
	base := c.Base
	if base == nil {
		base = http.DefaultTransport
	}
	res, err := base.RoundTrip(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	f, _ := req.Context().Value(failureKey{}).(*Failure)
	if f == nil {
		return res, nil
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxBody))
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	*f = Failure{Status: res.StatusCode, Header: res.Header.Clone(), Body: body}
	return res, nil
}

// Client returns an *http.Client whose transport captures failures on top
// of base's transport (base may be nil), and which follows redirects only
// within the origin of the request's first address (see
// ErrCrossOriginRedirect). Timeouts stay with the caller's context: a
// local model may take minutes to answer.
func Client(base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.Transport = Capture{Base: c.Transport}
	c.CheckRedirect = sameOriginRedirects(c.CheckRedirect)
	return c
}
