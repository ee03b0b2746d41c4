package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrCrossOriginRedirect is returned when a model server redirects a
// request to another origin (scheme, host or port). Go's client keeps
// custom headers such as Azure's api-key, and Authorization too when only
// the port or scheme changes, on such a redirect: the key would follow the
// request to a server it was not given for.
var ErrCrossOriginRedirect = errors.New("the model server redirected to another server")

// maxRedirects is Go's default redirect limit.
const maxRedirects = 10

// sameOriginRedirects is a CheckRedirect that follows redirects within the
// first request's origin only, then asks next (nil: Go's limit of 10).
func sameOriginRedirects(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		from, to := origin(via[0].URL), origin(req.URL)
		if from != to {
			return fmt.Errorf("%w: %s sent the request on to %s; Loupe does not follow it there. "+
				"If that server is the one you mean, set it as the base URL (and its own key)", ErrCrossOriginRedirect, from, to)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
}

// origin is u's lower-case scheme://host:port, the port made explicit.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
