package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// fileName is the fallback file inside Loupe's data folder.
const fileName = "secrets.json"

// DefaultFile is the fallback file: secrets.json in Loupe's folder under
// the user data directory (~/.local/share/loupe on Linux, ~/Library/
// Application Support/Loupe on macOS, %LocalAppData%\Loupe on Windows).
func DefaultFile() (string, error) {
	switch runtime.GOOS {
	case "darwin":
		d, err := os.UserConfigDir()
		return filepath.Join(d, "Loupe", fileName), err
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "Loupe", fileName), nil
		}
		d, err := os.UserConfigDir()
		return filepath.Join(d, "Loupe", fileName), err
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "loupe", fileName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the user data folder: %w", err)
	}
	return filepath.Join(home, ".local", "share", "loupe", fileName), nil
}

// fileStore is a JSON object of name → secret in a file only its owner
// may read (0600), in a folder only its owner may enter (0700), replaced
// atomically on every write.
type fileStore struct {
	mu   sync.Mutex
	path string
}

func (f *fileStore) read() (map[string]string, error) {
	info, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read secrets: %w", err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the secrets file %s can be read by other users (mode %v): run chmod 600 on it, then change the passwords it holds", f.path, info.Mode().Perm())
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return nil, fmt.Errorf("read secrets: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("the secrets file %s is damaged (%v): remove it and store the passwords again", f.path, err)
	}
	return m, nil
}

func (f *fileStore) write(m map[string]string) error {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".secrets-*")
	if err != nil {
		return fmt.Errorf("write secrets: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write secrets: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write secrets: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write secrets: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write secrets: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("write secrets: %w", err)
	}
	return nil
}

func (f *fileStore) get(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", fmt.Errorf("%q: %w", name, ErrNotFound)
	}
	return v, nil
}

func (f *fileStore) set(name, secret string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return err
	}
	m[name] = secret
	return f.write(m)
}

func (f *fileStore) delete(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return f.write(m)
}
