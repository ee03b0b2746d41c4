package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TokenFile is where the HTTP transport's bearer token is kept in the
// config folder (readable by the user only), so that a host configured
// with it keeps working across restarts.
const TokenFile = "mcp-token"

// Path is the endpoint of the Streamable HTTP transport.
const Path = "/mcp"

// ErrNotLoopback refuses an address other than this machine's.
var ErrNotLoopback = errors.New("loupe mcp serves HTTP on this machine only: give a loopback address such as 127.0.0.1:7481")

// CheckLoopback returns nil when addr (host:port) is a loopback address:
// 127.0.0.0/8, ::1 or localhost.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNotLoopback, err)
	}
	if !loopbackHost(host) {
		return fmt.Errorf("%w; %q is not one", ErrNotLoopback, host)
	}
	return nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Token returns the bearer token kept in the config folder dir, making
// one (32 random bytes, hex) on first use.
func Token(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the MCP token %s: %w", path, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the config folder %s: %w", dir, err)
	}
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write the MCP token %s: %w", path, err)
	}
	return tok, nil
}

// Handler is the Streamable HTTP transport of s at Path, behind the
// token: a request without "Authorization: Bearer TOKEN" is refused with
// 401, one whose Host is not a loopback name (DNS rebinding) with 403.
func (s *Server) Handler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackHost(host) {
			http.Error(w, "loupe mcp: requests must be addressed to a loopback host", http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="loupe"`)
			http.Error(w, "loupe mcp: send the token (Authorization: Bearer …) printed by loupe mcp --http and kept in "+TokenFile+" in Loupe's config folder", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// ServeHTTP serves s on addr (a loopback address; port 0 picks one) until
// ctx ends, calling ready once it listens.
func (s *Server) ServeHTTP(ctx context.Context, addr, token string, ready func(net.Addr)) error {
	if err := CheckLoopback(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr())
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	return nil
}
