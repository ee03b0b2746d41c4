package ollama

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultHost is where Ollama listens unless told otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// ParseHost reads a server address the way Ollama reads OLLAMA_HOST:
// "host", "host:port", ":port" or "scheme://host:port/path"; the scheme
// defaults to http, the host to 127.0.0.1, the port to 11434 (80 or 443
// when the scheme is given without one); "ollama.com" means
// https://ollama.com:443. An empty s is DefaultHost.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	port := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	default:
		return nil, fmt.Errorf("ollama host %q: scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host = "127.0.0.1"
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	} else {
		if host == "" {
			host = "127.0.0.1"
		}
		port = p
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("ollama host %q: invalid port %q", s, port)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = strings.Trim(path, "/"); path != "" {
		u.Path = "/" + path
	}
	return u, nil
}
