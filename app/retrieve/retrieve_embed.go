package retrieve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/index"
)

// embedJob is the background embedding of a Retrieval's tables: one at a
// time, its outcome kept for the next question's warnings.
type embedJob struct {
	running bool
	again   bool             // go over the tables once more when the pass ends
	cfg     *provider.Config // switch the boost to this before the next pass
	err     error            // the last finished pass's failure
	at      time.Time        // when it failed
}

// EmbedInBackground brings the table embeddings of cfg's embedding model
// up to date in the background (nothing when cfg.EmbedModel is empty):
// the app calls it after loads and when the workspace opens. It returns
// at once. One job runs at a time: a call while one runs makes it go
// over the tables again when its pass ends. A failure is not returned but
// kept, and said in the next question's Meta.Warnings. Close cancels the
// job and waits for it.
func (r *Retrieval) EmbedInBackground(cfg provider.Config) {
	if cfg.EmbedModel == "" {
		return
	}
	r.startJob(&cfg)
}

// WaitEmbedding blocks until no background embedding job runs, for
// callers that need the embeddings settled before they go on (tests and
// benchmarks); it does not stop a job (Close does).
func (r *Retrieval) WaitEmbedding() { r.jobs.Wait() }

// EmbedTables embeds, now, the tables that have no vector of the boost's
// model for their current version (nothing when the boost is off), for
// callers that want the fused ranking complete before they search (loupe
// search).
func (r *Retrieval) EmbedTables(ctx context.Context) (index.EmbedStats, error) {
	b := r.current()
	if b == nil {
		return index.EmbedStats{}, nil
	}
	_, tables, err := datasets(ctx, r.ws)
	if err != nil {
		return index.EmbedStats{}, err
	}
	st, err := b.sem.Sync(ctx, index.Workspace, tables)
	if err != nil {
		return st, fmt.Errorf("embed the tables for the semantic boost: %w", err)
	}
	return st, nil
}

// startJob starts the background job, or asks the running one for one
// more pass; cfg, when not nil, is the configuration to switch to first.
func (r *Retrieval) startJob(cfg *provider.Config) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.life.Err() != nil {
		return
	}
	if cfg != nil {
		r.job.cfg = cfg
	}
	if r.job.running {
		r.job.again = true
		return
	}
	r.job.running = true
	r.jobs.Add(1)
	go r.runJob()
}

func (r *Retrieval) runJob() {
	defer r.jobs.Done()
	for {
		r.mu.Lock()
		cfg := r.job.cfg
		r.job.cfg, r.job.again = nil, false
		r.mu.Unlock()
		err := r.embedPass(r.life, cfg)
		r.mu.Lock()
		if r.life.Err() == nil { // a pass cut short by Close has nothing to say
			r.job.err = err
			r.job.at = time.Now()
		}
		if !r.job.again || r.life.Err() != nil {
			r.job.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

func (r *Retrieval) embedPass(ctx context.Context, cfg *provider.Config) error {
	if cfg != nil {
		if err := r.UseEmbedding(ctx, *cfg); err != nil {
			return err
		}
	}
	_, err := r.EmbedTables(ctx)
	return err
}

// jobState returns the last background pass's failure as a warning, "" if
// it did not fail; and whether a question may start a pass now (none
// runs, and the last did not fail less than boostRetry ago).
func (r *Retrieval) jobState() (warning string, may bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var refused *index.RefusedError
	switch {
	case errors.As(r.job.err, &refused):
		warning = refused.Error()
	case r.job.err != nil:
		warning = fmt.Sprintf("embedding the tables in the background failed (%v); tables not embedded yet were ranked by text alone", r.job.err)
	}
	may = !r.job.running && (r.job.err == nil || time.Since(r.job.at) >= boostRetry)
	return warning, may
}
