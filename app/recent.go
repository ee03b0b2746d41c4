package app

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

// recentStore remembers the files opened most recently, in recent.json in
// the config folder.
type recentStore struct {
	dir func() (string, error)
	mu  sync.Mutex
}

func newRecentStore(dir func() (string, error)) *recentStore { return &recentStore{dir: dir} }

func (r *recentStore) path() (string, error) {
	d, err := r.dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "recent.json"), nil
}

func (r *recentStore) read() []string {
	p, err := r.path()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("read recent files", "subsystem", "app", "err", err)
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		slog.Warn("recent files: ignoring a damaged file", "subsystem", "app", "path", p, "err", err)
		return nil
	}
	return list
}

// add puts path first. A failure to save is logged: the list is a
// convenience, never worth failing a load for.
func (r *recentStore) add(path string) {
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
		err = writeBytesAtomic(p, 0o600, b)
	}
	if err != nil {
		slog.Warn("save recent files", "subsystem", "app", "err", err)
	}
}

// list returns the remembered files that still exist, newest first.
func (r *recentStore) list() []string {
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
