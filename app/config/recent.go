package config

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// maxRecent is how many recent files are remembered.
const maxRecent = 10

// Recent remembers the files opened most recently, in recent.json in the
// config folder. It is safe for concurrent use.
type Recent struct {
	dir func() (string, error)
	mu  sync.Mutex
}

// NewRecent returns the recent files kept in the config folder dir gives.
func NewRecent(dir func() (string, error)) *Recent { return &Recent{dir: dir} }

func (r *Recent) path() (string, error) {
	d, err := r.dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "recent.json"), nil
}

func (r *Recent) read() []string {
	p, err := r.path()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("read recent files", "subsystem", "config", "err", err)
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		slog.Warn("recent files: ignoring a damaged file", "subsystem", "config", "path", p, "err", err)
		return nil
	}
	return list
}

// Add puts path first. A failure to save is logged: the list is a
// convenience, never worth failing a load for.
func (r *Recent) Add(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := slices.DeleteFunc(r.read(), func(s string) bool { return s == path })
	list = append([]string{path}, list...)
	if len(list) > maxRecent {
		list = list[:maxRecent]
	}
	p, err := r.path()
	if err == nil {
		b, _ := json.MarshalIndent(list, "", "  ")
		err = writeFile(p, b)
	}
	if err != nil {
		slog.Warn("save recent files", "subsystem", "config", "err", err)
	}
}

// List returns the remembered files that still exist, newest first.
func (r *Recent) List() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []string{}
	for _, p := range r.read() {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
