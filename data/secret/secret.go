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
	"sync/atomic"
	"time"

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

// DefaultTimeout bounds each keychain call: a Secret Service that hangs
// (locked, waiting on an unlock prompt nobody sees, or wedged) must not
// hang the command or window that asked.
const DefaultTimeout = 5 * time.Second

// TimeoutError means the OS keychain did not answer in time. The keeper
// then leaves the keychain alone for the rest of its life and uses the
// fallback file.
type TimeoutError struct {
	Op      string // get, set, delete
	Name    string // the secret's name
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the OS keychain did not answer within %s (%s %s): it may be locked or waiting for an unlock prompt; "+
		"unlock it and try again, or set %s in the environment (or %s=1 to keep Loupe away from the keychain)",
		e.Timeout, e.Op, e.Name, EnvName(e.Name), EnvDisable)
}

// Is makes errors.Is(err, ErrTimeout) true.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// ErrTimeout matches every *TimeoutError.
var ErrTimeout = errors.New("the OS keychain did not answer in time")

// Keeper stores secrets by name. It is safe for concurrent use within one
// process.
type Keeper struct {
	ring    Ring // nil when the keychain is off
	file    *fileStore
	getenv  func(string) string
	log     *slog.Logger
	timeout time.Duration
	// hung is set once a keychain call timed out: later calls go
	// straight to the file instead of waiting again.
	hung atomic.Bool
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
	return &Keeper{ring: ring, file: &fileStore{path: path}, getenv: getenv, log: slog.Default().With("subsystem", "secret"), timeout: DefaultTimeout}
}

// SetTimeout sets how long one keychain call may take (DefaultTimeout
// unless set); d <= 0 restores the default. Call it before using k.
func (k *Keeper) SetTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultTimeout
	}
	k.timeout = d
}

// ringCall runs fn on the keychain within k.timeout. On timeout it
// returns a *TimeoutError at once and marks the keychain hung; fn is left
// to finish (or not) in the background, as a call into the OS keychain
// cannot be interrupted.
func (k *Keeper) ringCall(op, name string, fn func() (string, error)) (string, error) {
	if k.hung.Load() {
		return "", &TimeoutError{Op: op, Name: name, Timeout: k.timeout}
	}
	type answer struct {
		v   string
		err error
	}
	done := make(chan answer, 1) // buffered: a late answer is dropped, the goroutine ends
	go func() {
		v, err := fn()
		done <- answer{v, err}
	}()
	t := time.NewTimer(k.timeout)
	defer t.Stop()
	select {
	case a := <-done:
		return a.v, a.err
	case <-t.C:
		if !k.hung.Swap(true) {
			k.log.Warn("the OS keychain did not answer; using the fallback file from now on", "op", op, "timeout", k.timeout)
		}
		return "", &TimeoutError{Op: op, Name: name, Timeout: k.timeout}
	}
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
		_, err := k.ringCall("set", name, func() (string, error) { return "", k.ring.Set(Service, name, secret) })
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
// It returns ErrNotFound when none holds it, and a *TimeoutError when the
// keychain did not answer and the file does not hold it either (the
// secret may be in the keychain: "not found" would be a lie).
func (k *Keeper) Get(name string) (string, Backend, error) {
	if v := k.getenv(EnvName(name)); v != "" {
		return v, Env, nil
	}
	var ringErr error
	if k.ring != nil {
		v, err := k.ringCall("get", name, func() (string, error) { return k.ring.Get(Service, name) })
		if err == nil {
			return v, Keychain, nil
		}
		if !errors.Is(err, keyring.ErrNotFound) && !errors.Is(err, ErrNotFound) {
			k.log.Debug("keychain unavailable, trying the file", "err", err)
		}
		if errors.Is(err, ErrTimeout) {
			ringErr = err
		}
	}
	v, err := k.file.get(name)
	if errors.Is(err, ErrNotFound) && ringErr != nil {
		return "", "", ringErr
	}
	if err != nil {
		return "", "", err
	}
	return v, File, nil
}

// Delete removes the secret called name from the keychain and the file.
// A secret that does not exist is not an error; a keychain that did not
// answer is (*TimeoutError, after the file's copy is removed): the secret
// may still be there.
func (k *Keeper) Delete(name string) error {
	var ringErr error
	if k.ring != nil {
		_, err := k.ringCall("delete", name, func() (string, error) { return "", k.ring.Delete(Service, name) })
		if err != nil && !errors.Is(err, keyring.ErrNotFound) && !errors.Is(err, ErrNotFound) {
			k.log.Debug("keychain unavailable", "err", err)
		}
		if errors.Is(err, ErrTimeout) {
			ringErr = err
		}
	}
	return errors.Join(k.file.delete(name), ringErr)
}

// osRing is the OS keychain through go-keyring.
type osRing struct{}

func (osRing) Get(service, name string) (string, error) { return keyring.Get(service, name) }
func (osRing) Set(service, name, secret string) error   { return keyring.Set(service, name, secret) }
func (osRing) Delete(service, name string) error        { return keyring.Delete(service, name) }
