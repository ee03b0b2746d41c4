package app

import (
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
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
	// Feedback is the user's verdict on the answer, when given.
	Feedback *AnswerFeedback `json:"feedback,omitempty"`
}

// Chat is a conversation with its turns.
type Chat struct {
	ChatSummary
	Turns []Turn `json:"turns"`
}

// storeError shapes the store's errors for the frontend.
func storeError(err error, chatID string) error { return session.StoreError(err, chatID) }

func summaryOf(c store.Conversation) ChatSummary {
	return ChatSummary{ID: c.ID, Name: c.Name, Created: c.Created, Updated: c.Updated, Connection: remote.LabelName(c.Workspace)}
}

// ListChats returns the conversations, most recently updated first.
func (a *App) ListChats() ([]ChatSummary, error) {
	list, err := a.s.Chats.List(a.life)
	if err != nil {
		return nil, err
	}
	out := make([]ChatSummary, len(list))
	for i, c := range list {
		out[i] = summaryOf(c)
	}
	return out, nil
}

// NewChat starts an empty conversation.
func (a *App) NewChat() (*ChatSummary, error) {
	c, err := a.s.NewChat(a.life)
	if err != nil {
		return nil, err
	}
	s := summaryOf(*c)
	return &s, nil
}

// RenameChat renames a conversation.
func (a *App) RenameChat(id, name string) error { return a.s.Chats.Rename(a.life, id, name) }

// DeleteChat deletes a conversation, stopping its run if one is going.
func (a *App) DeleteChat(id string) error {
	return a.s.Chats.Delete(a.life, id)
}

// GetChat returns a conversation with its turns: one per answer, with the
// question it answers, its events as they were streamed and its outcome.
// An answer interrupted by a crash is shown from what was stored of it
// (its partial text and finished tool calls) as a run that was stopped.
func (a *App) GetChat(id string) (*Chat, error) {
	c, turns, err := a.s.Chats.Turns(a.life, id)
	if err != nil {
		return nil, storeError(err, id)
	}
	verdicts, err := a.verdicts(id)
	if err != nil {
		return nil, err
	}
	out := &Chat{ChatSummary: summaryOf(c), Turns: make([]Turn, len(turns))}
	for i, t := range turns {
		out.Turns[i] = Turn{Question: t.Question, RunID: t.RunID, Events: t.Events, Outcome: t.Outcome, Feedback: verdicts[t.RunID]}
	}
	return out, nil
}

// Snippet is a passage around a search's match: Before + Match + After,
// where the text was found.
type Snippet struct {
	Before string `json:"before"`
	Match  string `json:"match"`
	After  string `json:"after"`
}

// ChatHit is a conversation a search found. In says where the text first
// appears: "title", "question" or "answer"; Snippet shows it there;
// Matches counts the messages holding it (0 when only the title does).
type ChatHit struct {
	ChatSummary
	In      string  `json:"in"`
	Snippet Snippet `json:"snippet"`
	Matches int     `json:"matches"`
}

// SearchChats finds the conversations whose name, questions or answers
// contain text, ignoring case, most recently updated first (at most 50).
// A blank text finds none.
func (a *App) SearchChats(text string) ([]ChatHit, error) {
	hits, err := a.s.Chats.Search(a.life, text)
	if err != nil {
		return nil, err
	}
	out := make([]ChatHit, len(hits))
	for i, h := range hits {
		out[i] = ChatHit{ChatSummary: summaryOf(h.Conversation), In: h.In, Matches: h.Matches,
			Snippet: Snippet{Before: h.Snippet.Before, Match: h.Snippet.Match, After: h.Snippet.After}}
	}
	return out, nil
}
