package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// roleFile keeps, in a connection's cache folder, the warning of the last
// audit of its role (AuditRole). It goes with the cache when the profile
// changes (another user or database must be audited again).
const roleFile = "role.json"

// SetRole keeps w as the role warning of the connection called name; nil
// (a read-only role) removes it.
func (s *Store) SetRole(name string, w *RoleWarning) error {
	dir := s.CacheDir(name)
	if w == nil {
		if err := os.Remove(filepath.Join(dir, roleFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("forget the role warning of %s: %w", name, err)
		}
		return nil
	}
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the role warning of %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := writeAtomic(dir, roleFile, append(b, '\n')); err != nil {
		return fmt.Errorf("keep the role warning of %s: %w", name, err)
	}
	return nil
}

// Role returns the role warning kept for the connection called name, nil
// when its role was found read-only or has not been audited yet.
func (s *Store) Role(name string) (*RoleWarning, error) {
	b, err := os.ReadFile(filepath.Join(s.CacheDir(name), roleFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the role warning of %s: %w", name, err)
	}
	var w RoleWarning
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("read the role warning of %s: %w", name, err)
	}
	return &w, nil
}
