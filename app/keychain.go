package app

import "github.com/loupeapp/loupe/app/config"

// Keychain keeps the API key out of the settings file (config.Keychain):
// the OS keychain in the app, memory in tests and web mode.
type (
	Keychain       = config.Keychain
	Keeper         = config.Keeper
	MemoryKeychain = config.MemoryKeychain
)

// NewMemoryKeychain returns an empty in-memory keychain.
func NewMemoryKeychain() *MemoryKeychain { return config.NewMemoryKeychain() }
