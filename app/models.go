package app

import (
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/session"
)

// EventModelPull carries a PullProgress while a model downloads.
const EventModelPull = "model:pull"

// ModelInfo is a model the server offers, as the model picker shows it.
type ModelInfo struct {
	Name       string `json:"name"`
	Tools      bool   `json:"tools"`      // supports native tool calling
	ToolsKnown bool   `json:"toolsKnown"` // the server said either way
	// Embedding marks a model that only makes embeddings (nomic-embed-text):
	// it cannot answer, but serves Settings.EmbedModel.
	Embedding     bool   `json:"embedding,omitempty"`
	ContextLength int    `json:"contextLength"`
	Size          int64  `json:"size"`
	Recommended   bool   `json:"recommended,omitempty"`
	Warning       string `json:"warning,omitempty"`
}

// PullProgress is a model:pull event.
type PullProgress struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Completed int64  `json:"completed"`
	Total     int64  `json:"total"`
}

// ListModels lists the models the configured server offers, marking those
// recommended for Loupe and warning about those without tool support
// (config.Models).
func (a *App) ListModels() ([]ModelInfo, error) {
	s, err := a.settings.Get()
	if err != nil {
		return nil, configError(err)
	}
	p, err := a.listingProvider(s)
	if err != nil {
		return nil, wrap(err)
	}
	return modelInfos(session.ListModels(a.life, p))
}

// modelInfos are the ModelInfos of models listed (session.ListModels).
func modelInfos(models []config.ModelInfo, err error) ([]ModelInfo, error) {
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, 0, len(models))
	for _, m := range models {
		out = append(out, ModelInfo{Name: m.Name, Tools: m.Tools, ToolsKnown: m.ToolsKnown, Embedding: m.Embedding,
			ContextLength: m.ContextLength, Size: m.Size, Recommended: m.Recommended, Warning: m.Warning})
	}
	return out, nil
}

// PullModel downloads a model into Ollama, with model:pull progress events
// (config.Pull); it returns when the model is ready. Only for the Ollama
// provider. A model Ollama's library does not have is CodeNotFound; no
// server, CodeModelUnreachable.
func (a *App) PullModel(name string) error {
	s, err := a.settings.Get()
	if err != nil {
		return configError(err)
	}
	err = config.Pull(a.life, s, name, func(p config.PullProgress) {
		a.publish(EventModelPull, PullProgress(p))
	})
	if err != nil {
		return configError(err)
	}
	a.background(a.refreshStatus)
	return nil
}

// listingProvider opens the provider the settings name for listing models
// (config.OpenListing): it fails fast, and works before a model is chosen.
func (a *App) listingProvider(s config.Settings) (llm.Provider, error) {
	return config.OpenListing(a.spec(s))
}
