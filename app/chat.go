package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools/python"
)

// ChatSummary is a conversation as the sidebar lists it.
type ChatSummary struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Connection names the saved database connection the conversation
	// asks about; empty for the workspace's datasets.
	Connection string `json:"connection,omitempty"`
}

// Turn is one question and the run that answered it: its events as they
// were streamed (batched, text coalesced) and, once finished, its outcome
// (session.Turn as the window receives it).
type Turn struct {
	Question string         `json:"question"`
	RunID    string         `json:"runId"`
	Events   []agent.Event  `json:"events"`
	Outcome  *agent.Outcome `json:"outcome,omitempty"`
}

// Chat is a conversation with its turns.
type Chat struct {
	ChatSummary
	Turns []Turn `json:"turns"`
}

// chatStore is the app's handle on the conversation store (data/store, a
// file in the workspace folder), opened on first use, and the runs going
// on in this process. It is safe for concurrent use.
type chatStore struct {
	mu sync.Mutex // held by WriteReport around turn

	open sync.Mutex
	st   *store.Store

	liveMu sync.Mutex
	live   map[string]*liveRun // by run id
	runs   sync.WaitGroup      // live runs, which the store outlives

	remotes *remotePool // the databases connection chats (and the sidebar) use
}

// liveRun is a run of this process and the chat it answers in.
type liveRun struct {
	chatID string
	rec    *session.Recorder
}

func newChatStore() *chatStore {
	return &chatStore{live: map[string]*liveRun{}, remotes: newRemotePool()}
}

// chatStore opens the store on first use; answers left generating by a
// process that died are marked interrupted then. The store closes when the
// app shuts down, once its runs have recorded how they ended.
func (a *App) chatStore() (*store.Store, error) {
	s := a.chats
	s.open.Lock()
	defer s.open.Unlock()
	if a.life.Err() != nil {
		return nil, newError(CodeCanceled, "Loupe is shutting down.", "")
	}
	if s.st != nil {
		return s.st, nil
	}
	dir, err := a.workspaceDir()
	if err != nil {
		return nil, wrap(err)
	}
	st, err := store.Open(a.life, filepath.Join(dir, store.FileName))
	if err != nil {
		return nil, &Error{Code: CodeFile, Message: fmt.Sprintf("Cannot open the conversations in %s: %v", dir, err),
			Hint: "Check that the folder is writable.", Err: err}
	}
	s.st = st
	context.AfterFunc(a.life, func() {
		done := make(chan struct{})
		go func() { s.runs.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			a.log.Warn("closing the conversation store with runs still going")
		}
		_ = st.Close()
	})
	return st, nil
}

// workspaceDir is the workspace folder, which holds the store.
func (a *App) workspaceDir() (string, error) {
	if a.ws.dir != "" {
		return a.ws.dir, nil
	}
	return workspace.DefaultDir()
}

// begin registers a run of this process.
func (s *chatStore) begin(chatID string, claim *store.Run) *session.Recorder {
	rec := session.NewRecorder(claim)
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	s.live[claim.RunID] = &liveRun{chatID: chatID, rec: rec}
	s.runs.Add(1)
	return rec
}

// end forgets a finished run.
func (s *chatStore) end(rec *session.Recorder) {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	if _, ok := s.live[rec.RunID()]; ok {
		delete(s.live, rec.RunID())
		s.runs.Done()
	}
}

// running returns the live runs of a chat, or of every chat when chatID is
// empty.
func (s *chatStore) running(chatID string) map[string]*session.Recorder {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	out := map[string]*session.Recorder{}
	for id, l := range s.live {
		if chatID == "" || l.chatID == chatID {
			out[id] = l.rec
		}
	}
	return out
}

func chatNotFound(id string) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("No conversation has the id %q.", id),
		Hint: "It may have been deleted; pick one in the sidebar or start a new one."}
}

// storeError shapes the store's errors for the frontend.
func storeError(err error, chatID string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return chatNotFound(chatID)
	case errors.Is(err, store.ErrBusy), errors.Is(err, store.ErrClaimed):
		return &Error{Code: CodeBusy, Message: "This conversation is still answering the previous question.",
			Hint: "Wait for the answer, or press Stop (Esc) first.", Err: err}
	}
	return wrap(err)
}

