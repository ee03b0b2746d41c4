package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Sent is one request as it left for a model server: when, where, and its
// body byte for byte. Headers (the API key among them) are never part of it.
type Sent struct {
	At     time.Time
	Method string
	// URL is the request's address with any user info removed and the
	// values of query parameters that look like credentials replaced.
	URL  string
	Body []byte
}

// Outbox keeps what is sent to model servers. Keep is called before the
// request goes out; an error stops the request, so nothing leaves
// unrecorded.
type Outbox interface {
	Keep(ctx context.Context, s Sent) error
}

type outboxKey struct{}

// WithOutbox returns ctx whose model requests are kept in o (a
// conversation's answer), in place of the client's fallback outbox.
func WithOutbox(ctx context.Context, o Outbox) context.Context {
	return context.WithValue(ctx, outboxKey{}, o)
}

// OutboxOf returns the outbox ctx carries, if any.
func OutboxOf(ctx context.Context) (Outbox, bool) {
	o, ok := ctx.Value(outboxKey{}).(Outbox)
	return o, ok && o != nil
}

// TeeOptions says what Tee records besides requests to other machines.
type TeeOptions struct {
	// Fallback keeps requests whose context carries no outbox (status
	// checks, model listing, embedding table names); nil drops them from
	// the record (they are still sent).
	Fallback Outbox
	// All records requests to this machine too. Production leaves it off:
	// a server on loopback (IsLocal) receives nothing that leaves
	// the machine. Tests turn it on to point the record at a fake server,
	// which listens on loopback.
	All bool
}

// Tee returns a copy of c (nil: a default client) whose every request to a
// server that is not on this machine (IsLocal false) is first kept
// in the outbox of the request's context (WithOutbox), else in
// o.Fallback. Retries and redirects go through it too: each attempt is
// kept.
//
// A request whose address names this machine is sent unrecorded only over
// a connection that really ends on loopback: one that goes elsewhere (an
// HTTP proxy, a name that resolves to another machine) fails with
// ErrNotLoopback before anything is written. When c's transport cannot be
// guarded so (it is not an *http.Transport), every request is kept.
func Tee(c *http.Client, o TeeOptions) *http.Client {
	out := &http.Client{}
	if c != nil {
		*out = *c
	}
	t := &tee{opts: o}
	switch out.Transport {
	case nil, http.DefaultTransport:
		t.base, t.guarded = defaultGuarded(), true
	default:
		if g, ok := guardTransport(out.Transport); ok {
			t.base, t.guarded = g, true
		} else {
			t.base = out.Transport
		}
	}
	out.Transport = t
	return out
}

// tee is the RoundTripper Tee installs.
type tee struct {
	base    http.RoundTripper
	opts    TeeOptions
	guarded bool // base refuses loopback-only requests' connections elsewhere
}

var _ http.RoundTripper = (*tee)(nil)

func (t *tee) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.opts.All && t.guarded && IsLocal(req.URL.String()) {
		return t.base.RoundTrip(req.WithContext(context.WithValue(req.Context(), loopbackOnlyKey{}, true)))
	}
	o, ok := OutboxOf(req.Context())
	if !ok {
		o = t.opts.Fallback
	}
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if o != nil {
		s := Sent{At: time.Now().UTC(), Method: req.Method, URL: RedactURL(req.URL), Body: body}
		if err := o.Keep(req.Context(), s); err != nil {
			slog.Error("keep a model request in the outbox; not sending it", "subsystem", "outbox", "url", s.URL, "err", err)
			return nil, fmt.Errorf("keep the request to %s in the outbox (not sent): %w", s.URL, err)
		}
	}
	r2 := req.Clone(req.Context())
	if body != nil {
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r2.ContentLength = int64(len(body))
	}
	return t.base.RoundTrip(r2)
}

// readBody reads and closes req's body (nil when it has none).
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("read the request to %s: %w", req.URL.Host, err)
	}
	return b, nil
}

// RedactURL is u as the outbox shows it: no user info, and the values of
// query parameters named like credentials (key, token, secret, sig,
// password) replaced by "REDACTED". A query Go cannot parse (a ";"
// among its pairs) is replaced whole.
func RedactURL(u *url.URL) string {
	c := *u
	c.User = nil
	q, err := url.ParseQuery(c.RawQuery)
	if err != nil {
		c.RawQuery = "REDACTED"
		return c.String()
	}
	changed := false
	for k := range q {
		if credentialParam(k) {
			q[k] = []string{"REDACTED"}
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

func credentialParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "sig", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
