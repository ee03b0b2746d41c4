package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// Settings are the user's choices. HasAPIKey says whether the keychain
// holds an API key for the OpenAI base URL's host; the key itself is never
// part of them. A key belongs to the origin (scheme, host and port) of the
// base URL it was entered for, APIKeyFor, and is sent to no other: after
// the base URL moves to another host, HasAPIKey is false and that host
// needs its own key.
type Settings struct {
	Provider      string `json:"provider"` // ollama or openai
	Model         string `json:"model"`
	OllamaURL     string `json:"ollamaURL"`
	OpenAIBaseURL string `json:"openaiBaseURL"`
	HasAPIKey     bool   `json:"hasAPIKey"`
	// APIKeyFor is the origin the stored key was entered for (set whenever
	// a key is stored, for this host or another).
	APIKeyFor      string `json:"apiKeyFor,omitempty"`
	MaxSteps       int    `json:"maxSteps"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
	Theme          string `json:"theme"` // system, light or dark
	// EmbedModel is the embedding model of the optional semantic boost of
	// table search (e.g. nomic-embed-text, text-embedding-3-small), served
	// by the chosen provider; empty (the default) leaves it off.
	EmbedModel string `json:"embedModel"`
	// APIKeyWarning is set when the key is kept somewhere weaker than the
	// OS keychain (a private file, because no keychain is available).
	APIKeyWarning string `json:"apiKeyWarning,omitempty"`
}

// Update is what Save takes: the settings, and the API key when it changes
// (nil: keep the stored key, still bound to its host; empty: forget it). A
// new key is bound to the origin of the OpenAI base URL saved with it.
// HasAPIKey, APIKeyFor and APIKeyWarning are ignored.
type Update struct {
	Settings
	APIKey *string
}

// settingsFile is what settings.json holds: no key, and nothing derived.
type settingsFile struct {
	Provider       string `json:"provider"`
	Model          string `json:"model"`
	OllamaURL      string `json:"ollamaURL"`
	OpenAIBaseURL  string `json:"openaiBaseURL"`
	MaxSteps       int    `json:"maxSteps"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
	Theme          string `json:"theme"`
	EmbedModel     string `json:"embedModel"`
}

// Defaults of settings nobody chose.
const (
	defaultOpenAIBaseURL  = "https://api.openai.com/v1"
	defaultTimeoutSeconds = int(agent.DefaultTimeout / time.Second)
)

// Store reads and writes settings.json in the config folder, and the API
// key in the keychain. It is safe for concurrent use.
type Store struct {
	dir    func() (string, error)
	getenv func(string) string
	keys   Keychain
	mu     sync.Mutex
}

// NewStore returns the store of the config folder dir gives (read at each
// use), reading the environment's defaults with getenv and keeping the key
// in keys.
func NewStore(dir func() (string, error), getenv func(string) string, keys Keychain) *Store {
	return &Store{dir: dir, getenv: getenv, keys: keys}
}

// defaults are the settings before the user saved any: the environment's
// LOUPE_PROVIDER, LOUPE_MODEL, LOUPE_EMBED_MODEL, LOUPE_BASE_URL, OLLAMA_HOST and
// OPENAI_BASE_URL (as `loupe ask` reads them), else Ollama on this machine.
func (s *Store) defaults() settingsFile {
	env := provider.FromEnv(s.getenv)
	f := settingsFile{Provider: env.Provider, Model: env.Model, EmbedModel: env.EmbedModel, OllamaURL: ollama.DefaultHost,
		OpenAIBaseURL: defaultOpenAIBaseURL, MaxSteps: agent.DefaultMaxSteps,
		TimeoutSeconds: defaultTimeoutSeconds, Theme: "system"}
	if env.BaseURL != "" {
		if env.Provider == provider.OpenAI {
			f.OpenAIBaseURL = env.BaseURL
		} else {
			f.OllamaURL = env.BaseURL
		}
	}
	return f
}

func (s *Store) path() (string, error) {
	d, err := s.dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "settings.json"), nil
}

