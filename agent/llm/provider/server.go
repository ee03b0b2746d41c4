package provider

import (
	"net"
	"net/url"
	"strings"

	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/openai"
)

// ServerURL is the address cfg's requests go to, defaults applied: what
// IsLocal judges. An Ollama address that does
// not parse is returned as given (Open rejects it).
func ServerURL(cfg Config) string {
	base := strings.TrimSpace(cfg.BaseURL)
	if strings.EqualFold(strings.TrimSpace(cfg.Provider), OpenAI) {
		if base == "" {
			return openai.DefaultBaseURL
		}
		return base
	}
	u, err := ollama.ParseHost(base)
	if err != nil {
		return base
	}
	return u.String()
}

// IsLocal reports whether serverURL (ServerURL's result) names a server on
// this machine: a loopback IP, localhost or a name under .localhost. It
// judges the name; the outbox's transport also checks that the connection
// made for it really ends on loopback.
func IsLocal(serverURL string) bool {
	u, err := url.Parse(strings.TrimSpace(serverURL))
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.Trim(u.Hostname(), "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
