// Package provider opens the llm.Provider a configuration names: Ollama or
// an OpenAI-compatible server. It is where settings, flags and environment
// meet the adapters.
package provider

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/openai"
)

// Provider kinds.
const (
	Ollama = "ollama"
	OpenAI = "openai"
)

// Config says which model server to use and how.
type Config struct {
	Provider string // Ollama or OpenAI; empty means Ollama
	Model    string
	// EmbedModel is the embedding model of the optional semantic boost of
	// schema search (e.g. nomic-embed-text); empty leaves it off.
	EmbedModel string
	// BaseURL is the server; empty means the provider's default (Ollama:
	// OLLAMA_HOST rules, http://127.0.0.1:11434; OpenAI: api.openai.com).
	BaseURL string
	// APIKey is for OpenAI-compatible servers only, and only for the
	// server it was given for (KeyFor): Open never sends it elsewhere.
	APIKey string
	// KeyFor is the base URL (or origin) APIKey was entered or set for.
	// Open sends the key only to a BaseURL of the same origin (scheme,
	// host and port); to any other it sends none. Empty means BaseURL
	// itself: the caller vouches that the key belongs to it.
	KeyFor string
	// APIVersion is Azure OpenAI's api-version (OpenAI only).
	APIVersion string
	// KeepAlive is Ollama's keep_alive ("5m", "1h", "-1" for ever, "0" to
	// unload at once, or seconds); empty leaves the server's default.
	KeepAlive string
	// MaxContext caps Ollama's num_ctx; 0 means ollama.DefaultMaxContext.
	MaxContext int
	// Think turns reasoning on or off for Ollama models; nil leaves the
	// model's default.
	Think *bool
	// StallTimeout, when positive, retries a reply that goes silent that
	// long.
	StallTimeout time.Duration
	Retry        llm.RetryPolicy
	HTTPClient   *http.Client
	Logger       *slog.Logger
}

// FromEnv reads a Config from the environment through getenv (os.Getenv in
// production): LOUPE_PROVIDER (default ollama), LOUPE_MODEL,
// LOUPE_BASE_URL, LOUPE_EMBED_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL (openai, when
// LOUPE_BASE_URL is unset), OLLAMA_HOST (ollama, when LOUPE_BASE_URL is
// unset), OLLAMA_KEEP_ALIVE and LOUPE_MAX_CONTEXT. Values are not checked
// here; Open checks them. OPENAI_API_KEY is bound (KeyFor) to the base URL
// set beside it in the environment, else to api.openai.com: a base URL
// changed afterwards (--base-url) does not get it.
func FromEnv(getenv func(string) string) Config {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := Config{
		Provider:   strings.ToLower(get("LOUPE_PROVIDER")),
		Model:      get("LOUPE_MODEL"),
		EmbedModel: get("LOUPE_EMBED_MODEL"),
		BaseURL:    get("LOUPE_BASE_URL"),
		KeepAlive:  get("OLLAMA_KEEP_ALIVE"),
	}
	if c.Provider == "" {
		c.Provider = Ollama
	}
	if n, err := strconv.Atoi(get("LOUPE_MAX_CONTEXT")); err == nil && n > 0 {
		c.MaxContext = n
	}
	switch c.Provider {
	case OpenAI:
		c.APIKey, c.KeyFor = EnvKey(getenv)
		if c.BaseURL == "" {
			c.BaseURL = get("OPENAI_BASE_URL")
		}
	case Ollama:
		if c.BaseURL == "" {
			c.BaseURL = get("OLLAMA_HOST")
		}
	}
	return c
}

// EnvKey is the environment's API key, OPENAI_API_KEY, and the base URL it
// is for: the one set beside it (LOUPE_BASE_URL when LOUPE_PROVIDER is
// openai, else OPENAI_BASE_URL), else api.openai.com. key is "" when unset.
func EnvKey(getenv func(string) string) (key, keyFor string) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	key = get("OPENAI_API_KEY")
	if key == "" {
		return "", ""
	}
	keyFor = get("OPENAI_BASE_URL")
	if strings.EqualFold(get("LOUPE_PROVIDER"), OpenAI) && get("LOUPE_BASE_URL") != "" {
		keyFor = get("LOUPE_BASE_URL")
	}
	if keyFor == "" {
		keyFor = openai.DefaultBaseURL
	}
	return key, keyFor
}

// Errors Open returns, wrapped in a *ConfigError.
var (
	ErrUnknownProvider = errors.New("unknown provider")
	ErrNoModel         = errors.New("no model chosen")
	ErrBadSetting      = errors.New("bad setting")
)

