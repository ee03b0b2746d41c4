package app

import "github.com/loupeapp/loupe/app/config"

// Keychain keeps the API key out of the settings file (config.Keychain):
// the OS keychain in the app, memory in tests and web mode.
type (
	Keychain       = config.Keychain
	Keeper         = config.Keeper
	MemoryKeychain = config.MemoryKeychain
)

// ErrNoSecret is returned by Keychain.Get when nothing is stored.
var ErrNoSecret = config.ErrNoSecret

// OSKeychain returns the user's keeper (config.OSKeychain).
func OSKeychain() (Keychain, error) { return config.OSKeychain() }

// NewMemoryKeychain returns an empty in-memory keychain.
func NewMemoryKeychain() *MemoryKeychain { return config.NewMemoryKeychain() }

// apiKeyName is the keychain name of the model's API key, which no
// connection may take (config.APIKeyName).
const apiKeyName = config.APIKeyName

// brokenKeychain is used when no keeper can be made (no home folder).
type brokenKeychain struct{ err error }

func (b brokenKeychain) Get(string) (string, string, error) { return "", "", ErrNoSecret }
func (b brokenKeychain) Set(string, string) (string, error) { return "", b.err }
func (b brokenKeychain) Delete(string) error                { return nil }
