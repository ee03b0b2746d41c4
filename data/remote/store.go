package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// EnvConfigDir names the environment variable that overrides the folder
// holding Loupe's settings files.
const EnvConfigDir = "LOUPE_CONFIG_DIR"

// storeFile is the profiles file inside the settings folder.
const storeFile = "connections.json"

// ErrNoProfile means no saved connection has the name asked for.
var ErrNoProfile = errors.New("no such connection")

// DefaultStorePath is connections.json in $LOUPE_CONFIG_DIR, else in
// Loupe's folder under the OS user config directory (~/.config/loupe on
// Linux, ~/Library/Application Support/Loupe on macOS, %AppData%\Loupe on
// Windows).
func DefaultStorePath() (string, error) {
	if d := os.Getenv(EnvConfigDir); d != "" {
		return filepath.Join(d, storeFile), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config folder: %w (set %s)", err, EnvConfigDir)
	}
	name := "loupe"
	if _, err := os.Stat(filepath.Join(d, "Loupe")); err == nil {
		name = "Loupe"
	}
	return filepath.Join(d, name, storeFile), nil
}

// Store keeps connection profiles in a JSON file, replaced atomically on
// every change. Profiles hold no passwords (see data/secret). It is safe
// for concurrent use within one process.
type Store struct {
	mu   sync.Mutex
	path string
}

// NewStore returns the store kept in the file at path.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

type storeDoc struct {
	Version     int       `json:"version"`
	Connections []Profile `json:"connections"`
}

// List returns the saved profiles, ordered by name.
func (s *Store) List() ([]Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read()
}

// Get returns the profile called name, or an error matching ErrNoProfile.
func (s *Store) Get(name string) (Profile, error) {
	ps, err := s.List()
	if err != nil {
		return Profile{}, err
	}
	for _, p := range ps {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("connection %q: %w (loupe connect list shows the saved ones)", name, ErrNoProfile)
}

// Put checks p and saves it, replacing a profile of the same name. It
// returns the profile as saved (defaults filled in). When it replaces a
// different profile, the old one's catalog and index are removed: they
// describe another database. The user's notes stay (see Notes): a note
// on a table the edited connection does not have is ignored.
func (s *Store) Put(p Profile) (Profile, error) {
	p, err := p.Normalize()
	if err != nil {
		return p, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, err := s.read()
	if err != nil {
		return p, err
	}
	kept := ps[:0]
	changed := false
	for _, q := range ps {
		if q.Name != p.Name {
			kept = append(kept, q)
		} else {
			changed = q != p
		}
	}
	if err := s.write(append(kept, p)); err != nil {
		return p, err
	}
	if changed {
		return p, clearCache(s.CacheDir(p.Name))
	}
	return p, nil
}

// Remove deletes the profile called name with its cache (catalog, schema
// index and the user's notes); ErrNoProfile when there is none.
func (s *Store) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, err := s.read()
	if err != nil {
		return err
	}
	kept := ps[:0]
	for _, q := range ps {
		if q.Name != name {
			kept = append(kept, q)
		}
	}
	if len(kept) == len(ps) {
		return fmt.Errorf("connection %q: %w", name, ErrNoProfile)
	}
	if err := s.write(kept); err != nil {
		return err
	}
	return removeCache(s.CacheDir(name))
}

func (s *Store) read() ([]Profile, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return []Profile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read connections: %w", err)
	}
	var doc storeDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("the connections file %s is damaged (%v): fix or remove it", s.path, err)
	}
	if doc.Connections == nil {
		doc.Connections = []Profile{}
	}
	return doc.Connections, nil
}

func (s *Store) write(ps []Profile) error {
	sort.Slice(ps, func(a, b int) bool { return ps[a].Name < ps[b].Name })
	b, err := json.MarshalIndent(storeDoc{Version: 1, Connections: ps}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := writeAtomic(dir, filepath.Base(s.path), append(b, '\n')); err != nil {
		return fmt.Errorf("save connections: %w", err)
	}
	return nil
}
