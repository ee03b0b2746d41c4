package app

import (
	"context"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// runRemote answers in on the database of the connection name, as
// `loupe ask --connection` does: the agent's queries run on the server
// (read-only, time-limited), its prompt holds that database's schema and
// dialect: the tables the question needs (all of a small database), with
// search_schema for the rest. An error means the agent never ran (the
// connection failed).
func (a *App) runRemote(ctx context.Context, name string, st *store.Store, pair *store.Pair, rec *Recorder, p llm.Provider, model string, o assemble.Options, in agent.Input, b *batcher) error {
	r, release, err := a.remote(ctx, name)
	if err != nil {
		return err
	}
	defer release()
	sch, meta, err := r.Retrieve(ctx, in.Question, assemble.Budget{})
	if err != nil {
		return err
	}
	in.Schema, in.Notes = sch, meta.Notes()
	rec.UseTables(tableNames(in.Schema))
	if in.History, err = History(ctx, st, pair, p, model, o.Privacy); err != nil {
		return err
	}
	ag, err := assemble.RemoteAgent(r, a.results, p, model, o)
	if err != nil {
		return err
	}
	ag.Run(tools.WithChat(ctx, in.ChatID), in, b)
	return nil
}
