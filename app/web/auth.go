package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// TokenHeader is the request header that carries the serve token. A
// header, never the URL: URLs end up in logs, histories and Referer.
const TokenHeader = "X-Loupe-Token"

// tokenBytes is the token's randomness: 256 bits.
const tokenBytes = 32

// NewToken returns a fresh random token (crypto/rand, 256 bits, base64url
// without padding), to be made at each start of the server.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the serve token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Options say who may call the API.
type Options struct {
	// Token must come with every API call and event stream, in the
	// TokenHeader header. Required: make one with NewToken.
	Token string
	// AllowOrigins are origins (scheme://host:port, see ParseOrigin) other
	// than the server's own whose pages may call it, e.g. the Vite dev
	// server. They still need the token.
	AllowOrigins []string
}

// ErrNoToken is returned by Handler when Options.Token is empty or short.
var ErrNoToken = errors.New("web: a random token of at least 128 bits is required (web.NewToken)")

// ParseOrigin normalises a page's address to its origin (lower-case
// scheme://host[:port], no path). Only http and https origins on loopback
// are accepted: loupe serve is for this machine only.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an origin: give scheme://host:port, e.g. http://localhost:5173", s)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin: give only scheme://host:port, e.g. http://localhost:5173", s)
	}
	if !IsLoopbackHost(u.Host) {
		return "", fmt.Errorf("%q is not on this machine: only loopback origins may be allowed (localhost, 127.0.0.1, ::1)", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// gate checks the origin and the token of API requests.
type gate struct {
	digest  [sha256.Size]byte // of the token
	allowed map[string]bool   // other origins, normalised
}

func newGate(o Options) (*gate, error) {
	if len(o.Token) < 22 { // 22 base64 characters = 128 bits
		return nil, ErrNoToken
	}
	g := &gate{digest: sha256.Sum256([]byte(o.Token)), allowed: map[string]bool{}}
	for _, s := range o.AllowOrigins {
		origin, err := ParseOrigin(s)
		if err != nil {
			return nil, fmt.Errorf("web: allow origin: %w", err)
		}
		g.allowed[origin] = true
	}
	return g, nil
}

// tokenOK compares the request's token with the server's in constant time
// (both hashed first, so that not even the length is compared directly).
func (g *gate) tokenOK(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	if got == "" {
		return false
	}
	d := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(d[:], g.digest[:]) == 1
}

// originOK says whether origin (the Origin header, "" when absent) may
// call, and whether it is another origin that needs CORS headers.
func (g *gate) originOK(r *http.Request, origin string) (ok, cross bool) {
	if origin == "" {
		return true, false // not a browser page, or a same-origin GET: the token decides
	}
	if strings.EqualFold(origin, "http://"+r.Host) {
		return true, false
	}
	return g.allowed[strings.ToLower(origin)], true
}

// guard refuses requests whose Host is not loopback (DNS rebinding), API
// calls from origins other than the server's own and the allowed ones
// (403), and API calls without the token (401). The page itself (every
// path outside /api/) holds no data and is served without the token.
func (g *gate) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !IsLoopbackHost(r.Host) {
			refuse(w, http.StatusForbidden, "forbidden", "loupe serve answers only on loopback addresses.",
				"Open the address loupe serve printed (http://127.0.0.1:PORT/#token=…), not a name that points to this machine.")
			return
		}
		if r.URL.Path != "/api" && !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		origin := r.Header.Get("Origin")
		ok, cross := g.originOK(r, origin)
		if !ok {
			refuse(w, http.StatusForbidden, "forbidden", "loupe serve does not accept calls from pages at "+origin+".",
				"Open the address loupe serve printed; to call it from another page on this machine (the Vite dev server), start it with --allow-origin "+origin+".")
			return
		}
		if cross {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Vary", "Origin")
			if r.Method == http.MethodOptions {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
				w.Header().Set("Access-Control-Allow-Headers", "Content-Type, "+TokenHeader)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if !g.tokenOK(r) {
			refuse(w, http.StatusUnauthorized, "unauthorized", "This call does not carry loupe serve's token.",
				"Open the address loupe serve printed on its first line (http://127.0.0.1:PORT/#token=…); each start makes a new token. Programs send it in the "+TokenHeader+" header.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse writes an error the frontend reads like any other.
func refuse(w http.ResponseWriter, status int, code, message, hint string) {
	b, _ := json.Marshal(map[string]string{"code": code, "message": message, "hint": hint})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
