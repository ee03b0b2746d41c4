package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// ErrNotLoopback is returned for a request whose address names this
// machine (so the outbox does not keep it) when the connection made for it
// goes elsewhere: an HTTP proxy, or a name such as x.localhost that
// resolves to another machine. Nothing of the request is sent.
var ErrNotLoopback = errors.New("the model server's address names this machine, but the connection went elsewhere")

// loopbackOnlyKey marks a request's context: its connection must end on a
// loopback address.
type loopbackOnlyKey struct{}

// dialFunc is http.Transport's DialContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// loopbackGuard wraps dial: a connection dialled for a request marked
// loopback-only is closed, before anything is written to it, unless its
// remote end is a loopback IP. The decision is made on the address
// actually connected to, not on the name in the URL.
func loopbackGuard(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil || ctx.Value(loopbackOnlyKey{}) == nil {
			return c, err
		}
		if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
			return c, nil
		}
		remote := c.RemoteAddr().String()
		_ = c.Close()
		return nil, fmt.Errorf("%w: it went to %s (%s), which is not loopback; nothing was sent. "+
			"Give the server as http://127.0.0.1:PORT, or exempt it from the HTTP proxy with NO_PROXY",
			ErrNotLoopback, remote, addr)
	}
}

// defaultGuarded is http.DefaultTransport with the loopback guard, shared
// by every Tee made on the default transport (one connection pool).
var defaultGuarded = sync.OnceValue(func() *http.Transport {
	t, _ := guardTransport(http.DefaultTransport)
	return t
})

// guardTransport returns a clone of base whose connections for
// loopback-only requests must end on loopback, and false when base cannot
// be guarded (not an *http.Transport, or one with its own TLS or legacy
// dialer).
func guardTransport(base http.RoundTripper) (*http.Transport, bool) {
	t, ok := base.(*http.Transport)
	if !ok || t.DialTLSContext != nil || t.DialTLS != nil || t.Dial != nil { //nolint:staticcheck // Dial and DialTLS are checked, not used
		return nil, false
	}
	c := t.Clone()
	dial := dialFunc(c.DialContext)
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	c.DialContext = loopbackGuard(dial)
	return c, true
}
