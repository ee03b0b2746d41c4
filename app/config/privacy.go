package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/privacy"
)

// Levels settles the privacy level of a model server: InForce for a
// question (an error refuses the question: nothing is sent), Loose for the
// requests made for no question (status checks, model listing, table
// embeddings), which are kept in the outbox with it.
type Levels interface {
	InForce(cfg provider.Config) (privacy.Level, error)
	Loose(cfg provider.Config) (privacy.Level, error)
}

var (
	_ Levels = (*Choices)(nil)
	_ Levels = (*Flagged)(nil)
)

// privacyFile is privacy.json in the config folder: the level chosen per
// provider configuration (provider and server address), kept apart from
// settings.json so that a server the user moves to starts from its own
// default.
const privacyFile = "privacy.json"

// Choices are the privacy levels the user chose in the window, per model
// server, in privacy.json. It is safe for concurrent use.
type Choices struct {
	dir func() (string, error)
	mu  sync.Mutex
}

// NewChoices returns the choices kept in the config folder dir gives.
func NewChoices(dir func() (string, error)) *Choices { return &Choices{dir: dir} }

// PrivacyState is the level in force for one model server.
type PrivacyState struct {
	Level privacy.Level
	// Chosen says the user chose the level; otherwise it is
	// privacy.Default of the server.
	Chosen bool
	// Host is the server's host; Local says it is on this machine.
	Host  string
	Local bool
}

// privacyKey names a provider configuration: its provider and server.
func privacyKey(cfg provider.Config) string {
	return strings.ToLower(strings.TrimSpace(cfg.Provider)) + " " + provider.ServerURL(cfg)
}

// read reads the levels chosen, by privacyKey. The caller holds c.mu.
func (c *Choices) read() (map[string]privacy.Level, string, error) {
	dir, err := c.dir()
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, privacyFile)
	m := map[string]privacy.Level{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, path, nil
	}
	if err != nil {
		return nil, path, fileError(path, "cannot read the privacy levels", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, path, damaged(path, err, "Fix or delete the file, then choose the privacy level again in Settings.")
	}
	return m, path, nil
}

// State is the level in force for cfg's server: the one chosen, else the
// server's default.
func (c *Choices) State(cfg provider.Config) (PrivacyState, error) {
	c.mu.Lock()
	m, _, err := c.read()
	c.mu.Unlock()
	if err != nil {
		return PrivacyState{}, err
	}
	server := provider.ServerURL(cfg)
	st := PrivacyState{Level: privacy.Default(provider.IsLocal(server)), Host: hostOf(server), Local: provider.IsLocal(server)}
	if l, ok := m[privacyKey(cfg)]; ok {
		if _, err := privacy.Parse(string(l)); err == nil {
			st.Level, st.Chosen = l, true
		}
	}
	return st, nil
}

// ParseLevel reads a privacy level the user gave: one that is none of
// privacy.Levels is an *Error of Kind Invalid saying what to choose.
func ParseLevel(level string) (privacy.Level, error) {
	l, err := privacy.Parse(level)
	if err != nil {
		return "", invalid(err.Error(), "Choose open, masked or schema.")
	}
	return l, nil
}

// Choose records level l for cfg's server; other servers keep theirs.
func (c *Choices) Choose(cfg provider.Config, l privacy.Level) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, path, err := c.read()
	if err != nil {
		return err
	}
	m[privacyKey(cfg)] = l
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(path, append(b, '\n')); err != nil {
		return fileError(path, "cannot save the privacy level", err)
	}
	return nil
}

// InForce is the level of a question to cfg's server: the one chosen, or
// the server's default when it is on this machine. A server elsewhere with
// no level chosen is refused (an *Error of Kind Unchosen) until the user
// chooses one: nothing is sent before.
func (c *Choices) InForce(cfg provider.Config) (privacy.Level, error) {
	st, err := c.State(cfg)
	if err != nil {
		return "", err
	}
	if !st.Local && !st.Chosen {
		return "", &Error{Kind: KindUnchosen, Message: "Choose what " + st.Host + " may see of your data before the first question.",
			Hint: "Pick a privacy level (open, masked or schema) when asked, or in Settings."}
	}
	return st.Level, nil
}

// Loose is the level recorded with requests made for no question: the
// one chosen, else the server's default.
func (c *Choices) Loose(cfg provider.Config) (privacy.Level, error) {
	st, err := c.State(cfg)
	return st.Level, err
}

// EnvPrivacy names the environment variable that sets the privacy level
// of the CLI's commands when --privacy is not given.
const EnvPrivacy = "LOUPE_PRIVACY"

// Flagged is the CLI's privacy level: Level (--privacy) when given, else
// $LOUPE_PRIVACY, else privacy.Default of the model server. A hosted
// server at its default level gets one line on Notice (when set) saying
// so and how to change it, the first time InForce settles it.
type Flagged struct {
	Level  privacy.Level
	Getenv func(string) string
	Notice io.Writer
}

// InForce settles f.Level (kept, so the caller sees it) and returns it.
// A $LOUPE_PRIVACY that is no level is an error.
func (f *Flagged) InForce(cfg provider.Config) (privacy.Level, error) {
	if f.Level != "" {
		return f.Level, nil
	}
	l, fromEnv, err := f.settle(cfg)
	if err != nil {
		return "", err
	}
	f.Level = l
	if server := provider.ServerURL(cfg); !fromEnv && !provider.IsLocal(server) && f.Notice != nil {
		fmt.Fprintf(f.Notice, "Privacy: %s is not on this machine, so it gets level %s: it sees %s. Choose with --privacy open|masked|schema or %s.\n",
			server, l, l.Describe(), EnvPrivacy)
	}
	return l, nil
}

// Loose is InForce without the notice.
func (f *Flagged) Loose(cfg provider.Config) (privacy.Level, error) {
	if f.Level != "" {
		return f.Level, nil
	}
	l, _, err := f.settle(cfg)
	return l, err
}

func (f *Flagged) settle(cfg provider.Config) (privacy.Level, bool, error) {
	getenv := f.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := getenv(EnvPrivacy); v != "" {
		l, err := privacy.Parse(v)
		if err != nil {
			return "", true, fmt.Errorf("%s: %w", EnvPrivacy, err)
		}
		return l, true, nil
	}
	return privacy.Default(provider.IsLocal(provider.ServerURL(cfg))), false, nil
}

func hostOf(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		raw = raw[i+3:]
	}
	host, _, _ := strings.Cut(raw, "/")
	return host
}
