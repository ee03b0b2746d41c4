package app

import (
	"context"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/app/status"
)

// The settings a form holds are tried before they are kept: Settings'
// Refresh lists the models of the address in the field (ListModelsFor),
// Test checks the server and model the form names (TestSettings), and Save
// with Test set saves only settings that passed that check.

// formProvider opens, for listing, the model server u names, with u's key
// when it carries one, else the key stored for u's base URL.
func (a *App) formProvider(u SettingsUpdate) (llm.Provider, error) {
	sp := a.spec(config.Settings(u.Settings))
	if u.APIKey != nil && u.Provider == provider.OpenAI {
		sp.Config.APIKey, sp.Config.KeyFor = *u.APIKey, provider.Origin(u.OpenAIBaseURL)
	}
	return config.OpenListing(sp)
}

// formServer is the model server u names, as the model check needs it.
func (a *App) formServer(u SettingsUpdate) status.Server {
	return status.Server{Settings: config.Settings(u.Settings),
		Open: func() (llm.Provider, error) { return a.formProvider(u) },
		HasKey: func(base string) bool {
			if u.APIKey != nil {
				return *u.APIKey != ""
			}
			k, _ := a.settings.KeyFor(base)
			return k != ""
		}}
}

// ListModelsFor lists the models of the server u names, saved or not (the
// address in the field, with the key typed or stored): what Settings'
// Refresh shows before Save.
func (a *App) ListModelsFor(u SettingsUpdate) ([]ModelInfo, error) {
	p, err := a.formProvider(u)
	if err != nil {
		return nil, wrap(err)
	}
	out, err := modelInfos(session.ListModels(a.life, p))
	for i := range out {
		out[i].Embedding = out[i].Embedding || status.IsEmbedding(out[i].Name)
	}
	return out, err
}

// TestSettings checks, without saving anything, that the server u names
// answers with u's key and offers u's model as a chat model (status.CheckModel):
// the check Save makes when asked to (SettingsUpdate.Test).
func (a *App) TestSettings(u SettingsUpdate) (*Check, error) {
	ctx, cancel := context.WithTimeout(a.life, 20*time.Second)
	defer cancel()
	c := Check(status.CheckModel(ctx, a.formServer(u)))
	return &c, nil
}

// testBeforeSave is SaveSettings' check when u asks for one: nil when the
// settings work, else a CodeModel error saying what does not (nothing is
// saved then).
func (a *App) testBeforeSave(u SettingsUpdate) error {
	c, _ := a.TestSettings(u)
	if c.OK {
		return nil
	}
	hint := c.Hint
	if hint != "" {
		hint += " "
	}
	return &Error{Code: CodeModel, Message: "Not saved: " + strings.TrimRight(c.Message, ".") + ".", Hint: hint + "Save anyway to keep these settings as they are."}
}
