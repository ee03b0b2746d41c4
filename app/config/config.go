// Package config owns the user's configuration: the settings in
// settings.json, the OpenAI-compatible API key in the keychain bound to the
// host it was entered for, the privacy level chosen per model server in
// privacy.json, the recent files in recent.json, and the one way the window
// and the CLI open the model server it names (OpenModel). The window (app)
// and the CLI translate; the decisions are made here.
package config

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// EnvDir names the environment variable that picks the config folder.
const EnvDir = "LOUPE_CONFIG_DIR"

// Dir is where the configuration lives unless the caller says otherwise:
// $LOUPE_CONFIG_DIR, else Loupe's folder in the OS user config folder
// (~/.config/loupe, ~/Library/Application Support/Loupe, %AppData%\Loupe).
func Dir(getenv func(string) string) (string, error) {
	if d := getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config folder: %w (set %s)", err, EnvDir)
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" {
		return filepath.Join(base, "loupe"), nil
	}
	return filepath.Join(base, "Loupe"), nil
}

// Kind says what went wrong, for the façade to map onto its error codes.
type Kind string

const (
	KindInvalid     Kind = "invalid"     // a value the user must change
	KindFile        Kind = "file"        // a file cannot be read or written, or is damaged
	KindKeychain    Kind = "keychain"    // the API key cannot be stored
	KindNotFound    Kind = "not_found"   // no such model in Ollama's library
	KindUnreachable Kind = "unreachable" // nothing answers at the model server's address
	KindModel       Kind = "model"       // the model server failed otherwise
	KindUnchosen    Kind = "privacy"     // no privacy level chosen yet for a server elsewhere
)

// Error is a problem with the configuration, said so the user can act:
// Message says what is wrong, Hint what to do.
type Error struct {
	Kind    Kind
	Message string
	Hint    string
	Err     error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

func invalid(msg, hint string) *Error { return &Error{Kind: KindInvalid, Message: msg, Hint: hint} }

// fileError is a file that cannot be read or written, with what to do.
func fileError(path, problem string, err error) *Error {
	hint := "Check that the folder exists, that you may write to it, and that the disk is not full."
	if errors.Is(err, fs.ErrPermission) {
		hint = "You may not write there: choose a folder you own."
	}
	return &Error{Kind: KindFile, Message: fmt.Sprintf("%s: %s", path, problem), Hint: hint, Err: err}
}

// damaged is a file that does not parse; what to do is the caller's hint.
func damaged(path string, err error, hint string) *Error {
	return &Error{Kind: KindFile, Message: path + " is damaged: " + err.Error(), Hint: hint, Err: err}
}

// writeFile writes path whole or not at all, readable by the user only:
// into a temporary file beside it, synced, then renamed over it. A folder
// it has to create is private (0700).
func writeFile(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	if _, err = w.Write(b); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