// ConfigError is a configuration Open cannot use, with a hint to fix it.
type ConfigError struct {
	Err     error // ErrUnknownProvider, ErrNoModel or ErrBadSetting
	Message string
	Hint    string
}

func (e *ConfigError) Error() string { return e.Message + " — " + e.Hint }
func (e *ConfigError) Unwrap() error { return e.Err }

// Open returns the Provider cfg names, with cfg.Model as the model for
// requests that name none. It does not contact the server.
func Open(cfg Config) (llm.Provider, error) {
	kind := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if kind == "" {
		kind = Ollama
	}
	if kind != Ollama && kind != OpenAI {
		return nil, &ConfigError{Err: ErrUnknownProvider,
			Message: fmt.Sprintf("unknown provider %q", cfg.Provider),
			Hint:    "use \"ollama\" for local models or \"openai\" for OpenAI-compatible servers (LOUPE_PROVIDER or --provider)"}
	}
	if strings.TrimSpace(cfg.Model) == "" {
		hint := "set LOUPE_MODEL or --model, or pick one in Settings"
		if kind == Ollama {
			hint += "; `ollama list` shows the installed models"
		}
		return nil, &ConfigError{Err: ErrNoModel, Message: "no model chosen", Hint: hint}
	}
	if kind == OpenAI {
		key, withheld := cfg.Key()
		if withheld {
			log := cfg.Logger
			if log == nil {
				log = slog.Default()
			}
			log.Warn("API key not sent: it belongs to another server", "subsystem", "provider",
				"key_for", Origin(cfg.KeyFor), "server", Origin(cfg.server()))
		}
		p, err := openai.New(openai.Config{BaseURL: cfg.BaseURL, APIKey: key, Model: cfg.Model,
			APIVersion: cfg.APIVersion, StallTimeout: cfg.StallTimeout, Retry: cfg.Retry,
			HTTPClient: cfg.HTTPClient, Logger: cfg.Logger})
		if err != nil {
			return nil, &ConfigError{Err: ErrBadSetting, Message: err.Error(),
				Hint: "the base URL is the server's API root, e.g. http://localhost:1234/v1"}
		}
		return p, nil
	}
	oc := ollama.Config{BaseURL: cfg.BaseURL, Model: cfg.Model, MaxContext: cfg.MaxContext, Think: cfg.Think,
		StallTimeout: cfg.StallTimeout, Retry: cfg.Retry, HTTPClient: cfg.HTTPClient, Logger: cfg.Logger}
	if cfg.KeepAlive != "" {
		d, err := ParseKeepAlive(cfg.KeepAlive)
		if err != nil {
			return nil, &ConfigError{Err: ErrBadSetting, Message: err.Error(),
				Hint: "keep-alive is a duration like \"5m\" or \"1h\", \"-1\" to keep the model loaded, or \"0\" to unload it at once"}
		}
		oc.KeepAlive = &d
	}
	p, err := ollama.New(oc)
	if err != nil {
		return nil, &ConfigError{Err: ErrBadSetting, Message: err.Error(),
			Hint: "the Ollama address is host:port or http://host:port, e.g. 127.0.0.1:11434"}
	}
	return p, nil
}

// server is the OpenAI-compatible server's base URL, the default when empty.
func (c Config) server() string {
	if strings.TrimSpace(c.BaseURL) == "" {
		return openai.DefaultBaseURL
	}
	return c.BaseURL
}

// Key returns the API key to send to the server: APIKey when KeyFor (or,
// when empty, BaseURL itself) has the server's origin, else "" with
// withheld set, so that a key never goes to a host it was not given for.
func (c Config) Key() (key string, withheld bool) {
	if c.APIKey == "" {
		return "", false
	}
	if strings.TrimSpace(c.KeyFor) == "" {
		return c.APIKey, false
	}
	server := Origin(c.server())
	if server == "" || server != Origin(c.KeyFor) {
		return "", true
	}
	return c.APIKey, false
}

// Origin is the normalised origin of a base URL: lower-case
// scheme://host, with the port unless it is the scheme's default
// ("https://API.openai.com:443/v1" → "https://api.openai.com"). It is
// what an API key is bound to. "" when s has no scheme and host.
func Origin(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" || u.Hostname() == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// ParseKeepAlive reads a keep-alive the way Ollama does: a Go duration
// ("5m") or a number of seconds; negative means for ever.
func ParseKeepAlive(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(n * float64(time.Second)), nil
	}
	return 0, fmt.Errorf("keep-alive %q is not a duration", s)
}
