package config

import (
	"errors"
	"log/slog"
	"sync"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/secret"
)

// APIKeyName is the name the OpenAI-compatible API key is kept under
// (overridable with $LOUPE_SECRET_OPENAI_API_KEY, see data/secret), and
// apiKeyOriginName the origin it is bound to: the scheme, host and port of
// the base URL it was entered for (provider.Origin). The key is sent to
// that origin only.
const (
	APIKeyName       = "openai-api-key"
	apiKeyOriginName = "openai-api-key-origin"
)

// ErrNoSecret is returned by Keychain.Get when nothing is stored.
var ErrNoSecret = errors.New("no secret stored")

// Keychain keeps secrets out of the settings file: data/secret's keeper
// (the OS keychain, with a private file as fallback) in the app, memory in
// tests and web mode.
type Keychain interface {
	// Get returns the secret called name, or ErrNoSecret. warning is set
	// when the secret lives somewhere weaker than the OS keychain.
	Get(name string) (value, warning string, err error)
	// Set stores the secret; warning as for Get.
	Set(name, value string) (warning string, err error)
	// Delete forgets the secret; deleting nothing is not an error.
	Delete(name string) error
}

// Keeper adapts data/secret's Keeper to Keychain.
type Keeper struct{ K *secret.Keeper }

var _ Keychain = Keeper{}

// OSKeychain returns the user's keeper: the OS keychain with the file
// fallback in the user's data folder.
func OSKeychain() (Keychain, error) {
	k, err := secret.New()
	if err != nil {
		return nil, err
	}
	return Keeper{k}, nil
}

// UserKeychain is OSKeychain, or, when no keeper can be made (no home
// folder), one that holds nothing and says why when asked to keep a
// secret.
func UserKeychain() Keychain {
	k, err := OSKeychain()
	if err != nil {
		return brokenKeychain{err}
	}
	return k
}

type brokenKeychain struct{ err error }

func (b brokenKeychain) Get(string) (string, string, error) { return "", "", ErrNoSecret }
func (b brokenKeychain) Set(string, string) (string, error) { return "", b.err }
func (b brokenKeychain) Delete(string) error                { return nil }

func (k Keeper) warning(b secret.Backend) string {
	if b == secret.File {
		return k.K.Warning()
	}
	return ""
}

func (k Keeper) Get(name string) (string, string, error) {
	v, b, err := k.K.Get(name)
	if errors.Is(err, secret.ErrNotFound) {
		return "", "", ErrNoSecret
	}
	return v, k.warning(b), err
}

func (k Keeper) Set(name, value string) (string, error) {
	b, err := k.K.Set(name, value)
	return k.warning(b), err
}

func (k Keeper) Delete(name string) error { return k.K.Delete(name) }

// MemoryKeychain keeps secrets in memory only, for tests and web mode.
type MemoryKeychain struct {
	mu sync.Mutex
	m  map[string]string
}

var _ Keychain = (*MemoryKeychain)(nil)

// NewMemoryKeychain returns an empty in-memory keychain.
func NewMemoryKeychain() *MemoryKeychain { return &MemoryKeychain{m: map[string]string{}} }

func (k *MemoryKeychain) Get(name string) (string, string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[name]
	if !ok {
		return "", "", ErrNoSecret
	}
	return v, "", nil
}

func (k *MemoryKeychain) Set(name, value string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[name] = value
	return "", nil
}

func (k *MemoryKeychain) Delete(name string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, name)
	return nil
}

// keychainError is a keychain failure the user can act on.
func keychainError(err error) *Error {
	return &Error{Kind: KindKeychain, Message: "The API key cannot be stored: " + err.Error(),
		Hint: "Unlock or install a keychain (on Linux: GNOME Keyring or KWallet, through the Secret Service), " +
			"or set OPENAI_API_KEY in the environment Loupe starts from.", Err: err}
}

// storedAPIKey is the stored key, the origin it belongs to, and where it
// is kept (warning, as Keychain.Get says); all "" when none is stored.
type storedAPIKey struct{ value, origin, warning string }

// storedKey reads the stored key and its origin. A key stored before keys
// were bound to a host has no origin: it is bound now, for good, to the
// base URL saved with it (f's), the host it was entered for. The caller
// holds s.mu.
func (s *Store) storedKey(f settingsFile) storedAPIKey {
	value, warning, err := s.keys.Get(APIKeyName)
	if err != nil || value == "" {
		return storedAPIKey{}
	}
	origin, _, err := s.keys.Get(apiKeyOriginName)
	if err == nil && origin != "" {
		return storedAPIKey{value: value, origin: origin, warning: warning}
	}
	origin = provider.Origin(f.OpenAIBaseURL)
	if _, err := s.keys.Set(apiKeyOriginName, origin); err != nil {
		// Bound in memory for this run; tried again at the next read.
		slog.Default().Warn("cannot save the API key's host", "subsystem", "config", "origin", origin, "err", err)
	}
	return storedAPIKey{value: value, origin: origin, warning: warning}
}

// setKey stores key for baseURL's origin, replacing any other; "" forgets
// the stored key. The caller holds s.mu.
func (s *Store) setKey(key, baseURL string) error {
	if key == "" {
		if err := s.keys.Delete(APIKeyName); err != nil {
			return err
		}
		return s.keys.Delete(apiKeyOriginName)
	}
	// The old key goes first: a failure on the way leaves no key, never
	// one key bound to another's host.
	if err := s.keys.Delete(APIKeyName); err != nil {
		return err
	}
	if _, err := s.keys.Set(apiKeyOriginName, provider.Origin(baseURL)); err != nil {
		return err
	}
	_, err := s.keys.Set(APIKeyName, key)
	return err
}

// KeyFor returns the API key for baseURL and the base URL it was given for:
// the stored key when it belongs to baseURL's origin, else $OPENAI_API_KEY
// when the environment sets it for that origin (provider.EnvKey), else none.
func (s *Store) KeyFor(baseURL string) (key, keyFor string) {
	want := provider.Origin(baseURL)
	s.mu.Lock()
	f, ferr := s.file()
	var k storedAPIKey
	if ferr == nil {
		k = s.storedKey(f)
	}
	s.mu.Unlock()
	if k.value != "" && k.origin == want {
		return k.value, k.origin
	}
	if key, keyFor := provider.EnvKey(s.getenv); key != "" && provider.Origin(keyFor) == want {
		return key, keyFor
	}
	return "", ""
}
