package app

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
)

// ChatSummary is a conversation as the sidebar lists it.
type ChatSummary struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Turn is one question and the run that answered it: its events as they
// were streamed (batched, text coalesced) and, once finished, its outcome.
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

// newChatName is a chat's name until its first question names it.
const newChatName = "New chat"

// chat is a conversation held in memory (until the store of issue 6).
type chat struct {
	ChatSummary
	named      bool // renamed by the user or by its first question
	turns      []*Turn
	transcript []llm.Message // every finished run's transcript, in order: the next run's history
	running    string        // the run going on, if any
}

// chatStore holds the conversations. It is safe for concurrent use.
type chatStore struct {
	mu    sync.Mutex
	chats map[string]*chat
}

func newChatStore() *chatStore { return &chatStore{chats: map[string]*chat{}} }

func chatNotFound(id string) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("No conversation has the id %q.", id),
		Hint: "It may have been deleted; pick one in the sidebar or start a new one."}
}

// ListChats returns the conversations, most recently updated first.
func (a *App) ListChats() ([]ChatSummary, error) {
	s := a.chats
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ChatSummary, 0, len(s.chats))
	for _, c := range s.chats {
		out = append(out, c.ChatSummary)
	}
	slices.SortFunc(out, func(x, y ChatSummary) int {
		if c := y.Updated.Compare(x.Updated); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	return out, nil
}

// NewChat starts an empty conversation.
func (a *App) NewChat() (*ChatSummary, error) {
	now := time.Now().UTC()
	c := &chat{ChatSummary: ChatSummary{ID: newID("chat"), Name: newChatName, Created: now, Updated: now}}
	a.chats.mu.Lock()
	a.chats.chats[c.ID] = c
	a.chats.mu.Unlock()
	return &c.ChatSummary, nil
}

// RenameChat renames a conversation.
func (a *App) RenameChat(id, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return newError(CodeInvalid, "A conversation needs a name.", "Type a few words.")
	}
	s := a.chats
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chats[id]
	if !ok {
		return chatNotFound(id)
	}
	c.Name, c.named = name, true
	return nil
}

// DeleteChat deletes a conversation, stopping its run if one is going.
func (a *App) DeleteChat(id string) error {
	s := a.chats
	s.mu.Lock()
	c, ok := s.chats[id]
	var running string
	if ok {
		delete(s.chats, id)
		running = c.running
	}
	s.mu.Unlock()
	if !ok {
		return chatNotFound(id)
	}
	if running != "" {
		a.runs.cancel(running)
	}
	return nil
}

// GetChat returns a conversation with its turns.
func (a *App) GetChat(id string) (*Chat, error) {
	s := a.chats
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chats[id]
	if !ok {
		return nil, chatNotFound(id)
	}
	out := &Chat{ChatSummary: c.ChatSummary, Turns: make([]Turn, len(c.turns))}
	for i, t := range c.turns {
		out.Turns[i] = Turn{Question: t.Question, RunID: t.RunID, Events: slices.Clone(t.Events), Outcome: t.Outcome}
		if out.Turns[i].Events == nil {
			out.Turns[i].Events = []agent.Event{}
		}
	}
	return out, nil
}

// turn finds the turn of runID in chatID.
func (s *chatStore) turn(chatID, runID string) (*chat, *Turn, error) {
	c, ok := s.chats[chatID]
	if !ok {
		return nil, nil, chatNotFound(chatID)
	}
	for _, t := range c.turns {
		if t.RunID == runID {
			return c, t, nil
		}
	}
	return nil, nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("The conversation has no run %q.", runID)}
}

// nameFrom makes a chat's name from its first question: the first line,
// cut at a word boundary near 60 characters.
func nameFrom(question string) string {
	q := strings.Join(strings.Fields(strings.SplitN(strings.TrimSpace(question), "\n", 2)[0]), " ")
	const max = 60
	if utf8.RuneCountInString(q) <= max {
		return q
	}
	r := []rune(q)[:max]
	cut := string(r)
	if i := strings.LastIndex(cut, " "); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}
