package assemble

import (
	"context"
	"net/http"
	"strings"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// EnvOutboxAll names the environment variable that, set to 1, keeps the
// requests to a model server on this machine in the outbox too. Nothing
// needs it: those requests never leave the machine. Tests set it to point
// the record at the fake model server, which listens on loopback; a
// curious user may set it to read what a local model is sent.
const EnvOutboxAll = "LOUPE_OUTBOX_ALL"

// Outbox keeps model requests in a conversation store: those of one
// answer when ConversationID and MessageID are set, else those made for no
// conversation (status checks, model listing, table-name embeddings).
type Outbox struct {
	Store          *store.Store
	ConversationID string
	MessageID      string
	Level          privacy.Level
}

var _ provider.Outbox = Outbox{}

// Keep stores s.
func (o Outbox) Keep(ctx context.Context, s provider.Sent) error {
	return o.Store.KeepSent(context.WithoutCancel(ctx), store.Sent{ConversationID: o.ConversationID, MessageID: o.MessageID,
		At: s.At, Method: s.Method, URL: s.URL, Level: string(o.Level), Body: s.Body})
}

// TeeClient is the HTTP client of every model server Loupe talks to: it
// keeps each request to another machine in the outbox of its context, and
// the others in loose. getenv reads EnvOutboxAll.
func TeeClient(loose provider.Outbox, getenv func(string) string) *http.Client {
	return provider.Tee(nil, provider.TeeOptions{Fallback: loose, All: strings.TrimSpace(getenv(EnvOutboxAll)) == "1"})
}

// SendFor starts the record of an answer: the level in force and the
// model server at serverURL; it returns ctx whose model requests are kept
// with that answer.
func SendFor(ctx context.Context, st *store.Store, conversationID, messageID string, level privacy.Level, serverURL string) (context.Context, error) {
	err := st.SetAnswerPrivacy(ctx, store.AnswerPrivacy{MessageID: messageID, Level: string(level),
		ModelURL: serverURL, Local: provider.IsLocal(serverURL)})
	if err != nil {
		return ctx, err
	}
	o := Outbox{Store: st, ConversationID: conversationID, MessageID: messageID, Level: level}
	return provider.WithOutbox(ctx, o), nil
}
