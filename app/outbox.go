package app

import (
	"errors"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
)

// spec is the model server the settings name, at the privacy level chosen
// for it, its requests to another machine kept in the workspace's outbox.
func (a *App) spec(s config.Settings) config.Spec {
	return config.Spec{Config: a.settings.ProviderConfig(s), Levels: a.choices, Store: a.s.Chats.Store, Getenv: a.opts.Getenv}
}

// openModel opens the model server the settings name for a question
// (config.OpenModel): the provider, the level in force (CodePrivacy for a
// server elsewhere with no level chosen: nothing is sent before) and the
// settings' limits.
func (a *App) openModel() (*config.Model, config.Settings, error) {
	s, err := a.settings.Get()
	if err != nil {
		return nil, s, configError(err)
	}
	m, err := config.OpenModel(a.spec(s))
	var le *config.LevelError
	if errors.As(err, &le) {
		return nil, s, configError(le.Err)
	}
	return m, s, wrap(err)
}

// embedding is the model server whose embedding model embeds the tables
// (session.Local.Embedding): the settings', its requests kept as any.
func (a *App) embedding() (provider.Config, bool) {
	s, err := a.settings.Get()
	if err != nil {
		return provider.Config{}, false
	}
	return config.Tee(a.spec(s)), true
}

// SentOf returns what the answer of run runID sent to its model server:
// the privacy level in force and each request, body and all.
func (a *App) SentOf(runID string) (*assemble.AnswerSent, error) { return a.s.SentOf(a.life, runID) }
