// Package secret keeps passwords and API keys out of Loupe's settings.
// They go to the OS keychain (macOS Keychain, Windows Credential Manager,
// the Secret Service on Linux) through go-keyring. Where no keychain
// exists — a server without a desktop session — they fall back to a file
// readable only by the user, in the user's own data folder, and every
// write there comes with a warning. An environment variable per name
// overrides both, for scripts and CI.
package secret

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/zalando/go-keyring"
)

// Service is the keychain service name Loupe's secrets are filed under.
const Service = "loupe"

// EnvDisable, set to any value, keeps Loupe away from the OS keychain: the
// file fallback is used instead (tests, headless machines).
const EnvDisable = "LOUPE_KEYRING_OFF"

// ErrNotFound means no secret is stored under the name.
var ErrNotFound = errors.New("no secret stored")

// Backend says where a secret lives.
type Backend string

// Backends.
const (
	Keychain Backend = "keychain"
	File     Backend = "file"
	Env      Backend = "env"
)

// Ring is an OS keychain. Get returns ErrNotFound for a missing secret;
// any other error means the keychain cannot be used.
type Ring interface {
	Get(service, name string) (string, error)
	Set(service, name, secret string) error
	Delete(service, name string) error
}

// Keeper stores secrets by name. It is safe for concurrent use within one
// process.
type Keeper struct {
	ring   Ring // nil when the keychain is off
	file   *fileStore
	getenv func(string) string
	log    *slog.Logger
}

// New returns a keeper using the OS keychain (unless $LOUPE_KEYRING_OFF is
// set) with the file fallback in the user's data folder.
func New() (*Keeper, error) {
	path, err := DefaultFile()
	if err != nil {
		return nil, err
	}
	var ring Ring = osRing{}
	if os.Getenv(EnvDisable) != "" {
		ring = nil
	}
	return NewWith(ring, path, os.Getenv), nil
}

// NewWith returns a keeper over ring (nil for none), the fallback file at
// path, and getenv for the per-name override variables.
func NewWith(ring Ring, path string, getenv func(string) string) *Keeper {
	return &Keeper{ring: ring, file: &fileStore{path: path}, getenv: getenv, log: slog.Default().With("subsystem", "secret")}
}

// EnvName is the environment variable that overrides the secret called
// name: LOUPE_SECRET_ and the name upper-cased, other characters as '_'
// (connection "prod-db" → LOUPE_SECRET_PROD_DB).
func EnvName(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return "LOUPE_SECRET_" + string(b)
}

// Warning explains a secret kept in the fallback file.
func (k *Keeper) Warning() string { return k.warning("LOUPE_SECRET_<NAME>") }

// WarningFor explains the secret called name kept in the fallback file,
// naming its environment variable.
func (k *Keeper) WarningFor(name string) string { return k.warning(EnvName(name)) }

func (k *Keeper) warning(variable string) string {
	return fmt.Sprintf("no OS keychain is available, so the password is kept in %s, readable only by your user; "+
		"unlock a keyring (GNOME Keyring, KWallet) to use it instead, or set %s in the environment",
		k.file.path, variable)
}

// Set stores secret under name: in the keychain when there is one, else
// in the fallback file (the caller shows Warning). It returns where it went.
func (k *Keeper) Set(name, secret string) (Backend, error) {
	if k.ring != nil {
		err := k.ring.Set(Service, name, secret)
		if err == nil {
			// A copy left in the file by an earlier fallback would shadow nothing
			// but should not linger.
			_ = k.file.delete(name)
			return Keychain, nil
		}
		k.log.Info("keychain unavailable, using the file", "err", err)
	}
	if err := k.file.set(name, secret); err != nil {
		return "", err
	}
	return File, nil
}

// Get returns the secret called name and where it came from: the
// environment override, the keychain, or the fallback file, in that order.
// It returns ErrNotFound when none holds it.
func (k *Keeper) Get(name string) (string, Backend, error) {
	if v := k.getenv(EnvName(name)); v != "" {
		return v, Env, nil
	}
	if k.ring != nil {
		v, err := k.ring.Get(Service, name)
		if err == nil {
			return v, Keychain, nil
		}
		if !errors.Is(err, keyring.ErrNotFound) && !errors.Is(err, ErrNotFound) {
			k.log.Debug("keychain unavailable, trying the file", "err", err)
		}
	}
	v, err := k.file.get(name)
	if err != nil {
		return "", "", err
	}
	return v, File, nil
}

// Delete removes the secret called name from the keychain and the file.
// A secret that does not exist is not an error.
func (k *Keeper) Delete(name string) error {
	if k.ring != nil {
		if err := k.ring.Delete(Service, name); err != nil && !errors.Is(err, keyring.ErrNotFound) && !errors.Is(err, ErrNotFound) {
			k.log.Debug("keychain unavailable", "err", err)
		}
	}
	return k.file.delete(name)
}

// osRing is the OS keychain through go-keyring.
type osRing struct{}

func (osRing) Get(service, name string) (string, error) { return keyring.Get(service, name) }
func (osRing) Set(service, name, secret string) error   { return keyring.Set(service, name, secret) }
func (osRing) Delete(service, name string) error        { return keyring.Delete(service, name) }
