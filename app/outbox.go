package app

import (
	"context"
	"errors"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// modelConfig is the model server the settings name, with the HTTP client
// that keeps every request to another machine in the outbox: with the
// answer its context names (assemble.SendFor), else with no conversation.
func (a *App) modelConfig(s Settings) provider.Config {
	cfg := a.settings.providerConfig(s)
	cfg.HTTPClient = assemble.TeeClient(looseOutbox{a}, a.opts.Getenv)
	return cfg
}

// looseOutbox keeps the requests made for no conversation (status checks,
// model listing, table-name embeddings) in the workspace's store, with the
// level in force when they were made.
type looseOutbox struct{ a *App }

var _ provider.Outbox = looseOutbox{}

func (o looseOutbox) Keep(ctx context.Context, s provider.Sent) error {
	st, err := o.a.chatStore()
	if err != nil {
		return err
	}
	set, err := o.a.settings.get()
	if err != nil {
		return err
	}
	lvl, err := o.a.privacyFor(o.a.settings.providerConfig(set))
	if err != nil {
		return err
	}
	return assemble.Outbox{Store: st, Level: lvl.Level}.Keep(ctx, s)
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

// levelInForce is the privacy level of a question to cfg's server: the
// one chosen, or the server's default when it is on this machine. A server
// elsewhere with no level chosen is refused (CodePrivacy) until the user
// chooses one: nothing is sent before.
func (a *App) levelInForce(cfg provider.Config) (privacy.Level, error) {
	lvl, err := a.privacyFor(cfg)
	if err != nil {
		return "", wrap(err)
	}
	if !lvl.Local && !lvl.Chosen {
		return "", newError(CodePrivacy, "Choose what "+lvl.Host+" may see of your data before the first question.",
			"Pick a privacy level (open, masked or schema) when asked, or in Settings.")
	}
	return lvl.Level, nil
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
