package app

import "github.com/loupeapp/loupe/app/config"

// recentStore is the recent files (config.Recent).
type recentStore struct{ r *config.Recent }

func newRecentStore(dir func() (string, error)) *recentStore {
	return &recentStore{config.NewRecent(dir)}
}

func (r *recentStore) add(path string) { r.r.Add(path) }
func (r *recentStore) list() []string  { return r.r.List() }