func summaryOf(c store.Conversation) ChatSummary {
	return ChatSummary{ID: c.ID, Name: c.Name, Created: c.Created, Updated: c.Updated, Connection: remote.LabelName(c.Workspace)}
}

// ListChats returns the conversations, most recently updated first.
func (a *App) ListChats() ([]ChatSummary, error) {
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	list, err := st.Conversations(a.life)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]ChatSummary, len(list))
	for i, c := range list {
		out[i] = summaryOf(c)
	}
	return out, nil
}

// NewChat starts an empty conversation.
func (a *App) NewChat() (*ChatSummary, error) {
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	dir, _ := a.workspaceDir() // chatStore resolved it
	c, err := st.CreateConversation(a.life, "", dir)
	if err != nil {
		return nil, wrap(err)
	}
	s := summaryOf(*c)
	return &s, nil
}

// RenameChat renames a conversation.
func (a *App) RenameChat(id, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return newError(CodeInvalid, "A conversation needs a name.", "Type a few words.")
	}
	st, err := a.chatStore()
	if err != nil {
		return err
	}
	if err := st.Rename(a.life, id, name); err != nil {
		return storeError(err, id)
	}
	return nil
}

// DeleteChat deletes a conversation, stopping its run if one is going.
func (a *App) DeleteChat(id string) error {
	st, err := a.chatStore()
	if err != nil {
		return err
	}
	if err := st.Delete(a.life, id); err != nil {
		return storeError(err, id)
	}
	for runID := range a.chats.running(id) {
		a.runs.cancel(runID)
	}
	// The files its Python runs wrote go with it.
	dir, err := a.workspaceDir()
	if err != nil {
		return wrap(err)
	}
	if err := python.RemoveChatFiles(dir, id); err != nil {
		return newError(CodeFile, "The conversation was deleted, but its Python files could not be removed: "+err.Error(),
			"Delete the folder "+filepath.Join(python.FilesRoot(dir), id)+" by hand.")
	}
	return nil
}

// GetChat returns a conversation with its turns: one per answer, with the
// question it answers, its events as they were streamed and its outcome.
// An answer interrupted by a crash is shown from what was stored of it
// (its partial text and finished tool calls) as a run that was stopped.
func (a *App) GetChat(id string) (*Chat, error) {
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	th, err := st.Messages(a.life, id)
	if err != nil {
		return nil, storeError(err, id)
	}
	blobs, err := st.Blobs(a.life, id)
	if err != nil {
		return nil, wrap(err)
	}
	for i, m := range th.Messages {
		if _, ok := blobs[m.ID]; !ok && m.Role == store.Assistant { // its events are made from its calls
			whole, err := st.Message(a.life, m.ID)
			if err != nil {
				return nil, storeError(err, id)
			}
			th.Messages[i] = *whole
		}
	}
	live := a.chats.running(id)
	questions := map[string]string{}
	var answers []store.Message
	for _, m := range th.Messages {
		if m.Role == store.User {
			questions[m.ID] = m.Content
		} else {
			answers = append(answers, m)
		}
	}
	out := &Chat{ChatSummary: summaryOf(th.Conversation), Turns: make([]Turn, len(answers))}
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
				out.Turns[i] = Turn(session.TurnOf(m, blobs[m.ID], live[m.RunID]))
				out.Turns[i].Question = questions[m.ParentID]
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// turn finds the turn of runID in chatID.
func (s *chatStore) turn(chatID, runID string) (*store.Message, *Turn, error) {
	s.open.Lock()
	st := s.st
	s.open.Unlock()
	if st == nil {
		return nil, nil, chatNotFound(chatID)
	}
	ctx := context.Background()
	m, err := st.MessageByRun(ctx, runID)
	if err != nil || m.ConversationID != chatID {
		return nil, nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("The conversation has no run %q.", runID)}
	}
	q, err := st.Message(ctx, m.ParentID)
	if err != nil {
		return nil, nil, wrap(err)
	}
	b, err := st.BlobOf(ctx, m.ID)
	if err != nil {
		return nil, nil, wrap(err)
	}
	t := Turn(session.TurnOf(*m, b, s.running(chatID)[runID]))
	t.Question = q.Content
	if m.Status == store.Generating {
		t.Outcome = nil
	}
	return m, &t, nil
}
