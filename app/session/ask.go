package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// AskRequest is one question to answer: the stored question and its
// claimed answer, what it is asked about, the model and where the events
// go. The window, `loupe ask` and `loupe serve` fill it in alike.
type AskRequest struct {
	// Store holds the conversation; Pair is the question and the answer
	// being written, claimed by Recorder's run.
	Store    *store.Store
	Pair     *store.Pair
	Recorder *Recorder
	// Target is what the question is about: a Workspace or a Connection.
	Target Target
	// Results keeps the result sets the agent's queries make.
	Results *results.Store
	// Provider and Model answer; Options bound the run (steps, time,
	// privacy level).
	Provider llm.Provider
	Model    string
	Options  assemble.Options
	// Sink receives every event of the run. Recording them is the sink's
	// business (the window records each batch before publishing it, the
	// CLI each event before printing it), so that what is shown survives.
	Sink agent.Sink
	// Ready, when set, is called once the tables the question needs are
	// retrieved, before the model is called (the CLI announces the
	// conversation then).
	Ready func(in agent.Input)
	// Forgot, when set, hears that a finished answer's queries could not be
	// kept for follow-ups (the answer itself stands).
	Forgot func(err error)
}

// Ask answers the question of r.Pair: it retrieves the tables the question
// needs from the target, builds the history from the conversation's
// earlier messages, runs the agent (whose events go to r.Sink, ending with
// run_finished) and keeps a finished answer's queries for follow-ups. It
// returns the run's outcome. An error means the agent never ran (the
// target or the store failed, or ctx ended): no run_finished was sent, and
// the caller ends the run. ctx bounds the whole run; canceling it stops
// the agent, which still reports how it ended.
func Ask(ctx context.Context, r AskRequest) (*agent.Outcome, error) {
	if r.Store == nil || r.Pair == nil || r.Recorder == nil || r.Target == nil || r.Sink == nil {
		return nil, errors.New("session: Ask needs a store, a question, a recorder, a target and a sink")
	}
	in := agent.Input{RunID: r.Recorder.RunID(), ChatID: r.Pair.User.ConversationID, Question: r.Pair.User.Content}
	ctx = tools.WithChat(ctx, in.ChatID)
	if f := assemble.QuestionMask(r.Options.Privacy, r.Target.private()); f != nil {
		// The embedding model sees the question (and search_schema's
		// queries, their values put back) as the chat model does.
		ctx = index.WithOutgoing(ctx, f)
	}
	prep, err := r.Target.prepare(ctx, in.Question, r)
	if err != nil {
		return nil, err
	}
	in.Schema, in.Notes = prep.schema, prep.notes
	r.Recorder.UseTables(tableNames(in.Schema))
	if r.Ready != nil {
		r.Ready(in)
	}
	if in.History, err = History(ctx, r.Store, r.Pair, r.Provider, r.Model, r.Options.Privacy); err != nil {
		return nil, err
	}
	th, err := r.Store.Thread(ctx, in.ChatID)
	if err != nil {
		return nil, fmt.Errorf("read the conversation %s: %w", in.ChatID, err)
	}
	in.Refs = RefsBefore(th, r.Pair.User.Seq)
	out := prep.agent.Run(ctx, in, r.Sink)
	if out.Status == agent.Done && prep.remember != nil {
		if err := prep.remember(context.WithoutCancel(ctx), in.ChatID, in.Question, out); err != nil && r.Forgot != nil {
			r.Forgot(fmt.Errorf("keep the queries of run %s: %w", in.RunID, err))
		}
	}
	return out, nil
}

// Target is what a question is asked about: a *Workspace or a
// *Connection.
type Target interface {
	// prepare retrieves what question needs and builds the agent.
	prepare(ctx context.Context, question string, r AskRequest) (*prepared, error)
	// private is where the privacy level finds the private columns.
	private() assemble.Private
}

// prepared is a target made ready for one question.
type prepared struct {
	agent    *agent.Agent
	schema   agent.Schema
	notes    []string
	remember func(ctx context.Context, chatID, question string, out *agent.Outcome) error
}

func tableNames(s agent.Schema) []string {
	names := make([]string, 0, len(s.Tables))
	for _, t := range s.Tables {
		names = append(names, t.Name)
	}
	return names
}