// file returns the saved settings over the defaults. A damaged file is
// an error, so that saving does not silently replace it.
func (s *Store) file() (settingsFile, error) {
	f := s.defaults()
	p, err := s.path()
	if err != nil {
		return f, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fileError(p, "cannot read the settings", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return s.defaults(), damaged(p, err, "Fix or delete the file, then open Settings again.")
	}
	d := s.defaults()
	if f.Provider == "" {
		f.Provider = d.Provider
	}
	if f.OllamaURL == "" {
		f.OllamaURL = d.OllamaURL
	}
	if f.OpenAIBaseURL == "" {
		f.OpenAIBaseURL = d.OpenAIBaseURL
	}
	if f.MaxSteps <= 0 {
		f.MaxSteps = d.MaxSteps
	}
	if f.TimeoutSeconds <= 0 {
		f.TimeoutSeconds = d.TimeoutSeconds
	}
	if f.Theme == "" {
		f.Theme = d.Theme
	}
	return f, nil
}

// Get returns the settings, with HasAPIKey. A damaged settings.json is an
// *Error of Kind File.
func (s *Store) Get() (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.file()
	if err != nil {
		return Settings{}, err
	}
	k := s.storedKey(f)
	return Settings{Provider: f.Provider, Model: f.Model, OllamaURL: f.OllamaURL, OpenAIBaseURL: f.OpenAIBaseURL,
		HasAPIKey: k.value != "" && k.origin == provider.Origin(f.OpenAIBaseURL), APIKeyFor: k.origin,
		MaxSteps: f.MaxSteps, TimeoutSeconds: f.TimeoutSeconds, Theme: f.Theme,
		EmbedModel: f.EmbedModel, APIKeyWarning: k.warning}, nil
}

// Save validates u (an *Error of Kind Invalid says what to change), stores
// the key in the keychain (Kind Keychain when it cannot) and the rest in
// settings.json (atomically, readable by the user only).
func (s *Store) Save(u Update) error {
	f := settingsFile{Provider: strings.TrimSpace(strings.ToLower(u.Provider)), Model: strings.TrimSpace(u.Model),
		OllamaURL: strings.TrimSpace(u.OllamaURL), OpenAIBaseURL: strings.TrimSpace(u.OpenAIBaseURL),
		MaxSteps: u.MaxSteps, TimeoutSeconds: u.TimeoutSeconds, Theme: u.Theme, EmbedModel: strings.TrimSpace(u.EmbedModel)}
	if err := validate(f); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.APIKey == nil {
		// The key stays with the host it was entered for: bind a key
		// stored before keys were bound to the base URL saved until now.
		if old, err := s.file(); err == nil {
			s.storedKey(old)
		}
	} else if err := s.setKey(strings.TrimSpace(*u.APIKey), f.OpenAIBaseURL); err != nil {
		return keychainError(err)
	}
	p, err := s.path()
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(p, append(b, '\n')); err != nil {
		return fileError(p, "cannot save the settings", err)
	}
	return nil
}

func validate(f settingsFile) error {
	switch {
	case f.Provider != provider.Ollama && f.Provider != provider.OpenAI:
		return invalid(fmt.Sprintf("Unknown provider %q.", f.Provider), `Choose "ollama" or "openai".`)
	case f.Theme != "system" && f.Theme != "light" && f.Theme != "dark":
		return invalid(fmt.Sprintf("Unknown theme %q.", f.Theme), `Choose "system", "light" or "dark".`)
	case f.MaxSteps < 1 || f.MaxSteps > 100:
		return invalid(fmt.Sprintf("%d steps is out of range.", f.MaxSteps), "Allow between 1 and 100 steps.")
	case strings.ContainsAny(f.EmbedModel, " \t\r\n"):
		return invalid(fmt.Sprintf("%q is not a model name.", f.EmbedModel),
			"Give the embedding model's name, e.g. nomic-embed-text, or leave it empty to search by text alone.")
	case f.TimeoutSeconds < 10 || f.TimeoutSeconds > 24*3600:
		return invalid(fmt.Sprintf("A %d-second time limit is out of range.", f.TimeoutSeconds),
			"Allow between 10 seconds and 24 hours.")
	}
	if _, err := ollama.ParseHost(f.OllamaURL); err != nil {
		return invalid("The Ollama address is not valid: "+err.Error(), "Use host:port or http://host:port, e.g. http://127.0.0.1:11434.")
	}
	if u, err := url.Parse(f.OpenAIBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid(fmt.Sprintf("The base URL %q is not valid.", f.OpenAIBaseURL),
			"Use the server's API root, e.g. https://api.openai.com/v1 or http://localhost:1234/v1.")
	}
	return nil
}

// ProviderConfig is the model server st names. The OpenAI key is the one
// stored for the base URL's origin, else $OPENAI_API_KEY when the
// environment sets it for that origin; a key for another host is never
// given (and provider.Open would withhold it anyway).
func (s *Store) ProviderConfig(st Settings) provider.Config {
	cfg := provider.Config{Provider: st.Provider, Model: st.Model, EmbedModel: st.EmbedModel, BaseURL: st.OllamaURL}
	if st.Provider == provider.OpenAI {
		cfg.BaseURL = st.OpenAIBaseURL
		cfg.APIKey, cfg.KeyFor = s.KeyFor(st.OpenAIBaseURL)
	}
	return cfg
}
