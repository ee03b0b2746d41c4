package session

import (
	"context"
	"fmt"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
)

// Workspace is a question asked about a workspace's datasets. The caller
// keeps the workspace and its retrieval open for the run.
type Workspace struct {
	WS        *workspace.Workspace
	Retrieval *retrieve.Retrieval
	// Extra are tools beyond the built-in ones (the Python tool).
	Extra []tools.Tool
	// Embedding, when set, names the embedding model of the semantic
	// boost (off when its EmbedModel is empty); nil leaves the retrieval's
	// boost as it is.
	Embedding *provider.Config
}

var _ Target = (*Workspace)(nil)

func (w *Workspace) prepare(ctx context.Context, question string, r AskRequest) (*prepared, error) {
	if w.Embedding != nil {
		if err := w.Retrieval.UseEmbedding(ctx, *w.Embedding); err != nil {
			return nil, fmt.Errorf("use the embedding model: %w", err)
		}
	}
	sch, meta, err := w.Retrieval.Schema(ctx, question)
	if err != nil {
		return nil, fmt.Errorf("find the tables the question needs: %w", err)
	}
	ag, err := assemble.Agent(w.WS, r.Results, r.Provider, r.Model, r.Options, append(w.Extra, w.Retrieval.Tools()...)...)
	if err != nil {
		return nil, err
	}
	notes := meta.Notes()
	var examples []agent.Example
	var note string
	if r.Options.Privacy != privacy.Schema { // a verified query's literals are values: none at the schema level
		examples, note = verifiedExamples(w.Retrieval.Memory, r.Pair.User.ConversationID, question, w.tables(ctx))
	}
	if note != "" {
		sch.Examples, notes = examples, append(notes, note)
	}
	return &prepared{agent: ag, schema: sch, notes: notes, remember: w.Retrieval.Remember}, nil
}

func (w *Workspace) private() assemble.Private { return assemble.WorkspacePrivate{WS: w.WS} }

// Connection is a question asked about a connected database: the agent's
// queries run on the server (read-only, time-limited) and its prompt holds
// that database's schema and dialect, the tables the question needs (all
// of a small database) with search_schema for the rest. The caller keeps
// Remote open for the run.
type Connection struct {
	Remote *retrieve.Remote
}

var _ Target = (*Connection)(nil)

func (c *Connection) prepare(ctx context.Context, question string, r AskRequest) (*prepared, error) {
	sch, meta, err := c.Remote.Retrieve(ctx, question, retrieve.Budget{})
	if err != nil {
		return nil, err
	}
	ag, err := assemble.RemoteAgent(c.Remote, r.Results, r.Provider, r.Model, r.Options)
	if err != nil {
		return nil, err
	}
	return &prepared{agent: ag, schema: sch, notes: meta.Notes()}, nil
}

func (c *Connection) private() assemble.Private {
	return assemble.RemotePrivate{R: c.Remote, Dir: c.Remote.Dir}
}
