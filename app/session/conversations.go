package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools/python"
)

// Conversations is a workspace folder's conversation store (data/store),
// opened on first use (answers left generating by a process that died are
// marked interrupted then) and closed when its lifetime ends, once the
// runs of this process have recorded how they ended. It is safe for
// concurrent use.
type Conversations struct {
	life context.Context
	dir  func() (string, error)
	runs *Runs
	log  *slog.Logger

	mu sync.Mutex
	st *store.Store
}

// NewConversations returns the conversations of the folder dir names,
// alive as long as life; runs are the live runs it waits for at the end.
func NewConversations(life context.Context, dir func() (string, error), runs *Runs, log *slog.Logger) *Conversations {
	return &Conversations{life: life, dir: dir, runs: runs, log: log}
}

// Store returns the open store, opening it if needed. It fails with
// CodeCanceled once the lifetime ended, CodeFile when the folder cannot
// hold it.
func (c *Conversations) Store() (*store.Store, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.life.Err() != nil {
		return nil, NewError(CodeCanceled, "Loupe is shutting down.", "")
	}
	if c.st != nil {
		return c.st, nil
	}
	dir, err := c.dir()
	if err != nil {
		return nil, Wrap(err)
	}
	st, err := store.Open(c.life, filepath.Join(dir, store.FileName))
	if err != nil {
		return nil, &Error{Code: CodeFile, Message: fmt.Sprintf("Cannot open the conversations in %s: %v", dir, err),
			Hint: "Check that the folder is writable.", Err: err}
	}
	c.st = st
	context.AfterFunc(c.life, func() {
		if !c.runs.Wait(3 * time.Second) {
			c.log.Warn("closing the conversation store with runs still going")
		}
		_ = st.Close()
	})
	return st, nil
}

// opened is the store when it is open, else nil.
func (c *Conversations) opened() *store.Store {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

// ChatNotFound is the error of an unknown conversation id.
func ChatNotFound(id string) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("No conversation has the id %q.", id),
		Hint: "It may have been deleted; pick one in the sidebar or start a new one."}
}

// Turns returns the conversation id with its turns: one per answer, with
// the question it answers, its events as they were streamed and its
// outcome. An answer of a live run shows its trace so far; an answer
// interrupted by a crash is shown from what was stored of it (its partial
// text and finished tool calls) as a run that was stopped.
func (c *Conversations) Turns(ctx context.Context, id string) (store.Conversation, []Turn, error) {
	st, err := c.Store()
	if err != nil {
		return store.Conversation{}, nil, err
	}
	th, err := st.Messages(ctx, id)
	if err != nil {
		return store.Conversation{}, nil, err
	}
	blobs, err := st.Blobs(ctx, id)
	if err != nil {
		return store.Conversation{}, nil, fmt.Errorf("read the traces of %s: %w", id, err)
	}
	edits, err := st.ChartEdits(ctx, id)
	if err != nil {
		return store.Conversation{}, nil, err
	}
	for i, m := range th.Messages {
		if _, ok := blobs[m.ID]; !ok && m.Role == store.Assistant { // its events are made from its calls
			whole, err := st.Message(ctx, m.ID)
			if err != nil {
				return store.Conversation{}, nil, err
			}
			th.Messages[i] = *whole
		}
	}
	live := c.runs.Running(id)
	questions := map[string]string{}
	var answers []store.Message
	for _, m := range th.Messages {
		if m.Role == store.User {
			questions[m.ID] = m.Content
		} else {
			answers = append(answers, m)
		}
	}
	turns := make([]Turn, len(answers))
	// Decoding the stored traces is most of the work: spread it over the
	// cores.
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(len(answers)/50, 1))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(answers); i += workers {
				m := answers[i]
				turns[i] = TurnOf(m, blobs[m.ID], live[m.RunID])
				turns[i].Question = questions[m.ParentID]
				withChartEdits(&turns[i], edits[m.ID])
			}
		}()
	}
	wg.Wait()
	return th.Conversation, turns, nil
}

// Turn finds the turn of runID in chatID, and its stored answer, showing
// the charts the user edited. A run still going has no outcome yet. An
// unknown run, or one of another conversation, is CodeNotFound.
func (c *Conversations) Turn(ctx context.Context, chatID, runID string) (*store.Message, *Turn, error) {
	m, t, err := c.turn(ctx, chatID, runID)
	if err != nil {
		return nil, nil, err
	}
	edits, err := c.opened().ChartEdits(ctx, chatID)
	if err != nil {
		return nil, nil, Wrap(err)
	}
	withChartEdits(t, edits[m.ID])
	return m, t, nil
}

// turn is Turn with the charts as drawn.
func (c *Conversations) turn(ctx context.Context, chatID, runID string) (*store.Message, *Turn, error) {
	st := c.opened()
	if st == nil {
		return nil, nil, ChatNotFound(chatID)
	}
	m, err := st.MessageByRun(ctx, runID)
	if err != nil || m.ConversationID != chatID {
		return nil, nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("The conversation has no run %q.", runID)}
	}
	q, err := st.Message(ctx, m.ParentID)
	if err != nil {
		return nil, nil, Wrap(err)
	}
	b, err := st.BlobOf(ctx, m.ID)
	if err != nil {
		return nil, nil, Wrap(err)
	}
	t := TurnOf(*m, b, c.runs.Running(chatID)[runID])
	t.Question = q.Content
	if m.Status == store.Generating {
		t.Outcome = nil
	}
	return m, &t, nil
}

// Delete deletes the conversation id, stopping its run if one is going,
// and the files its Python runs wrote.
func (c *Conversations) Delete(ctx context.Context, id string) error {
	st, err := c.Store()
	if err != nil {
		return err
	}
	if err := st.Delete(ctx, id); err != nil {
		return StoreError(err, id)
	}
	for runID := range c.runs.Running(id) {
		c.runs.Cancel(runID)
	}
	dir, err := c.dir()
	if err != nil {
		return Wrap(err)
	}
	if err := python.RemoveChatFiles(dir, id); err != nil {
		return NewError(CodeFile, "The conversation was deleted, but its Python files could not be removed: "+err.Error(),
			"Delete the folder "+filepath.Join(python.FilesRoot(dir), id)+" by hand.")
	}
	return nil
}

// StoreError says what the store's errors mean for conversation chatID:
// an unknown one is CodeNotFound, one still answering is CodeBusy.
func StoreError(err error, chatID string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ChatNotFound(chatID)
	case errors.Is(err, store.ErrBusy), errors.Is(err, store.ErrClaimed):
		return &Error{Code: CodeBusy, Message: "This conversation is still answering the previous question.",
			Hint: "Wait for the answer, or press Stop (Esc) first.", Err: err}
	}
	return Wrap(err)
}

// MaxHits is how many conversations a Search returns at most.
const MaxHits = 50

// Search finds the conversations whose name, questions or answers hold
// text, ignoring case (store.Search), most recently updated first, at
// most MaxHits. A blank text finds none.
func (c *Conversations) Search(ctx context.Context, text string) ([]store.Hit, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	hits, err := st.Search(ctx, text, MaxHits)
	if err != nil {
		return nil, Wrap(err)
	}
	return hits, nil
}
