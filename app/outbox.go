package app

import (
	"context"
	"errors"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// spec is the model server the settings name, at the privacy level chosen
// for it, its requests to another machine kept in the workspace's outbox.
func (a *App) spec(s Settings) config.Spec {
	sp := a.settings.spec(s)
	sp.Store, sp.Getenv = a.chatStore, a.opts.Getenv
	return sp
}

// openModel opens the model server the settings name for a question
// (config.OpenModel): the provider, the level in force (CodePrivacy for a
// server elsewhere with no level chosen: nothing is sent before) and the
// settings' limits.
func (a *App) openModel() (*config.Model, Settings, error) {
	s, err := a.settings.get()
	if err != nil {
		return nil, s, err
	}
	m, err := config.OpenModel(a.spec(s))
	var le *config.LevelError
	if errors.As(err, &le) {
		return nil, s, configError(le.Err)
	}
	return m, s, wrap(err)
}

// modelConfig is the model server the settings name, with the HTTP client
// that keeps every request to another machine in the outbox (config.Tee).
func (a *App) modelConfig(s Settings) provider.Config { return config.Tee(a.spec(s)) }

// levelInForce is the privacy level of a question to cfg's server
// (config.Choices.InForce), CodePrivacy when none is chosen for a server
// elsewhere.
func (a *App) levelInForce(cfg provider.Config) (privacy.Level, error) {
	l, err := a.settings.choices.InForce(cfg)
	return l, configError(err)
}

// SentOf returns what the answer of run runID sent to its model server:
// the privacy level in force and each request, body and all.
func (a *App) SentOf(runID string) (*assemble.AnswerSent, error) {
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	msg, err := st.MessageByRun(a.life, runID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, newError(CodeNotFound, "No answer of run "+runID+".", "")
		}
		return nil, wrap(err)
	}
	out, err := assemble.SentOf(a.life, st, msg.ID)
	if err != nil {
		return nil, wrap(err)
	}
	return out, nil
}

// reportOutbox is the context of the report stage of runID: its requests
// are kept with the answer they write up, at the level in force.
func (a *App) reportOutbox(runID string, cfg provider.Config) (context.Context, error) {
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	msg, err := st.MessageByRun(a.life, runID)
	if err != nil {
		return nil, wrap(err)
	}
	lvl, err := a.levelInForce(cfg)
	if err != nil {
		return nil, err
	}
	o := assemble.Outbox{Store: st, ConversationID: msg.ConversationID, MessageID: msg.ID, Level: lvl}
	return provider.WithOutbox(a.life, o), nil
}
