package session

import (
	"context"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/config"
)

// ListTimeout bounds listing a model server's models.
const ListTimeout = 20 * time.Second

// ListModels lists the models the server p offers (config.Models), within
// ListTimeout.
func ListModels(ctx context.Context, p llm.Provider) ([]config.ModelInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, ListTimeout)
	defer cancel()
	models, err := config.Models(ctx, p)
	return models, Wrap(err)
}
