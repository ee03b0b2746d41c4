package app

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/privacy"
)

// CodePrivacy is the error of a question to a model server on another
// machine for which the user has not chosen a privacy level yet: the
// window asks them (GetPrivacy, SetPrivacy) and asks the question again.
const CodePrivacy = "privacy"

// PrivacyState is the privacy level in force for the model server the
// settings name, and what each level means.
type PrivacyState struct {
	Level privacy.Level `json:"level"`
	// Chosen says the user chose the level for this server; otherwise it
	// is privacy.Default of the server.
	Chosen   bool   `json:"chosen"`
	Describe string `json:"describe"`
	// Host is the model server's host; Local says it is on this machine.
	Host   string         `json:"host"`
	Local  bool           `json:"local"`
	Levels []PrivacyLevel `json:"levels"`
}

// PrivacyLevel is one level and what a model at it is sent.
type PrivacyLevel struct {
	Level    privacy.Level `json:"level"`
	Describe string        `json:"describe"`
}

// privacyFile is privacy.json in the config folder: the level chosen per
// provider configuration (provider and server address), kept apart from
// settings.json so that a server the user moves to starts from its own
// default.
const privacyFile = "privacy.json"

var privacyMu sync.Mutex

// privacyKey names a provider configuration: its provider and server.
func privacyKey(cfg provider.Config) string {
	return strings.ToLower(strings.TrimSpace(cfg.Provider)) + " " + provider.ServerURL(cfg)
}

// chosenLevels reads the levels the user chose, by privacyKey.
func (a *App) chosenLevels() (map[string]privacy.Level, string, error) {
	dir, err := a.configDir()
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
		return nil, path, &Error{Code: CodeFile, Message: path + " is damaged: " + err.Error(),
			Hint: "Fix or delete the file, then choose the privacy level again in Settings.", Err: err}
	}
	return m, path, nil
}

// privacyFor is the level in force for cfg's server.
func (a *App) privacyFor(cfg provider.Config) (PrivacyState, error) {
	privacyMu.Lock()
	m, _, err := a.chosenLevels()
	privacyMu.Unlock()
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
	st.Describe = st.Level.Describe()
	for _, l := range privacy.Levels {
		st.Levels = append(st.Levels, PrivacyLevel{Level: l, Describe: l.Describe()})
	}
	return st, nil
}

// GetPrivacy returns the privacy level in force for the model server the
// settings name.
func (a *App) GetPrivacy() (*PrivacyState, error) {
	s, err := a.settings.get()
	if err != nil {
		return nil, wrap(err)
	}
	st, err := a.privacyFor(a.settings.providerConfig(s))
	if err != nil {
		return nil, wrap(err)
	}
	return &st, nil
}

// SetPrivacy chooses the privacy level (open, masked or schema) for the
// model server the settings name; other servers keep theirs.
func (a *App) SetPrivacy(level string) error {
	l, err := privacy.Parse(level)
	if err != nil {
		return newError(CodeInvalid, err.Error(), "Choose open, masked or schema.")
	}
	s, err := a.settings.get()
	if err != nil {
		return wrap(err)
	}
	privacyMu.Lock()
	defer privacyMu.Unlock()
	m, path, err := a.chosenLevels()
	if err != nil {
		return wrap(err)
	}
	m[privacyKey(a.settings.providerConfig(s))] = l
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return wrap(err)
	}
	if err := writeBytesAtomic(path, 0o600, append(b, '\n')); err != nil {
		return fileError(path, "cannot save the privacy level", err)
	}
	return nil
}

func hostOf(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		raw = raw[i+3:]
	}
	host, _, _ := strings.Cut(raw, "/")
	return host
}
